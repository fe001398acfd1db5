package rpcwire

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"strings"
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

// GoBounded runs f on a goroutine of its own while sem has room, and in the caller once
// cap(sem) run at once (backpressure: the connection reads nothing further meanwhile);
// a slot is free again when its f returns.
func TestGoBounded(t *testing.T) {
	sem := make(chan struct{}, 2)
	release := make(chan struct{})
	started := make(chan uint64, 2)
	for range 2 { // each returns at once: f runs elsewhere, holding its slot
		GoBounded(sem, func() { started <- goroutineID(); <-release })
	}
	caller := goroutineID()
	for range 2 {
		if id := <-started; id == caller {
			t.Error("with sem not full, f ran in the caller")
		}
	}
	var ran uint64
	GoBounded(sem, func() { ran = goroutineID() })
	if ran != caller {
		t.Errorf("with sem full, f ran on goroutine %d, want the caller's (%d)", ran, caller)
	}
	close(release)
	for deadline := time.Now().Add(10 * time.Second); len(sem) > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d slots still held after every f returned", len(sem))
		}
	}
	done := make(chan uint64, 1)
	GoBounded(sem, func() { done <- goroutineID() })
	if id := <-done; id == caller {
		t.Error("with a slot free again, f ran in the caller")
	}
}

// goroutineID is the running goroutine's number, read from its stack header
// ("goroutine N [running]:").
func goroutineID() uint64 {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	f := strings.Fields(string(b))
	id, _ := strconv.ParseUint(f[1], 10, 64)
	return id
}
