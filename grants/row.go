// Package grants decides which tools exist for a principal, from grant rows that deny by
// default and fail closed.
//
// A Reader answers a principal's applicable rows as a Snapshot; Resolve turns a Snapshot
// into a Decision (SPEC GRANT-2) or refuses it (GRANT-5); Deciding names the deciding
// row. A Lister lists rows across principals, for operators. Memory is an in-memory Store;
// package grants/sqlstore keeps rows in SQLite or PostgreSQL; package grants/grantstest
// checks any Store against the rules and injects faults.
//
// Resolve is plain code (one map from tool name to its rows, and one of the scopes met,
// each checked once) because it runs once per grant snapshot, not per request: a
// caller such as the Discoverer caches what it decided by Snapshot. Over
// MaxRows rows it takes about 0.5 ms (SPEC PERF-5; go test -run '^$' -bench
// 'BenchmarkResolve$' ./grants, on an idle machine). ResolveIndex
// makes the same checks and decisions for a caller that numbers its tools (the
// Discoverer numbers a catalog's): their rows are kept in a slice by number, one byte a
// tool, and AppendGrantedIndex lists the granted numbers in order, so the first request
// after a grant change decides a catalog's tools without a map of names.
//
// Decisions where the SPEC is silent:
//
//   - A scope is an RFC 6749 scope-token: one or more printable ASCII characters
//     (%x21 / %x23-5B / %x5D-7E; no space, '"' or '\'). Any other scope makes the row
//     malformed ("scope"), and so does the same scope twice in one row: a row's scopes are
//     a set.
//   - A row's principal and tool must be non-empty; they are otherwise compared as exact
//     byte strings.
//   - A Principal whose ID is empty is not refused: no row can name it, so the
//     AnyPrincipal rows decide for it, as for anyone without a row, and the
//     Discoverer serves it those tools. A host refuses unauthenticated callers before
//     (mcpsdk.TokenInfoPrincipal answers an error for an empty UserID).
//   - A Snapshot may only hold rows of the principal it was read for and of AnyPrincipal.
//     A row of any other principal is a reader bug: Resolve refuses the Snapshot as
//     malformed ("principal").
//   - A principal whose ID is AnyPrincipal has no rows of its own: the AnyPrincipal rows
//     decide for it as for anyone without a row.
//   - Every change increments the control revision by one, and the changed row takes the
//     new control revision as its own revision (Memory and the sqlstore do so). A row's
//     revision therefore strictly increases with each change, even across a delete and a
//     re-creation, so a revision once observed never names two different rows.
package grants

import (
	"context"
	"errors"
)

// MaxRows is the most applicable rows (the principal's and "*"'s) one read may return
// (SPEC GRANT-5). A read that finds more fails closed with ErrTooManyRows.
const MaxRows = 4096

// AnyPrincipal is the compatibility principal: its rows apply to every principal that has
// no row of its own for the tool (SPEC GRANT-1, GRANT-2).
const AnyPrincipal = "*"

// An Effect is what a deciding row does: Allow or Deny.
type Effect string

// The two effects. Any other value makes a row malformed.
const (
	Allow Effect = "allow"
	Deny  Effect = "deny"
)

// A Row grants or denies one tool to one principal (SPEC GRANT-1).
type Row struct {
	Principal string   // principal ID, or AnyPrincipal
	Tool      string   // exact tool name
	Scopes    []string // every scope the caller must hold for an Allow row to grant
	Effect    Effect   // Allow or Deny
	Revision  int64    // >= 1; bumped by every change of the row (GRANT-4)
}

// A Principal is the authenticated caller as the host knows it. The library never
// authenticates; it only reads these.
type Principal struct {
	ID     string   // matched byte for byte against Row.Principal
	Scopes []string // the scopes the caller holds; an Allow row needs all of its Scopes
}

// A Snapshot is one consistent read of a principal's applicable rows and the control
// revision. Readers return a new or shared Snapshot that nobody modifies afterwards.
type Snapshot struct {
	// Revision is the control revision ("model_grants") read with the rows, or 0 when
	// the reader keeps none or could not confirm it.
	Revision int64
	// Rows are the principal's rows and the AnyPrincipal rows, in any order.
	Rows []Row
}

