package grants

import "iter"

// A Decision is the outcome of GRANT-2 for one principal over one Snapshot.
// It is immutable and safe for concurrent use.
type Decision struct {
	tools map[string]toolRows // every tool with a row in the Snapshot
}

// toolRows records the rows a Snapshot holds for one tool: whether the principal and
// AnyPrincipal have one, and whether it grants.
type toolRows struct {
	own, any           bool
	ownGrant, anyGrant bool
}

// granted applies GRANT-2: the principal's row decides if it exists, else the
// AnyPrincipal row, else deny.
func (t toolRows) granted() bool {
	if t.own {
		return t.ownGrant
	}
	return t.anyGrant
}

// Resolve checks every row of snap (GRANT-5: count, model, duplicate keys) and decides
// for p (GRANT-2). Any check failing answers an error and no Decision: fail closed.
//
// A nil snap answers ErrUnavailable, more than MaxRows rows ErrTooManyRows, and a
// negative snap.Revision, a row that fails CheckRow, a row of another principal or two
// rows with the same key a *MalformedError. Rows are checked in order and the first bad
// one decides the error. The revision itself is not judged here: a caller that needs a
// confirmed revision checks snap.Revision >= 1 (SPEC CURSOR-5).
//
// Resolve runs once per grant snapshot, not per request, so it is plain code: one map
// from tool name to its rows, sized for the Snapshot up front.
func Resolve(snap *Snapshot, p Principal) (*Decision, error) {
	if snap == nil {
		return nil, ErrUnavailable
	}
	if len(snap.Rows) > MaxRows {
		return nil, ErrTooManyRows
	}
	if snap.Revision < 0 {
		return nil, errRevision
	}
	held := make(map[string]bool, len(p.Scopes))
	for _, s := range p.Scopes {
		held[s] = true // an invalid scope is never looked up: rows' scopes are checked first
	}
	tools := make(map[string]toolRows, len(snap.Rows))
	for i := range snap.Rows {
		r := &snap.Rows[i]
		if err := CheckRow(*r); err != nil {
			return nil, err
		}
		own := r.Principal != AnyPrincipal
		if own && r.Principal != p.ID {
			return nil, errPrincipal
		}
		grant := r.Effect == Allow
		for _, s := range r.Scopes {
			grant = grant && held[s]
		}
		t := tools[r.Tool]
		switch {
		case own && t.own, !own && t.any:
			return nil, errDuplicate
		case own:
			t.own, t.ownGrant = true, grant
		default:
			t.any, t.anyGrant = true, grant
		}
		tools[r.Tool] = t
	}
	return &Decision{tools: tools}, nil
}

// Allows reports whether the decision grants tool. A nil Decision grants nothing.
func (d *Decision) Allows(tool string) bool {
	return d != nil && d.tools[tool].granted()
}

// Granted yields each granted tool name once, in no particular order.
func (d *Decision) Granted() iter.Seq[string] {
	return func(yield func(string) bool) {
		if d == nil {
			return
		}
		for tool, t := range d.tools {
			if t.granted() && !yield(tool) {
				return
			}
		}
	}
}
