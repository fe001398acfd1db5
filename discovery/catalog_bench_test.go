package discovery_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/cputime"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// catalogSizes are the catalog sizes the catalog build benchmarks run at.
var catalogSizes = []int{1000, 10000}

var (
	catToolsMu sync.Mutex
	catTools   = map[int][]json.RawMessage{}
)

// catalogTools returns n generated tools (genCatalog), the same ones on every call.
func catalogTools(n int) []json.RawMessage {
	catToolsMu.Lock()
	defer catToolsMu.Unlock()
	if t, ok := catTools[n]; ok {
		return t
	}
	t := genCatalog(rand.New(rand.NewPCG(2026, uint64(n))), n)
	catTools[n] = t
	return t
}

// catalogOpts are limits no generated catalog reaches.
var catalogOpts = &discovery.CatalogOptions{Limits: schemaguard.Limits{MaxBytes: 1 << 40, MaxNodes: 1 << 40}}

// BenchmarkNewCatalog measures compiling a catalog of generated tools (1-7 KB each, a
// few up to 30 KB), the once-per-version cost. BenchmarkNewCatalogFloor is its floor.
func BenchmarkNewCatalog(b *testing.B) {
	for _, n := range catalogSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			tools := catalogTools(n)
			b.ReportAllocs()
			defer cputime.Report(b)()
			for b.Loop() {
				if _, err := discovery.NewCatalog(tools, catalogOpts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewCatalogFloor measures the least any catalog build must do, on the tools of
// BenchmarkNewCatalog: check every tool is JSON and hash it.
func BenchmarkNewCatalogFloor(b *testing.B) {
	for _, n := range catalogSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			tools := catalogTools(n)
			b.ReportAllocs()
			defer cputime.Report(b)()
			for b.Loop() {
				for _, t := range tools {
					if !json.Valid(t) {
						b.Fatal("invalid")
					}
					sum := sha256.Sum256(t)
					if sum[0] == 0 && sum[1] == 0 && sum[2] == 0 && sum[3] == 0 {
						b.Log("unlikely") // keeps the hash live
					}
				}
			}
		})
	}
}

// BenchmarkNewCatalogIncremental measures swapping in a new version of the 10,000-tool
// catalog, built with the current version as Previous: 10 tools whose text changed under
// the same names ("changed"), or 10 tools gone and 10 others come ("replaced").
func BenchmarkNewCatalogIncremental(b *testing.B) {
	const n, changed = 10000, 10
	tools := catalogTools(n)
	prev, err := discovery.NewCatalog(tools, catalogOpts)
	if err != nil {
		b.Fatal(err)
	}
	for _, keepName := range []bool{true, false} {
		name := map[bool]string{true: "changed", false: "replaced"}[keepName]
		b.Run(name, func(b *testing.B) {
			next := slices.Clone(tools)
			r := rand.New(rand.NewPCG(14, 10))
			for _, i := range r.Perm(n)[:changed] {
				next[i], _, _ = genTool(r, i, 1000+r.IntN(6000))
				if keepName {
					next[i] = renamed(b, next[i], tools[i])
				}
			}
			opts := *catalogOpts
			opts.Previous = prev
			// Two swaps first, then a collection: the timed ones reuse memory the process
			// already touched (a first touch of fresh memory costs far more in a VM than
			// the swap itself) and do not pay for the garbage of building prev.
			for range 2 {
				if _, err := discovery.NewCatalog(next, &opts); err != nil {
					b.Fatal(err)
				}
			}
			runtime.GC()
			b.ReportAllocs()
			defer cputime.Report(b)()
			for b.Loop() {
				if _, err := discovery.NewCatalog(next, &opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// renamed returns tool with the name of like.
func renamed(b *testing.B, tool, like json.RawMessage) json.RawMessage {
	var t, l map[string]any
	if err := json.Unmarshal(tool, &t); err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(like, &l); err != nil {
		b.Fatal(err)
	}
	t["name"] = l["name"]
	out, err := json.Marshal(t)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkFirstCall measures what the default Compiler's lazy compilation adds to a
// tool's first call: compiling its validator (a later call finds it compiled). It
// reports the mean in wall time (ns/tool) and CPU time (cpu-ns/tool), the 99th
// percentile and the slowest over every tool of the catalog BenchmarkNewCatalog builds.
func BenchmarkFirstCall(b *testing.B) {
	tools := catalogTools(10000)
	var all []time.Duration
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		cat, err := discovery.NewCatalog(tools, catalogOpts)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0, _ := cputime.Process()
		all = append(all, discovery.FirstCallTimes(cat)...)
		cpu1, _ := cputime.Process()
		cpu += cpu1 - cpu0
	}
	b.ReportMetric(float64(cpu)/float64(len(all)), "cpu-ns/tool")
	slices.Sort(all)
	var sum time.Duration
	for _, d := range all {
		sum += d
	}
	b.ReportMetric(float64(sum)/float64(len(all)), "ns/tool")
	b.ReportMetric(float64(all[len(all)*99/100]), "p99-ns")
	b.ReportMetric(float64(all[len(all)-1]), "max-ns")
}
