package rank_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/deferredtools/deferredtools/internal/cputime"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// halfAllowed returns a set holding a seeded random half of n docs.
func halfAllowed(n int, seed uint64) rank.Set {
	r := rand.New(rand.NewPCG(seed, 7))
	s := rank.NewSet(n)
	for i := range n {
		if r.IntN(2) == 0 {
			s.Add(i)
		}
	}
	return s
}

// benchCatalog builds the synthetic catalog of n tools from the real catalogs when present.
func benchCatalog(b *testing.B, n int) []rank.Doc {
	docs, real, err := rankeval.Synthetic(sharedData+"/catalogs", n)
	if err != nil {
		b.Fatal(err)
	}
	if !real {
		b.Logf("real catalogs absent under %s/catalogs: using a generated catalog of %d tools", sharedData, n)
	}
	return docs
}

// BenchmarkSearch ranks 100 realistic queries, one per iteration in turn, over a synthetic
// catalog with a random half of the tools allowed (SPEC PERF-2), and reports the index's
// memory per tool and the CPU time per search (on a shared machine, wall time per op
// also counts the time spent waiting for a core).
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			docs := benchCatalog(b, n)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ix := rank.NewIndex(docs)
			runtime.GC()
			runtime.ReadMemStats(&after)
			perTool := float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
			allowed := halfAllowed(n, 1)
			dst := make([]rank.Hit, 0, 64)
			b.ReportAllocs()
			b.ResetTimer()
			hits := 0
			stop := cputime.Report(b)
			for i := 0; b.Loop(); i++ {
				dst = ix.Search(dst[:0], rankeval.BenchQueries[i%len(rankeval.BenchQueries)], allowed, 17)
				hits += len(dst)
			}
			stop()
			b.ReportMetric(perTool, "index-B/tool")
			runtime.KeepAlive(ix)
			if hits == 0 {
				b.Fatal("no query matched anything")
			}
		})
	}
}

// BenchmarkNewIndex builds the index of the synthetic 10,000-tool catalog, as the
// Discoverer does once per catalog version, and reports the CPU time per build.
func BenchmarkNewIndex(b *testing.B) {
	docs := benchCatalog(b, 10000)
	b.ReportAllocs()
	stop := cputime.Report(b)
	for b.Loop() {
		rank.NewIndex(docs)
	}
	stop()
}
