package grantstest

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/deferredtools/deferredtools/grants"
)

var (
	_ grants.Reader = (*ErrReader)(nil)
	_ grants.Reader = (*TooManyRowsReader)(nil)
	_ grants.Reader = (*MalformedReader)(nil)
	_ grants.Reader = (*NoRevisionReader)(nil)
	_ grants.Reader = (*FailAfterReader)(nil)
	_ grants.Reader = (*SequenceReader)(nil)
	_ grants.Reader = (*HookReader)(nil)
	_ grants.Reader = (*CountingReader)(nil)
)

// readBase reads base, or answers an empty Snapshot at revision 1 when base is nil: a
// wrapping fake's zero value reads an empty store.
func readBase(ctx context.Context, base grants.Reader, principalID string) (*grants.Snapshot, error) {
	if base == nil {
		return &grants.Snapshot{Revision: 1}, nil
	}
	return base.ReadGrants(ctx, principalID)
}

// ErrReader is a Reader whose every read fails with Err, or with grants.ErrUnavailable
// when Err is nil, like storage that cannot answer.
type ErrReader struct {
	Err error
}

// ReadGrants returns no Snapshot and r's error.
func (r *ErrReader) ReadGrants(ctx context.Context, principalID string) (*grants.Snapshot, error) {
	if r.Err == nil {
		return nil, grants.ErrUnavailable
	}
	return nil, r.Err
}

// TooManyRowsReader is a Reader that breaks the read bound: it answers, without error,
// MaxRows+1 AnyPrincipal Allow rows (tools "tool-0000" to "tool-4096") at control
// revision Revision. A consumer must refuse it (grants.Resolve answers
// grants.ErrTooManyRows).
type TooManyRowsReader struct {
	Revision int64
}

// ReadGrants returns a new oversized Snapshot.
func (r *TooManyRowsReader) ReadGrants(ctx context.Context, principalID string) (*grants.Snapshot, error) {
	rows := make([]grants.Row, grants.MaxRows+1)
	for i := range rows {
		rows[i] = grants.Row{Principal: grants.AnyPrincipal, Tool: fmt.Sprintf("tool-%04d", i), Effect: grants.Allow, Revision: 1}
	}
	return &grants.Snapshot{Revision: r.Revision, Rows: rows}, nil
}

// MalformedReasons lists the reasons a grants.MalformedError gives; MalformedReader
// injects a row breaking each.
var MalformedReasons = []string{"principal", "tool", "effect", "scope", "revision", "duplicate"}

// MalformedReader is a Reader that reads Base (an empty Snapshot at revision 1 when
// Base is nil) and adds to its rows one malformed row breaking the rule named by Reason,
// one of MalformedReasons:
//
//   - "principal": a row of another principal than the one read
//   - "tool": a row with an empty tool name
//   - "effect": a row with the effect "maybe"
//   - "scope": a row whose scope is "bad scope" (a space is not a scope character)
//   - "revision": a row with revision 0
//   - "duplicate": a second row with the key of the first row (an AnyPrincipal row
//     "tool-dup" twice when Base has none)
//
// Apart from that row, every row is well formed, so only the rule named is broken. An
// unknown Reason answers an error. Base's Snapshot is copied, never modified.
type MalformedReader struct {
	Base   grants.Reader
	Reason string
}

// ReadGrants returns Base's Snapshot plus one malformed row.
func (r *MalformedReader) ReadGrants(ctx context.Context, principalID string) (*grants.Snapshot, error) {
	base, err := readBase(ctx, r.Base, principalID)
	if err != nil {
		return nil, err
	}
	snap := &grants.Snapshot{Revision: base.Revision, Rows: slices.Clone(base.Rows)}
	bad := grants.Row{Principal: grants.AnyPrincipal, Tool: "tool-malformed", Effect: grants.Allow, Revision: 1}
	switch r.Reason {
	case "principal":
		bad.Principal = principalID + "-other"
		if principalID == grants.AnyPrincipal {
			bad.Principal = "other"
		}
	case "tool":
		bad.Tool = ""
	case "effect":
		bad.Effect = "maybe"
	case "scope":
		bad.Scopes = []string{"bad scope"}
	case "revision":
		bad.Revision = 0
	case "duplicate":
		if len(snap.Rows) == 0 {
			snap.Rows = append(snap.Rows, grants.Row{Principal: grants.AnyPrincipal, Tool: "tool-dup", Effect: grants.Allow, Revision: 1})
		}
		bad = snap.Rows[0]
		bad.Effect = grants.Deny
	default:
		return nil, fmt.Errorf("grantstest: MalformedReader: unknown reason")
	}
	snap.Rows = append(snap.Rows, bad)
	return snap, nil
}

