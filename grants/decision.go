package grants

import (
	"iter"
	"slices"
)

// A Decision is the outcome of GRANT-2 for one principal over one Snapshot.
// It is immutable and safe for concurrent use.
type Decision struct {
	tools map[string]toolRows // every tool with a row in the Snapshot that index lacks
	index map[string]int      // the caller's numbering (ResolveIndex); nil for Resolve
	dense []toolRows          // the rows of each numbered tool, by its number
}

// toolRows records the rows a Snapshot holds for one tool: whether the principal
// (hasOwn) and AnyPrincipal (hasAny) have one, and whether each grants.
type toolRows uint8

const (
	hasOwn toolRows = 1 << iota
	ownGrants
	hasAny
	anyGrants
)

// granted applies GRANT-2: the principal's row decides if it exists, else the
// AnyPrincipal row, else deny.
func (t toolRows) granted() bool {
	if t&hasOwn != 0 {
		return t&ownGrants != 0
	}
	return t&anyGrants != 0
}

// add records a row of the principal (own) or of AnyPrincipal that grants or not; it
// reports false, changing nothing, when the tool already has a row of that kind.
func (t *toolRows) add(own, grant bool) bool {
	has, grants := hasAny, anyGrants
	if own {
		has, grants = hasOwn, ownGrants
	}
	if *t&has != 0 {
		return false
	}
	*t |= has
	if grant {
		*t |= grants
	}
	return true
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
// from tool name to its rows, sized for the Snapshot up front, and a map of the scopes
// met so far, so that each distinct scope is checked once.
func Resolve(snap *Snapshot, p Principal) (*Decision, error) {
	return resolve(snap, p, nil, 0)
}

// ResolveIndex is Resolve for a caller that numbers the tools it asks about, such as a
// catalog: index maps each such name to a distinct number in [0, n). It checks every
// row as Resolve does, rows of tools index lacks included, and answers the same
// decisions; the rows of numbered tools are kept in a slice of n entries instead of a
// map, and AppendGrantedIndex lists the granted numbers without a name lookup. The
// Decision reads index: the caller must not change it while the Decision is in use.
// A number outside [0, n) counts as unnumbered.
func ResolveIndex(snap *Snapshot, p Principal, index map[string]int, n int) (*Decision, error) {
	if index == nil {
		index = map[string]int{}
	}
	return resolve(snap, p, index, max(n, 0))
}

// resolve is Resolve, and ResolveIndex when index is not nil.
func resolve(snap *Snapshot, p Principal, index map[string]int, n int) (*Decision, error) {
	if snap == nil {
		return nil, ErrUnavailable
	}
	if len(snap.Rows) > MaxRows {
		return nil, ErrTooManyRows
	}
	if snap.Revision < 0 {
		return nil, errRevision
	}
	scopes := newScopeMemo(p.Scopes)
	d := &Decision{index: index}
	if index == nil {
		d.tools = make(map[string]toolRows, len(snap.Rows))
	} else {
		d.dense = make([]toolRows, n)
	}
	for i := range snap.Rows {
		r := &snap.Rows[i]
		if err := checkFields(r); err != nil {
			return nil, err
		}
		grant := r.Effect == Allow
		for k, s := range r.Scopes {
			held, valid := scopes.holds(s)
			if !valid || slices.Contains(r.Scopes[:k], s) {
				return nil, errScope // a row's scopes are valid and a set
			}
			grant = grant && held
		}
		own := r.Principal != AnyPrincipal
		if own && r.Principal != p.ID {
			return nil, errPrincipal
		}
		var row toolRows
		row.add(own, grant)
		if index != nil {
			if j, ok := index[r.Tool]; ok && uint(j) < uint(n) {
				if !d.dense[j].add(own, grant) {
					return nil, errDuplicate
				}
				continue
			}
		}
		if d.tools == nil {
			d.tools = make(map[string]toolRows, len(snap.Rows)-i)
		}
		// One map assignment for a tool's first row (the map grows); only a tool seen
		// before is read back, to undo the sum (at most 15+15: no overflow) and check
		// for a duplicate.
		size := len(d.tools)
		d.tools[r.Tool] += row
		if len(d.tools) > size {
			continue
		}
		t := d.tools[r.Tool] - row
		if !t.add(own, grant) {
			return nil, errDuplicate
		}
		d.tools[r.Tool] = t
	}
	return d, nil
}

// scopeMemo maps each valid scope met so far to whether the principal holds it, so
// that Resolve checks each distinct scope once: a Snapshot's rows repeat a few scopes.
type scopeMemo map[string]bool

// newScopeMemo returns the memo for a principal holding scopes, which it starts with,
// with room for as many more scopes that rows name and the principal lacks.
func newScopeMemo(scopes []string) scopeMemo {
	m := make(scopeMemo, 2*len(scopes))
	for _, s := range scopes {
		if ValidScope(s) {
			m[s] = true
		}
	}
	return m
}

// holds reports whether s is a valid scope and whether the principal holds it.
func (m scopeMemo) holds(s string) (held, valid bool) {
	held, valid = m[s]
	if !valid && ValidScope(s) {
		m[s], valid = false, true
	}
	return held, valid
}

// Allows reports whether the decision grants tool. A nil Decision grants nothing.
func (d *Decision) Allows(tool string) bool {
	if d == nil {
		return false
	}
	if j, ok := d.index[tool]; ok && uint(j) < uint(len(d.dense)) {
		return d.dense[j].granted()
	}
	return d.tools[tool].granted()
}

// AppendGrantedIndex appends to dst, in increasing order, the number of every tool
// numbered by the index given to ResolveIndex that the decision grants. A nil Decision
// or one Resolve made appends nothing.
func (d *Decision) AppendGrantedIndex(dst []int) []int {
	if d == nil {
		return dst
	}
	for i, t := range d.dense {
		if t.granted() {
			dst = append(dst, i)
		}
	}
	return dst
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
		for tool, j := range d.index {
			if uint(j) < uint(len(d.dense)) && d.dense[j].granted() && !yield(tool) {
				return
			}
		}
	}
}
