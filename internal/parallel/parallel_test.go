package parallel

import (
	"sync/atomic"
	"testing"
)

// TestChunksCoversOnce checks every item is handed out once, in ranges of at most
// chunk, with worker numbers below Workers.
func TestChunksCoversOnce(t *testing.T) {
	for _, tc := range []struct{ n, chunk int }{{0, 4}, {1, 4}, {4, 4}, {5, 4}, {1000, 7}, {1000, 64}} {
		counts := make([]atomic.Int32, tc.n)
		w := Workers(tc.n, tc.chunk)
		Chunks(tc.n, tc.chunk, func(worker, lo, hi int) {
			if worker < 0 || worker >= w || hi-lo > tc.chunk || lo >= hi {
				t.Errorf("Chunks(%d, %d) called fn(%d, %d, %d), want worker < %d and 0 < hi-lo <= chunk", tc.n, tc.chunk, worker, lo, hi, w)
			}
			for i := lo; i < hi; i++ {
				counts[i].Add(1)
			}
		})
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Fatalf("Chunks(%d, %d): item %d handed out %d times, want 1", tc.n, tc.chunk, i, c)
			}
		}
	}
}

// TestChunksRepanics checks a panic in fn reaches the caller of Chunks.
func TestChunksRepanics(t *testing.T) {
	defer func() {
		if p := recover(); p != "boom" {
			t.Fatalf("recovered %v, want boom", p)
		}
	}()
	Chunks(1000, 10, func(_, lo, _ int) {
		if lo == 500 {
			panic("boom")
		}
	})
	t.Fatal("Chunks returned")
}
