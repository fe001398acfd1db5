// Package heapsize measures the heap a built value keeps alive, for the tests and
// benchmarks that hold retained memory to a bound.
package heapsize

import (
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// Retained answers the heap bytes that build's result keeps alive: HeapAlloc after a
// full collection with the result alive, less HeapAlloc after collections before
// building. With RETAINED_HEAPPROFILE set to a file name, it also writes the heap
// profile taken while the result is alive there (run with -memprofilerate=1 to see
// where its bytes are).
func Retained(build func() any) int64 {
	var before, after runtime.MemStats
	// Collect until the heap stops shrinking: pools and cleanups free in later cycles.
	for k, last := 0, uint64(0); k < 8; k++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
		runtime.ReadMemStats(&before)
		if k > 1 && before.HeapAlloc >= last {
			break
		}
		last = before.HeapAlloc
	}
	v := build()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if f := os.Getenv("RETAINED_HEAPPROFILE"); f != "" {
		if w, err := os.Create(f); err == nil {
			pprof.Lookup("heap").WriteTo(w, 0)
			w.Close()
		}
	}
	runtime.KeepAlive(v)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}
