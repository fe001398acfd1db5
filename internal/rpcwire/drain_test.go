package rpcwire

import (
	"context"
	"slices"
	"testing"
	"time"
)

// waitReturns fails unless o.Wait, started before act, is still waiting 50 ms later
// and returns within d of act.
func waitReturns(t *testing.T, name string, o *Owed[string, int], ctx context.Context, stop <-chan struct{}, limit, d time.Duration, act func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { o.Wait(ctx, stop, limit); close(done) }()
	select {
	case <-done:
		t.Fatalf("%s: Wait returned before anything happened", name)
	case <-time.After(50 * time.Millisecond):
	}
	act()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: Wait did not return within %v", name, d)
	}
}

// TestOwedWait checks that Wait returns when the last request is answered, when a call
// of the server's awaits the client (but not while a front answer is being written),
// when stop closes, when ctx is cancelled, and after its limit when nothing changes,
// and not before.
func TestOwedWait(t *testing.T) {
	var o Owed[string, int]
	ctx := context.Background()
	o.Track("1", 1)
	waitReturns(t, "answered", &o, ctx, nil, time.Hour, 5*time.Second, func() { o.Settle("1") })

	o.Track("2", 2)
	waitReturns(t, "server call", &o, ctx, nil, time.Hour, 5*time.Second, func() { o.Call("s1") })
	if !o.Replied("s1") || o.Replied("s1") {
		t.Fatal("Replied: the server's call was not awaited once")
	}

	end := o.Begin()
	o.Call("s2")
	waitReturns(t, "front answer", &o, ctx, nil, time.Hour, 5*time.Second, end)
	o.Replied("s2")

	stop := make(chan struct{})
	waitReturns(t, "stop", &o, ctx, stop, time.Hour, 5*time.Second, func() { close(stop) })
	cctx, cancel := context.WithCancel(ctx)
	waitReturns(t, "ctx", &o, cctx, nil, time.Hour, 5*time.Second, cancel)
	start := time.Now()
	waitReturns(t, "limit", &o, ctx, nil, 200*time.Millisecond, 5*time.Second, func() {})
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("Wait returned after %v, before its limit", d)
	}
}

// Track refuses an id in flight until it is settled; Settle returns the value once;
// Clear forgets every request, handing each value to drop.
func TestOwedTrack(t *testing.T) {
	var o Owed[string, int]
	if !o.Track("a", 1) || o.Track("a", 2) {
		t.Fatal("Track: an id in flight was taken twice, or not at all")
	}
	if v, ok := o.Settle("a"); !ok || v != 1 {
		t.Fatalf("Settle(a) = %d, %t, want 1, true", v, ok)
	}
	if _, ok := o.Settle("a"); ok {
		t.Fatal("Settle(a) found it twice")
	}
	o.Track("a", 3)
	o.Track("b", 4)
	var dropped []int
	o.Clear(func(v int) { dropped = append(dropped, v) })
	slices.Sort(dropped)
	if !slices.Equal(dropped, []int{3, 4}) || !o.Track("a", 5) {
		t.Fatalf("Clear dropped %v, want [3 4], and must free the ids", dropped)
	}
	o.Wait(context.Background(), nil, time.Millisecond) // "a" in flight: returns at its limit
}
