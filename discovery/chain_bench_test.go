package discovery_test

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
)

// BenchmarkPreviousChainHeap builds a chain of 80 catalog versions of 3,000 generated
// tools, each with the last as Previous (editInOrder's edits, as
// TestNewCatalogPreviousChainMemory makes them), and reports the heap left after
// collection with the last version alive (heap-MB), and after the first 5 versions
// (heap5-MB): a chain that kept old versions would grow between the two.
func BenchmarkPreviousChainHeap(b *testing.B) {
	heap := func() float64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / 1e6
	}
	var early, late float64
	for b.Loop() {
		r := rand.New(rand.NewPCG(14, 6))
		tools := genCatalog(r, 3000)
		cur, err := discovery.NewCatalog(tools, nil)
		if err != nil {
			b.Fatal(err)
		}
		for round := range 80 {
			tools = editInOrder(r, tools, round)
			if cur, err = discovery.NewCatalog(tools, withPrevious(discovery.CatalogOptions{}, cur)); err != nil {
				b.Fatal(err)
			}
			if round == 4 {
				early = heap()
			}
		}
		late = heap()
		runtime.KeepAlive(cur)
	}
	b.ReportMetric(early, "heap5-MB")
	b.ReportMetric(late, "heap-MB")
}
