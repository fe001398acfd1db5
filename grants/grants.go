// Package grants decides which tools exist for a principal, from grant rows that deny by
// default and fail closed.
package grants

import (
	"context"
	"errors"
	"iter"
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
	Effect    Effect
	Revision  int64 // >= 1; bumped by every change of the row (GRANT-4)
}

// A Principal is the authenticated caller as the host knows it. The library never
// authenticates; it only reads these.
type Principal struct {
	ID     string
	Scopes []string
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
type Reader interface {
	// ReadGrants returns the rows applicable to principalID: its own rows and the
	// AnyPrincipal rows. More than MaxRows answers ErrTooManyRows.
	ReadGrants(ctx context.Context, principalID string) (*Snapshot, error)
}

// A Store is a Reader that also changes rows. Every change increments the row's
// revision and the control revision in one step (SPEC GRANT-4).
type Store interface {
	Reader
	// Put inserts or replaces the row keyed by (Principal, Tool) and returns it as
	// stored, with its new Revision (the given Revision is ignored).
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
)

// A MalformedError says which rule a row broke, never its content.
type MalformedError struct {
	Reason string // "principal", "tool", "effect", "scope", "revision", "duplicate"
}

func (e *MalformedError) Error() string { return "grants: malformed row: " + e.Reason }
func (e *MalformedError) Unwrap() error { return ErrMalformed }

// CheckRow reports a *MalformedError when r breaks the row model.
func CheckRow(r Row) error { panic("unimplemented") }

// A Decision is the outcome of GRANT-2 for one principal over one Snapshot.
// It is immutable and safe for concurrent use.
type Decision struct {
	// implementation owned by the grants package
}

// Resolve checks every row of snap (GRANT-5: count, model, duplicate keys) and decides
// for p (GRANT-2). Any check failing answers an error and no Decision: fail closed.
func Resolve(snap *Snapshot, p Principal) (*Decision, error) { panic("unimplemented") }

// Allows reports whether the decision grants tool.
func (d *Decision) Allows(tool string) bool { panic("unimplemented") }

// Granted yields each granted tool name once, in no particular order.
func (d *Decision) Granted() iter.Seq[string] { panic("unimplemented") }
