package discovery_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/cputime"
)

// coldRows returns grants.MaxRows (4,096) rows applicable to alice over names, the
// catalog's tools: one row for each of min(len(names), 4,096) of the names, a
// quarter of them "*" rows, every third one needing models:read (which alice holds),
// every sixteenth a deny; the rows left over name tools the catalog lacks, as a
// gateway's rows for another upstream do. It also returns how many rows name catalog
// tools (spread evenly over it): they come first.
func coldRows(names []string) ([]grants.Row, int) {
	rows := make([]grants.Row, grants.MaxRows)
	inCat := min(len(names), len(rows))
	for i := range rows {
		r := grants.Row{Principal: "alice", Effect: grants.Allow, Revision: 1}
		if i < inCat {
			r.Tool = names[i*len(names)/inCat] // spread over the catalog
		} else {
			r.Tool = fmt.Sprintf("upstream_b_tool_%04d", i)
		}
		if i%4 == 3 {
			r.Principal = grants.AnyPrincipal
		}
		if i%3 == 0 {
			r.Scopes = []string{"models:read"}
		}
		if i%16 == 5 {
			r.Effect = grants.Deny
		}
		rows[i] = r
	}
	return rows, inCat
}

// BenchmarkDiscoverCold measures the first discover request after a grant change: each
// iteration flips one row between allow and deny (a different row each time, among
// those naming catalog tools; the store gives it a new revision, so no two snapshots
// have the same rows) and then runs one Discover for alice, limit 16, over 4,096
// applicable rows and generated catalogs of 1,000 and 10,000 tools. The write is not
// timed; reading the new snapshot, Resolve, the authorised set, its digests and the
// page are. Three warm requests follow each cold one, timed apart. Beside ns/op (wall
// time of the cold request) it reports warm-ns/op, the CPU time of the process during
// the cold (cpu-ns/op) and warm (warm-cpu-ns/op) requests, and cold/warm, the ratio of
// the two CPU times: on a shared machine wall time also counts waiting for a core.
//
// store=memory reads a *grants.Memory (the SQL stores' first request after a change is
// measured by BenchmarkScaleDiscover and BenchmarkSQLStoreColdWarm in
// discovery/storetests, which keeps database drivers out of this package's tests).
func BenchmarkDiscoverCold(b *testing.B) {
	for _, store := range []string{"memory"} {
		for _, n := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("store=%s/tools=%d", store, n), func(b *testing.B) {
				benchCold(b, store, n)
			})
		}
	}
}

func benchCold(b *testing.B, store string, n int) {
	ctx := context.Background()
	list, err := benchCatalog(b, n).d.ListTools(ctx, alice)
	if err != nil {
		b.Fatal(err)
	}
	cat := list.Catalog
	var st grants.Store
	switch store {
	case "memory":
		st = grants.NewMemory()
	}
	rows, inCat := coldRows(cat.Names())
	for _, r := range rows {
		if _, err := st.Put(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	d := newDiscoverer(cat, st, nil)
	// discover runs one request and answers its wall and CPU time (the process's, so
	// the garbage collection it causes counts too).
	discover := func(q string) (wall, cpu time.Duration) {
		cpu0, _ := cputime.Process()
		start := time.Now()
		res, err := d.Discover(ctx, alice, discovery.Request{Query: q, Limit: 16})
		wall = time.Since(start)
		cpu1, _ := cputime.Process()
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Tools) == 0 {
			b.Fatalf("query %q matches nothing", q)
		}
		return wall, cpu1 - cpu0
	}
	for _, q := range benchQueries {
		discover(q)
	}
	const warmRuns = 3
	var coldCPU, warmWall, warmCPU time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		b.StopTimer()
		r := &rows[(i*7919)%inCat] // a different row each time, spread over the catalog
		if r.Effect == grants.Allow {
			r.Effect = grants.Deny
		} else {
			r.Effect = grants.Allow
		}
		if _, err := st.Put(ctx, *r); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		_, cpu := discover(benchQueries[i%len(benchQueries)])
		coldCPU += cpu
		b.StopTimer()
		for k := range warmRuns {
			wall, cpu := discover(benchQueries[(i+k+1)%len(benchQueries)])
			warmWall += wall
			warmCPU += cpu
		}
		b.StartTimer()
		i++
	}
	if _, ok := cputime.Process(); ok && i > 0 && warmCPU > 0 {
		per := func(d time.Duration, n int) float64 { return float64(d) / float64(n) }
		b.ReportMetric(per(warmWall, warmRuns*i), "warm-ns/op")
		b.ReportMetric(per(coldCPU, i), "cpu-ns/op")
		b.ReportMetric(per(warmCPU, warmRuns*i), "warm-cpu-ns/op")
		b.ReportMetric(per(coldCPU, i)/per(warmCPU, warmRuns*i), "cold/warm")
	}
}
