package docs

import (
	"runtime/debug"
	"testing"

	"github.com/deferredtools/deferredtools/internal/cputime"
)

// BenchmarkFreshMemory allocates 100 MB as 4 KB objects and writes a byte of each, in
// memory the process has just given back to the system (debug.FreeOSMemory between
// ops, untimed): what a process's first catalog build pays for memory it touches
// first (docs/scale.md, "Round 7"). It reports the CPU time per 4 KB page (cpu-ns/page)
// and per MB (cpu-ns/MB).
func BenchmarkFreshMemory(b *testing.B) {
	const obj, total = 4096, 100 << 20
	var cpu int64
	for b.Loop() {
		b.StopTimer()
		debug.FreeOSMemory()
		b.StartTimer()
		start, _ := cputime.Process()
		keep := make([][]byte, 0, total/obj)
		for range total / obj {
			p := make([]byte, obj)
			p[obj-1] = 1
			keep = append(keep, p)
		}
		end, _ := cputime.Process()
		cpu += int64(end - start)
		if len(keep) != total/obj {
			b.Fatal("lost pages")
		}
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/float64(total/obj), "cpu-ns/page")
	b.ReportMetric(float64(cpu)/float64(b.N)/float64(total>>20), "cpu-ns/MB")
}
