package grantstest_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// The fakes' docs say CountingReader, FailAfterReader, SequenceReader and HookReader
// (with a Before that is) are safe for concurrent use: read from many goroutines at
// once (run with -race), each counts every read exactly once.
func TestFakesConcurrentReads(t *testing.T) {
	const goroutines, each = 8, 50
	ctx := context.Background()
	base := memoryWith(t, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
	counting := &grantstest.CountingReader{Base: base}
	failAfter := &grantstest.FailAfterReader{Base: base, N: goroutines * each / 2}
	s1, s2 := &grants.Snapshot{Revision: 1}, &grants.Snapshot{Revision: 2}
	sequence := &grantstest.SequenceReader{Snapshots: []*grants.Snapshot{s1, s2}}
	var hooked atomic.Int64
	maxCall := int64(0)
	var mu sync.Mutex
	hook := &grantstest.HookReader{Base: base, Before: func(_ context.Context, call int64) error {
		hooked.Add(1)
		mu.Lock()
		maxCall = max(maxCall, call)
		mu.Unlock()
		return nil
	}}
	var failed, firsts atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				if _, err := counting.ReadGrants(ctx, "alice"); err != nil {
					t.Error(err)
				}
				if _, err := failAfter.ReadGrants(ctx, "alice"); errors.Is(err, grants.ErrUnavailable) {
					failed.Add(1)
				} else if err != nil {
					t.Error(err)
				}
				if snap, err := sequence.ReadGrants(ctx, "alice"); err != nil || (snap != s1 && snap != s2) {
					t.Errorf("SequenceReader = %v, %v", snap, err)
				} else if snap == s1 {
					firsts.Add(1)
				}
				if _, err := hook.ReadGrants(ctx, "alice"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	const reads = goroutines * each
	if n := counting.Calls(); n != reads {
		t.Errorf("CountingReader counted %d of %d concurrent reads", n, reads)
	}
	if n := failed.Load(); n != reads-failAfter.N {
		t.Errorf("FailAfterReader{N: %d} failed %d of %d concurrent reads, want %d", failAfter.N, n, reads, reads-failAfter.N)
	}
	if n := firsts.Load(); n != 1 {
		t.Errorf("SequenceReader answered its first Snapshot to %d concurrent reads, want 1", n)
	}
	if hooked.Load() != reads || maxCall != reads {
		t.Errorf("HookReader called Before %d times, highest read number %d, want %d and %d", hooked.Load(), maxCall, reads, reads)
	}
}
