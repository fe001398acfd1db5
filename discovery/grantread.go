package discovery

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/deferredtools/deferredtools/grants"
)

// readGrants reads the principal's rows and checks the revision (SPEC CURSOR-5). With
// RevisionSync on, a read answering a revision older than one this Discoverer had
// confirmed before the read began is stale; a read racing a newer confirmation is not.
func (d *Discoverer) readGrants(ctx context.Context, p grants.Principal) (*grants.Snapshot, int64, error) {
	if d.opts.Grants == nil {
		return nil, 0, newError(CodeGrantsUnavailable, grants.ErrUnavailable)
	}
	floor := d.confirmed.Load()
	snap, err := d.read(ctx, p.ID)
	if err != nil {
		return nil, 0, grantsError(err)
	}
	if snap == nil {
		return nil, 0, newError(CodeGrantsUnavailable, grants.ErrUnavailable)
	}
	if !d.opts.RevisionSync {
		return snap, d.revision, nil
	}
	rev := snap.Revision
	if rev < 1 || rev < floor {
		return nil, 0, newError(CodeGrantsUnavailable, ErrRevisionUnavailable)
	}
	for {
		seen := d.confirmed.Load()
		if rev <= seen || d.confirmed.CompareAndSwap(seen, rev) {
			return snap, rev, nil
		}
	}
}

// read reads the principal's rows under a deadline d.timeout away when ctx has none.
// Unless d.timeout is 0, the Reader runs in a goroutine of its own, which the request
// abandons when ctx ends: a driver that does not return when its context ends (SQLite
// waiting out its busy timeout on a locked database does not) cannot hold the request.
// While maxAbandonedReads reads are abandoned and still running, a read answers
// ErrUnavailable without starting another, so a frozen store holds no more goroutines.
func (d *Discoverer) read(ctx context.Context, id string) (*grants.Snapshot, error) {
	if d.timeout == 0 {
		return d.opts.Grants.ReadGrants(ctx, id)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.timeout)
		defer cancel()
	}
	if d.abandoned.Load() >= maxAbandonedReads {
		return nil, grants.ErrUnavailable
	}
	r := &pendingRead{done: make(chan struct{})}
	go func() {
		defer func() {
			// A panicking Reader must not end the process from a goroutine the host
			// cannot guard: its panic is raised again on the waiting request's
			// goroutine (as with GrantTimeout negative), or dropped if the request left.
			if v := recover(); v != nil {
				r.panicked, r.panicValue, r.err = true, v, grants.ErrUnavailable
			}
			if !r.state.CompareAndSwap(readRunning, readFinished) {
				d.abandoned.Add(-1) // the request left; nobody reads r
				return
			}
			close(r.done)
		}()
		r.snap, r.err = d.opts.Grants.ReadGrants(ctx, id)
	}()
	select {
	case <-r.done:
		return r.answer()
	case <-ctx.Done():
		if r.state.CompareAndSwap(readRunning, readAbandoned) {
			d.abandoned.Add(1)
			return nil, fmt.Errorf("%w: %w", grants.ErrUnavailable, ctx.Err())
		}
		<-r.done // finished as ctx ended: its answer stands
		return r.answer()
	}
}

// answer is a finished read's result, or its Reader's panic raised again.
func (r *pendingRead) answer() (*grants.Snapshot, error) {
	if r.panicked {
		panic(r.panicValue)
	}
	return r.snap, r.err
}

// maxAbandonedReads bounds the grant reads that requests gave up on and that still run.
const maxAbandonedReads = 64

// pendingRead is one grant read running in its own goroutine (see read).
type pendingRead struct {
	snap *grants.Snapshot
	err  error
	// panicked reports that the Reader panicked with panicValue (see read).
	panicked   bool
	panicValue any
	state      atomic.Int32  // readRunning, then readFinished or readAbandoned
	done       chan struct{} // closed once snap and err are set, unless abandoned
}

const (
	readRunning = iota
	readFinished
	readAbandoned
)

// ErrRevisionUnavailable is the cause of grants_unavailable (503) when, with
// Options.RevisionSync on, a grant read answers no control revision or one older than
// a revision this Discoverer already confirmed (SPEC CURSOR-5). It wraps
// grants.ErrUnavailable, so errors.Is(err, grants.ErrUnavailable) holds too.
var ErrRevisionUnavailable error = revisionError{}

// revisionError is ErrRevisionUnavailable's type: an error unwrapping to
// grants.ErrUnavailable, with a text of its own.
type revisionError struct{}

func (revisionError) Error() string { return "discovery: grant revision unavailable or stale" }

func (revisionError) Unwrap() error { return grants.ErrUnavailable }