// A Reader reads grant rows. Implementations must be safe for concurrent use, honour
// ctx, and return an error (never an empty Snapshot) when storage cannot answer.
//
// The errors a Reader returns are ErrUnavailable, ErrTooManyRows or a *MalformedError,
// matched with errors.Is; their text never contains storage text. A caller fails
// closed on any of them. A read whose ctx has ended answers no Snapshot and an error
// that also matches ctx.Err() (grantstest.Run checks context.Canceled; Memory wraps it
// in ErrUnavailable).
type Reader interface {
	// ReadGrants returns the rows applicable to principalID: its own rows and the
	// AnyPrincipal rows. More than MaxRows answers ErrTooManyRows.
	ReadGrants(ctx context.Context, principalID string) (*Snapshot, error)
}

// A NonBlockingReader is a Reader that can declare that ReadGrants never waits: it
// answers from memory, with no I/O and no lock held across I/O, as *Memory does. A
// caller that bounds reads with a deadline can call such a Reader directly instead of
// guarding the call with a timer and a goroutine it may abandon (see
// discovery.Options.GrantTimeout). A wrapper may declare what the Reader it wraps does.
type NonBlockingReader interface {
	Reader
	// NonBlocking reports whether every ReadGrants call returns without waiting.
	NonBlocking() bool
}

// A Store is a Reader that also changes rows. Every change increments the row's
// revision and the control revision in one step (SPEC GRANT-4). A Put or Delete whose
// ctx has ended changes nothing and answers an error matching ctx.Err(), as a read
// does. A Store keeps no reference to the caller's Scopes slices, given or returned,
// and never modifies a Snapshot it has returned (grantstest.Run checks each rule).
type Store interface {
	Reader
	// Put inserts or replaces the row keyed by (Principal, Tool) and returns it as
	// stored, with its new Revision (the given Revision is ignored). A row that fails
	// CheckRow (Revision aside) is refused with a *MalformedError and changes nothing,
	// so no write can store a row that a read would refuse.
	Put(ctx context.Context, r Row) (Row, error)
	// Delete removes the row keyed by (principal, tool). Deleting a missing row is not
	// an error and changes nothing.
	Delete(ctx context.Context, principal, tool string) error
}

var (
	// ErrUnavailable reports that grant storage could not be read (or its table is
	// missing). Wrapping errors carry no storage text.
	ErrUnavailable = errors.New("grants: storage unavailable")
	// ErrTooManyRows reports more than MaxRows applicable rows.
	ErrTooManyRows = errors.New("grants: too many applicable rows")
	// ErrMalformed reports a row that breaks the row model; see MalformedError.
	ErrMalformed = errors.New("grants: malformed row")
	// ErrNilContext reports a nil context.Context given to a Memory method: the error
	// also matches ErrUnavailable, so a caller fails closed. Pass context.Background()
	// or context.TODO() instead.
	ErrNilContext = errors.New("grants: nil context")
)

// A MalformedError says which rule a row broke, never its content.
type MalformedError struct {
	Reason string // "principal", "tool", "effect", "scope", "revision", "duplicate"
}

func (e *MalformedError) Error() string { return "grants: malformed row: " + e.Reason }
func (e *MalformedError) Unwrap() error { return ErrMalformed }

// The reasons a MalformedError gives; one allocation each, shared.
var (
	errPrincipal = &MalformedError{Reason: "principal"}
	errTool      = &MalformedError{Reason: "tool"}
	errEffect    = &MalformedError{Reason: "effect"}
	errScope     = &MalformedError{Reason: "scope"}
	errRevision  = &MalformedError{Reason: "revision"}
	errDuplicate = &MalformedError{Reason: "duplicate"}
)

// CheckRow reports a *MalformedError when r breaks the row model: an empty principal or
// tool, an effect other than Allow or Deny, a revision below 1, or a scope that is not a
// scope-token (or appears twice). The rules are checked in that order.
func CheckRow(r Row) error {
	if err := checkFields(&r); err != nil {
		return err
	}
	if !validScopes(r.Scopes) {
		return errScope
	}
	return nil
}

// checkFields is CheckRow without the scopes, which Resolve checks with a memo.
func checkFields(r *Row) error {
	switch {
	case r.Principal == "":
		return errPrincipal
	case r.Tool == "":
		return errTool
	case r.Effect != Allow && r.Effect != Deny:
		return errEffect
	case r.Revision < 1:
		return errRevision
	}
	return nil
}

// ValidScope reports whether s is an RFC 6749 scope-token: non-empty, printable ASCII
// without space, '"' or '\'. Such tokens can be joined with single spaces and split back
// without ambiguity.
func ValidScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// validScopes reports whether every scope is valid and none repeats.
func validScopes(scopes []string) bool {
	for i, s := range scopes {
		if !ValidScope(s) {
			return false
		}
		for _, t := range scopes[:i] {
			if s == t {
				return false
			}
		}
	}
	return true
}