// NoRevisionReader is a Reader that reads Base but answers revision 0: rows without a
// confirmed control revision (SPEC CURSOR-5). The Snapshot is a copy; Base's is never
// modified. A nil Base reads an empty store.
type NoRevisionReader struct {
	Base grants.Reader
}

// ReadGrants returns Base's rows with Revision 0.
func (r *NoRevisionReader) ReadGrants(ctx context.Context, principalID string) (*grants.Snapshot, error) {
	base, err := readBase(ctx, r.Base, principalID)
	if err != nil {
		return nil, err
	}
	return &grants.Snapshot{Revision: 0, Rows: base.Rows}, nil
}

// FailAfterReader is a Reader that passes its first N reads to Base and fails every
// later one with Err (grants.ErrUnavailable when Err is nil): storage lost while a
// request is being served. It is safe for concurrent use. N of 0 (the zero value) or
// less fails every read, the first included. A nil Base reads an empty store: an empty
// Snapshot at revision 1.
type FailAfterReader struct {
	Base  grants.Reader
	N     int64
	Err   error
	calls atomic.Int64
}

// ReadGrants reads Base, or fails once N reads have been made.
func (r *FailAfterReader) ReadGrants(ctx context.Context, principalID string) (*grants.Snapshot, error) {
	if r.calls.Add(1) > r.N {
		if r.Err == nil {
			return nil, grants.ErrUnavailable
		}
		return nil, r.Err
	}
	return readBase(ctx, r.Base, principalID)
}

// SequenceReader is a Reader that answers Snapshots[i] to its i-th read (counting from
// 0) and the last Snapshot to every later read, whatever the principal: grants that
// change between two reads of one request (SPEC CURSOR-4). With no Snapshots it answers
// grants.ErrUnavailable. It is safe for concurrent use.
type SequenceReader struct {
	Snapshots []*grants.Snapshot
	calls     atomic.Int64
}

// ReadGrants returns the next Snapshot of the sequence.
func (r *SequenceReader) ReadGrants(ctx context.Context, principalID string) (*grants.Snapshot, error) {
	if len(r.Snapshots) == 0 {
		return nil, grants.ErrUnavailable
	}
	i := r.calls.Add(1) - 1
	return r.Snapshots[min(i, int64(len(r.Snapshots)-1))], nil
}

// HookReader is a Reader that calls Before with the read's number (1 for the first)
// before passing the read to Base. A Before that changes a grants.Store Base (say, on
// read 2) shows a grant change to a request between its reads; a Before error fails
// the read. A Before that waits (until ctx ends, or on a channel the test closes)
// is a slow store (ExampleHookReader_slowStore). It is safe for concurrent use when
// Before is. A nil Before is not called; a nil Base reads an empty store: an empty
// Snapshot at revision 1.
type HookReader struct {
	Base   grants.Reader
	Before func(ctx context.Context, call int64) error
	calls  atomic.Int64
}

// ReadGrants calls Before, then reads Base.
func (r *HookReader) ReadGrants(ctx context.Context, principalID string) (*grants.Snapshot, error) {
	n := r.calls.Add(1)
	if r.Before != nil {
		if err := r.Before(ctx, n); err != nil {
			return nil, err
		}
	}
	return readBase(ctx, r.Base, principalID)
}

// CountingReader is a Reader that counts the reads it passes to Base, to prove that
// grants are reread (SPEC CALL-1) or never read (SPEC FLAG-2). A nil Base reads an
// empty store: an empty Snapshot at revision 1.
type CountingReader struct {
	Base  grants.Reader
	calls atomic.Int64
}

// ReadGrants counts the read and passes it to Base.
func (r *CountingReader) ReadGrants(ctx context.Context, principalID string) (*grants.Snapshot, error) {
	r.calls.Add(1)
	return readBase(ctx, r.Base, principalID)
}

// Calls returns how many reads r has passed to Base.
func (r *CountingReader) Calls() int64 { return r.calls.Load() }
