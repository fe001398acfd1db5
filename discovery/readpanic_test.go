package discovery_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// panicReader is a grant store whose reads panic with value, after waiting for release
// when it is not nil.
type panicReader struct {
	release chan struct{}
	value   any
}

func (r *panicReader) ReadGrants(context.Context, string) (*grants.Snapshot, error) {
	if r.release != nil {
		<-r.release
	}
	panic(r.value)
}

// readerPanic is the value a panicking ListTools raised (nil if it returned).
func readerPanic(d *discovery.Discoverer) (v any) {
	defer func() { v = recover() }()
	d.ListTools(context.Background(), alice)
	return nil
}

// SPEC ERR-5: a Reader that panics inside the timed read's goroutine (the default
// GrantTimeout) does not end the process: its panic reaches the request's goroutine,
// as it does when the Reader runs on it (GrantTimeout negative), where the host's
// recovery can see it.
func TestReaderPanicReachesRequest(t *testing.T) {
	cat := newCatalog(t, sampleTools()...)
	type marker struct{ n int }
	for _, timeout := range []string{"default", "negative"} {
		t.Run(timeout, func(t *testing.T) {
			r := &panicReader{value: marker{7}}
			d := newDiscoverer(cat, r, func(o *discovery.Options) {
				if timeout == "negative" {
					o.GrantTimeout = -1
				}
			})
			if got := readerPanic(d); got != (marker{7}) {
				t.Fatalf("ListTools raised %v, want the Reader's panic value", got)
			}
		})
	}
}

// SPEC ERR-5: a Reader that panics after its request left (the request answered
// grants_unavailable at its deadline) ends nothing: the panic is dropped, and the
// next request reads afresh.
func TestReaderPanicAfterDeadline(t *testing.T) {
	cat := newCatalog(t, sampleTools()...)
	synctest.Test(t, func(t *testing.T) {
		r := &panicReader{release: make(chan struct{}), value: "late"}
		d := newDiscoverer(cat, r, nil)
		_, err := d.ListTools(context.Background(), alice)
		wantCode(t, "at the deadline", err, discovery.CodeGrantsUnavailable)
		close(r.release) // the abandoned read panics now
		synctest.Wait()
		if got := readerPanic(d); got != "late" {
			t.Errorf("the next read raised %v, want the Reader's panic (a fresh read)", got)
		}
	})
}
