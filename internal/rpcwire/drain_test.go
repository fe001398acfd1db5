package rpcwire

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestDrain checks that Drain returns when the state settles (woken by Signal), when
// stop closes, when ctx is cancelled, and after its limit when nothing changes, and not
// before.
func TestDrain(t *testing.T) {
	var mu sync.Mutex
	var c Changes
	owed := 1
	settled := func() bool { return owed == 0 }
	ctx := context.Background()
	within := func(name string, d time.Duration, stop <-chan struct{}, limit time.Duration, act func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { Drain(ctx, &mu, &c, settled, stop, limit); close(done) }()
		select {
		case <-done:
			t.Fatalf("%s: Drain returned before anything happened", name)
		case <-time.After(50 * time.Millisecond):
		}
		act()
		select {
		case <-done:
		case <-time.After(d):
			t.Fatalf("%s: Drain did not return within %v", name, d)
		}
	}
	within("settled", 5*time.Second, nil, time.Hour, func() { mu.Lock(); owed = 0; c.Signal(); mu.Unlock() })
	owed = 1
	stop := make(chan struct{})
	within("stop", 5*time.Second, stop, time.Hour, func() { close(stop) })
	var cancel context.CancelFunc
	ctx, cancel = context.WithCancel(context.Background())
	within("ctx", 5*time.Second, nil, time.Hour, cancel)
	ctx = context.Background()
	start := time.Now()
	within("limit", 5*time.Second, nil, 200*time.Millisecond, func() {})
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("Drain returned after %v, before its limit", d)
	}
}
