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

// A Changes wakes the goroutines waiting in Drain for the next change of a state
// guarded by a caller's mutex. The zero value is ready.
type Changes struct{ ch chan struct{} }

// Signal wakes the goroutines waiting for a change; the caller holds the state's mutex.
func (c *Changes) Signal() {
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// Drain returns once settled, called with mu held, reports true, or after limit, or
// when ctx is done or stop (nil: never) is closed. It waits on c between checks.
func Drain(ctx context.Context, mu *sync.Mutex, c *Changes, settled func() bool, stop <-chan struct{}, limit time.Duration) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		mu.Lock()
		if settled() {
			mu.Unlock()
			return
		}
		if c.ch == nil {
			c.ch = make(chan struct{})
		}
		changed := c.ch
		mu.Unlock()
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
