package discovery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// frozenReader is a grant store that never answers: each read blocks until its context
// ends, then fails as grants.Reader requires. It records whether the context it got had
// a deadline.
type frozenReader struct {
	reads, deadlines atomic.Int64
}

func (r *frozenReader) ReadGrants(ctx context.Context, _ string) (*grants.Snapshot, error) {
	r.reads.Add(1)
	if _, ok := ctx.Deadline(); ok {
		r.deadlines.Add(1)
	}
	<-ctx.Done()
	return nil, fmt.Errorf("%w: %w", grants.ErrUnavailable, ctx.Err())
}

// defaultGrantTimeout is the GrantTimeout that Options documents for zero.
const defaultGrantTimeout = 2 * time.Second

// SPEC GRANT-5, ERR-5, FLAG-3: a grant store that never answers makes every request answer
// grants_unavailable (503) after Options.GrantTimeout, 2 s by default, when the
// caller's context has no deadline; a caller's own deadline is kept; a negative
// GrantTimeout adds none, so the read lasts as long as the caller's context.
func TestGrantTimeout(t *testing.T) {
	cat := newCatalog(t, sampleTools()...)
	call := discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)}
	requests := map[string]func(context.Context, *discovery.Discoverer) error{
		"Discover": func(ctx context.Context, d *discovery.Discoverer) error {
			_, err := d.Discover(ctx, alice, discovery.Request{Query: "model"})
			return err
		},
		"ListTools": func(ctx context.Context, d *discovery.Discoverer) error {
			_, err := d.ListTools(ctx, alice)
			return err
		},
		"AuthorizeCall": func(ctx context.Context, d *discovery.Discoverer) error {
			return d.AuthorizeCall(ctx, alice, call)
		},
	}
	cases := []struct {
		name     string
		timeout  time.Duration // Options.GrantTimeout
		deadline time.Duration // the caller's, 0 for none
		cancel   time.Duration // the caller cancels after this, 0 for never
		want     time.Duration
		deadln   bool // the reader sees a deadline
	}{
		{name: "default", want: defaultGrantTimeout, deadln: true},
		{name: "set", timeout: 300 * time.Millisecond, want: 300 * time.Millisecond, deadln: true},
		{name: "caller's shorter deadline kept", timeout: time.Second, deadline: 100 * time.Millisecond, want: 100 * time.Millisecond, deadln: true},
		{name: "caller's longer deadline kept", deadline: 10 * time.Second, want: 10 * time.Second, deadln: true},
		{name: "negative adds none", timeout: -1, cancel: 7 * time.Second, want: 7 * time.Second},
	}
	for _, tc := range cases {
		for rname, req := range requests {
			t.Run(tc.name+"/"+rname, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					r := &frozenReader{}
					d := newDiscoverer(cat, r, func(o *discovery.Options) { o.GrantTimeout = tc.timeout })
					ctx := context.Background()
					if tc.deadline > 0 {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, tc.deadline)
						defer cancel()
					}
					if tc.cancel > 0 {
						var cancel context.CancelFunc
						ctx, cancel = context.WithCancel(ctx)
						time.AfterFunc(tc.cancel, cancel)
					}
					start := time.Now()
					err := req(ctx, d)
					if took := time.Since(start); took != tc.want {
						t.Errorf("answered after %v, want %v", took, tc.want)
					}
					wantCode(t, rname, err, discovery.CodeGrantsUnavailable)
					if n := r.reads.Load(); n != 1 {
						t.Errorf("%d reads, want 1", n)
					}
					if got := r.deadlines.Load() == 1; got != tc.deadln {
						t.Errorf("the read had a deadline: %v, want %v", got, tc.deadln)
					}
				})
			})
		}
	}
	// SPEC CURSOR-5: with revision sync on, a read that times out confirms no revision:
	// the next read of a store that answers again is not refused as stale.
	synctest.Test(t, func(t *testing.T) {
		store := newStore(t, allow("*", "model_search"))
		var frozen atomic.Bool
		frozen.Store(true)
		r := readerFunc(func(ctx context.Context, id string) (*grants.Snapshot, error) {
			if frozen.Load() {
				<-ctx.Done()
				return nil, fmt.Errorf("%w: %w", grants.ErrUnavailable, ctx.Err())
			}
			return store.ReadGrants(ctx, id)
		})
		d := newDiscoverer(cat, r, func(o *discovery.Options) { o.RevisionSync = true })
		start := time.Now()
		_, err := d.Discover(context.Background(), alice, discovery.Request{Query: "model"})
		wantCode(t, "frozen, revision sync", err, discovery.CodeGrantsUnavailable)
		if took := time.Since(start); took != defaultGrantTimeout {
			t.Errorf("frozen, revision sync: answered after %v, want %v", took, defaultGrantTimeout)
		}
		frozen.Store(false)
		if _, err := d.Discover(context.Background(), alice, discovery.Request{Query: "model"}); err != nil {
			t.Errorf("thawed, revision sync: %v", err)
		}
	})
	// Over JSON-RPC the same answer is the 503 error object, not a hang.
	synctest.Test(t, func(t *testing.T) {
		d := newDiscoverer(cat, &frozenReader{}, nil)
		start := time.Now()
		resp, status := d.HandleJSONRPC(context.Background(), alice, discoverMsg("1", "model", 5, ""))
		if took := time.Since(start); status != 503 || took != defaultGrantTimeout {
			t.Errorf("HandleJSONRPC: status %d after %v, want 503 after %v", status, took, defaultGrantTimeout)
		}
		if got := decodePage(t, resp).err; got != discovery.CodeGrantsUnavailable {
			t.Errorf("HandleJSONRPC answered %q, want %s: %s", got, discovery.CodeGrantsUnavailable, resp)
		}
	})
}

