package storetests_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/cputime"
)

// BenchmarkSQLStoreColdWarm measures issue 14's ratio of the first request after a
// grant change to the warm request, in pairs so that the load of a shared machine
// weighs on both alike: at 10,000 tools (the Scale benchmarks' catalog, principal and
// 4,096 applicable rows), each pair rewrites one of the principal's rows outside the
// timer (as ScaleDiscover's cold does), then times the first Discover after it (cold)
// and the next (warm), in wall time and in this process's CPU time (a PostgreSQL
// server's is not counted). It reports the medians over the pairs: cold-ns, warm-ns,
// cold-cpu-ns, warm-cpu-ns, and the medians of each pair's ratios, ratio (wall) and
// cpu-ratio. ns/op is a whole pair with the write.
func BenchmarkSQLStoreColdWarm(b *testing.B) {
	const n = 10000
	for _, st := range scaleStores {
		b.Run(fmt.Sprintf("tools=%d/grants=%s", n, st.name), func(b *testing.B) {
			f := scaleCatalog(b, n)
			store := st.open(b)
			ctx := context.Background()
			names := f.cat.Names()
			r := rand.New(rand.NewPCG(scaleSeed, uint64(n)))
			granted := make([]string, min(n, grants.MaxRows))
			for i, j := range r.Perm(len(names))[:len(granted)] {
				granted[i] = names[j]
				if _, err := store.Put(ctx, scaleRow(granted[i], i, false)); err != nil {
					b.Fatal(err)
				}
			}
			d := discovery.New(&discovery.Options{Enabled: true, Catalog: f.cat, Grants: store, RevisionSync: true})
			discover := func(q int) (wall, cpu time.Duration) {
				c0, _ := cputime.Process()
				t0 := time.Now()
				if _, err := d.Discover(ctx, scalePrincipal, discovery.Request{Query: f.queries[q%len(f.queries)], Limit: 16}); err != nil {
					b.Fatal(err)
				}
				wall = time.Since(t0)
				c1, _ := cputime.Process()
				return wall, c1 - c0
			}
			discover(0)
			var cold, warm, coldCPU, warmCPU, ratio, cpuRatio []float64
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				b.StopTimer()
				k := i % len(granted)
				if _, err := store.Put(ctx, scaleRow(granted[k], k, (i/len(granted))%2 == 0)); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				cw, cc := discover(2 * i)
				ww, wc := discover(2*i + 1)
				cold, warm = append(cold, float64(cw)), append(warm, float64(ww))
				coldCPU, warmCPU = append(coldCPU, float64(cc)), append(warmCPU, float64(wc))
				ratio = append(ratio, float64(cw)/float64(ww))
				if wc > 0 {
					cpuRatio = append(cpuRatio, float64(cc)/float64(wc))
				}
				i++
			}
			for _, m := range []struct {
				v    []float64
				unit string
			}{{cold, "cold-ns"}, {warm, "warm-ns"}, {coldCPU, "cold-cpu-ns"}, {warmCPU, "warm-cpu-ns"}, {ratio, "ratio"}, {cpuRatio, "cpu-ratio"}} {
				if len(m.v) > 0 {
					slices.Sort(m.v)
					b.ReportMetric(m.v[len(m.v)/2], m.unit)
				}
			}
		})
	}
}
