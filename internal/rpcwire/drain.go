package rpcwire

import (
	"context"
	"sync"
	"time"
)

// DrainLimit bounds how long a stdio front waits, once its input has ended, for the
// answers it still owes before it hands the SDK the end (which cancels the requests
// in flight): a handler that never returns on its own must not keep the process alive.
const DrainLimit = 10 * time.Second

// Owed is a stdio connection's record of what it still owes its client: the requests
// it passed on to the SDK and whose response has not gone out (by id key K, each with
// a value V of the caller's), and the front's own answers being written; and of the
// calls the server sent that await the client's response. At the end of input a front
// waits (Wait) before it hands the SDK the end, since the SDKs, once their input ends,
// cancel the requests in flight and write nothing more. It also keeps request ids
// unique among those in flight: an SDK drops or confuses a request whose id is in
// flight. The zero value is ready; it is safe for concurrent use.
type Owed[K comparable, V any] struct {
	mu        sync.Mutex
	due       map[K]V        // requests passed on and not yet answered
	answering int            // the front's answers being written
	calls     map[K]struct{} // the server's calls awaiting the client
	changed   chan struct{}  // closed on the next change, when Wait waits
}

// Track records the request with id key k, passed on with value v; it reports false,
// recording nothing, when a request with k is still in flight.
func (o *Owed[K, V]) Track(k K, v V) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, dup := o.due[k]; dup {
		return false
	}
	if o.due == nil {
		o.due = make(map[K]V)
	}
	o.due[k] = v
	return true
}

// Settle forgets the request with id key k, whose response goes out, and returns its
// value; ok is false when no such request was in flight.
func (o *Owed[K, V]) Settle(k K) (v V, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if v, ok = o.due[k]; ok {
		delete(o.due, k)
		o.signal()
	}
	return v, ok
}

// Call records a call of the server's, with id key k, that awaits the client.
func (o *Owed[K, V]) Call(k K) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.calls == nil {
		o.calls = make(map[K]struct{})
	}
	o.calls[k] = struct{}{}
	o.signal()
}

// Replied forgets the server's call k, which the client answered, and reports whether
// it was awaited.
func (o *Owed[K, V]) Replied(k K) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.calls[k]
	if ok {
		delete(o.calls, k)
		o.signal()
	}
	return ok
}

// Begin counts one of the front's own answers until end, called once it is written.
func (o *Owed[K, V]) Begin() (end func()) {
	o.mu.Lock()
	o.answering++
	o.mu.Unlock()
	return func() {
		o.mu.Lock()
		o.answering--
		o.signal()
		o.mu.Unlock()
	}
}

// Clear forgets every request in flight, calling drop (if not nil) with each value,
// and wakes Wait.
func (o *Owed[K, V]) Clear(drop func(V)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, v := range o.due {
		delete(o.due, k)
		if drop != nil {
			drop(v)
		}
	}
	o.signal()
}

// Wait returns once every front answer is written and every request passed on is
// answered, or a call of the server's awaits the client (whose input has ended, so
// that call can never be answered and its request may never finish); or after limit
// (a handler that never returns: the SDK then cancels it); or when ctx is done or stop
// (nil: never) is closed.
func (o *Owed[K, V]) Wait(ctx context.Context, stop <-chan struct{}, limit time.Duration) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		o.mu.Lock()
		if o.answering == 0 && (len(o.due) == 0 || len(o.calls) > 0) {
			o.mu.Unlock()
			return
		}
		if o.changed == nil {
			o.changed = make(chan struct{})
		}
		changed := o.changed
		o.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-timer.C:
			return
		}
	}
}

// signal wakes Wait; the caller holds o.mu.
func (o *Owed[K, V]) signal() {
	if o.changed != nil {
		close(o.changed)
		o.changed = nil
	}
}

// GoBounded runs f on a goroutine of its own while sem has room, and in the caller
// otherwise: a connection answers at most cap(sem) messages at once and reads nothing
// further while it is full (backpressure).
func GoBounded(sem chan struct{}, f func()) {
	select {
	case sem <- struct{}{}:
		go func() {
			defer func() { <-sem }()
			f()
		}()
	default:
		f()
	}
}