// deafReader is a grant store whose reads ignore their context: each blocks until
// release is closed, like a driver stuck in a call that does not watch ctx.
type deafReader struct {
	release chan struct{}
	reads   atomic.Int64
}

func (r *deafReader) ReadGrants(context.Context, string) (*grants.Snapshot, error) {
	r.reads.Add(1)
	<-r.release
	return nil, grants.ErrUnavailable
}

// SPEC GRANT-5, ERR-5: a Reader that ignores its context still cannot hold a request past the
// GrantTimeout, and reads given up on are bounded: once MaxAbandonedReads are still
// running, requests answer grants_unavailable at once without starting another read.
func TestGrantTimeoutDeafReader(t *testing.T) {
	cat := newCatalog(t, sampleTools()...)
	synctest.Test(t, func(t *testing.T) {
		r := &deafReader{release: make(chan struct{})}
		d := newDiscoverer(cat, r, nil)
		n := discovery.MaxAbandonedReads
		for i := range n + 5 {
			start := time.Now()
			_, err := d.ListTools(context.Background(), alice)
			took := time.Since(start)
			wantCode(t, fmt.Sprintf("read %d", i), err, discovery.CodeGrantsUnavailable)
			want := defaultGrantTimeout
			if i >= n {
				want = 0
			}
			if took != want {
				t.Errorf("read %d answered after %v, want %v", i, took, want)
			}
		}
		if got := r.reads.Load(); got != int64(n) {
			t.Errorf("%d reads started, want %d", got, n)
		}
		close(r.release) // the store answers again: the abandoned reads end
		synctest.Wait()
		_, err := d.ListTools(context.Background(), alice)
		wantCode(t, "after the release", err, discovery.CodeGrantsUnavailable)
		if got := r.reads.Load(); got != int64(n)+1 {
			t.Errorf("after the abandoned reads ended, %d reads started, want %d: reads resume", got, n+1)
		}
	})
}

// declaringReader is a grants.Memory behind a wrapper that declares nonBlocking and
// records whether each read's context had a deadline.
type declaringReader struct {
	*grants.Memory
	nonBlocking      bool
	reads, deadlines atomic.Int64
}

func (r *declaringReader) NonBlocking() bool { return r.nonBlocking }

func (r *declaringReader) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	r.reads.Add(1)
	if _, ok := ctx.Deadline(); ok {
		r.deadlines.Add(1)
	}
	return r.Memory.ReadGrants(ctx, id)
}

// SPEC ERR-5: a Reader that declares itself non-blocking (grants.NonBlockingReader, as
// *grants.Memory does) is called directly, without the GrantTimeout deadline and its
// goroutine; one that declares false, or declares nothing, is read under the deadline.
func TestGrantTimeoutNonBlockingReader(t *testing.T) {
	cat := newCatalog(t, sampleTools()...)
	var _ grants.NonBlockingReader = (*grants.Memory)(nil)
	if !new(grants.Memory).NonBlocking() {
		t.Fatal("*grants.Memory does not declare itself non-blocking")
	}
	for _, nonBlocking := range []bool{true, false} {
		t.Run(fmt.Sprint("NonBlocking=", nonBlocking), func(t *testing.T) {
			r := &declaringReader{Memory: newStore(t, allow(alice.ID, "model_search")), nonBlocking: nonBlocking}
			d := newDiscoverer(cat, r, nil)
			if _, err := d.ListTools(context.Background(), alice); err != nil {
				t.Fatal(err)
			}
			wantDeadlines := int64(1)
			if nonBlocking {
				wantDeadlines = 0
			}
			if r.reads.Load() != 1 || r.deadlines.Load() != wantDeadlines {
				t.Errorf("%d reads, %d with a deadline; want 1 read, %d with one", r.reads.Load(), r.deadlines.Load(), wantDeadlines)
			}
		})
	}
}
