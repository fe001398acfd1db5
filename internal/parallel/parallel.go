// Package parallel runs the per-item work of a catalog build on every available core.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Chunks calls fn(worker, lo, hi) for consecutive ranges [lo, hi) of at most chunk
// items that together cover [0, n), from up to GOMAXPROCS goroutines; worker (0 to
// Workers(n, chunk)-1) names the goroutine, for per-worker scratch. A range is
// handed out when a goroutine is free, so ranges of uneven cost balance. Chunks
// returns when every call has returned; with one worker it calls fn in order on the
// caller's goroutine. A panic in fn is repanicked on the caller's goroutine.
func Chunks(n, chunk int, fn func(worker, lo, hi int)) {
	w := Workers(n, chunk)
	if w <= 1 {
		for lo := 0; lo < n; lo += chunk {
			fn(0, lo, min(lo+chunk, n))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var panicked any
	for k := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					once.Do(func() { panicked = p })
					next.Store(int64(n)) // the others stop at their next range
				}
			}()
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				fn(k, lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}

// Workers reports how many goroutines Chunks(n, chunk, fn) runs fn on: GOMAXPROCS,
// or fewer when there are fewer ranges; at least 1.
func Workers(n, chunk int) int {
	ranges := (n + chunk - 1) / max(chunk, 1)
	return max(1, min(runtime.GOMAXPROCS(0), ranges))
}
