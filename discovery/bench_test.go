package discovery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
	"github.com/deferredtools/deferredtools/internal/cputime"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// benchQueries are realistic discovery queries, cycled by the benchmarks.
var benchQueries = []string{
	"search models by tag",
	"deploy a model version to an endpoint",
	"list datasets",
	"billing invoice",
	"scale deployment replicas",
	"upload dataset file",
	"compare evaluation metrics",
	"delete secret token",
	"export audit logs",
	"gpu usage cost report",
	"create training job",
	"webhook events",
	"vector index embeddings",
	"project team members permission",
	"pipeline schedule status",
	"download checkpoint artifact",
}

// A benchFixture is a generated catalog of realistic tools (1-7 KB each, fixed seed)
// and a principal granted as many of them as one grant read may return.
type benchFixture struct {
	d       *discovery.Discoverer
	cat     *discovery.Catalog
	store   *grants.Memory
	granted int
}

var (
	benchMu       sync.Mutex
	benchFixtures = map[int]*benchFixture{}
)

// benchCatalog builds (once per size) a catalog of n generated tools and a Discoverer
// whose principal alice is granted min(n, grants.MaxRows) of them by exact-name rows.
// GRANT-5 caps a read at grants.MaxRows (4,096) applicable rows, and GRANT-2 grants a
// tool only through a row naming it, so 4,096 is the most tools one principal can be
// granted: the 10,000-tool benchmark runs with 4,096 granted, the 1,000-tool one with
// all 1,000.
func benchCatalog(b *testing.B, n int) *benchFixture {
	benchMu.Lock()
	defer benchMu.Unlock()
	if f, ok := benchFixtures[n]; ok {
		return f
	}
	r := rand.New(rand.NewPCG(2026, uint64(n)))
	tools := make([]json.RawMessage, n)
	for i := range tools {
		tools[i], _, _ = genTool(r, i, 1000+r.IntN(6000))
	}
	cat, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{
		Limits: schemaguard.Limits{MaxBytes: 512 << 20, MaxNodes: 64 << 20},
	})
	if err != nil {
		b.Fatal(err)
	}
	store := grants.NewMemory()
	names := cat.Names()
	perm := r.Perm(len(names))
	granted := min(n, grants.MaxRows)
	for _, i := range perm[:granted] {
		if _, err := store.Put(context.Background(), allow("alice", names[i])); err != nil {
			b.Fatal(err)
		}
	}
	f := &benchFixture{d: newDiscoverer(cat, store, nil), cat: cat, store: store, granted: granted}
	benchFixtures[n] = f
	return f
}

// BenchmarkDiscover measures one discover request, limit 16, over generated catalogs
// of 1,000 and 10,000 tools (SPEC PERF-1: allocations must not grow with the catalog).
func BenchmarkDiscover(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			f := benchCatalog(b, n)
			ctx := context.Background()
			for _, q := range benchQueries { // warm the per-snapshot caches, check the path
				res, err := f.d.Discover(ctx, alice, discovery.Request{Query: q, Limit: 16})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Tools) == 0 {
					b.Fatalf("query %q matches nothing", q)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			stop := cputime.Report(b)
			i := 0
			for b.Loop() {
				if _, err := f.d.Discover(ctx, alice, discovery.Request{Query: benchQueries[i%len(benchQueries)], Limit: 16}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			stop()
		})
	}
}

// BenchmarkDiscoverNextPage measures a request that opens a cursor (page 2).
func BenchmarkDiscoverNextPage(b *testing.B) {
	f := benchCatalog(b, 10000)
	ctx := context.Background()
	cursors := make([]string, len(benchQueries))
	for i, q := range benchQueries {
		res, err := f.d.Discover(ctx, alice, discovery.Request{Query: q, Limit: 16})
		if err != nil {
			b.Fatal(err)
		}
		cursors[i] = res.NextCursor
	}
	b.ReportAllocs()
	stop := cputime.Report(b)
	i := 0
	for b.Loop() {
		k := i % len(benchQueries)
		if cursors[k] == "" {
			i++
			continue
		}
		if _, err := f.d.Discover(ctx, alice, discovery.Request{Query: benchQueries[k], Limit: 16, Cursor: cursors[k]}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	stop()
}

// BenchmarkHandleJSONRPC measures a discover request as bytes in, bytes out over the
// 10,000-tool catalog.
func BenchmarkHandleJSONRPC(b *testing.B) {
	f := benchCatalog(b, 10000)
	ctx := context.Background()
	msgs := make([][]byte, len(benchQueries))
	for i, q := range benchQueries {
		msgs[i] = discoverMsg(fmt.Sprint(i+1), q, 16, "")
		if resp, status := f.d.HandleJSONRPC(ctx, alice, msgs[i]); status != http.StatusOK || decodePage(b, resp).err != "" {
			b.Fatalf("query %q: %.200s", q, resp)
		}
	}
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		stop := cputime.Report(b)
		i := 0
		for b.Loop() {
			if _, status := f.d.HandleJSONRPC(ctx, alice, msgs[i%len(msgs)]); status != http.StatusOK {
				b.Fatal("not a page")
			}
			i++
		}
		stop()
	})
	b.Run("append", func(b *testing.B) { // AppendJSONRPC into one reused buffer
		buf := make([]byte, 0, discovery.MaxResponseBytes)
		b.ReportAllocs()
		stop := cputime.Report(b)
		i := 0
		for b.Loop() {
			if _, status := f.d.AppendJSONRPC(ctx, buf[:0], alice, msgs[i%len(msgs)]); status != http.StatusOK {
				b.Fatal("not a page")
			}
			i++
		}
		stop()
	})
}

// BenchmarkAuthorizeCall measures a granted call with a 10-property argument object:
// grant reread and decision, validation from the bytes, no host check.
func BenchmarkAuthorizeCall(b *testing.B) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"model":       map[string]any{"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[a-z0-9][a-z0-9._/-]*$"},
			"version":     map[string]any{"type": "integer", "minimum": 1, "maximum": 100000},
			"region":      map[string]any{"enum": []any{"eu-west-1", "us-east-1", "ap-south-1"}},
			"replicas":    map[string]any{"type": "integer", "minimum": 1, "maximum": 64},
			"gpu":         map[string]any{"type": "boolean"},
			"max_latency": map[string]any{"type": "number", "exclusiveMinimum": 0, "maximum": 10000},
			"tags":        map[string]any{"type": "array", "items": map[string]any{"type": "string", "maxLength": 32}, "maxItems": 16, "uniqueItems": true},
			"description": map[string]any{"type": "string", "maxLength": 1000},
			"env":         map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"strategy":    map[string]any{"type": "string", "enum": []any{"rolling", "blue-green", "canary"}},
		},
		"required":             []any{"model", "version", "region"},
		"additionalProperties": false,
	}
	cat := newCatalog(b, append(sampleTools(), toolDefSchema("deployment_rollout", "Roll out a model version.", schema))...)
	d := newDiscoverer(cat, newStore(b, allow("alice", "deployment_rollout", "models:read"), allow("*", "model_search")), nil)
	args := json.RawMessage(`{"model":"acme/llama-3.1-8b","version":42,"region":"eu-west-1","replicas":3,"gpu":true,` +
		`"max_latency":250.5,"tags":["prod","eu","canary"],"description":"Nightly rollout of the tuned model.",` +
		`"env":{"LOG_LEVEL":"info","BATCH":"8"},"strategy":"rolling"}`)
	call := discovery.Call{Tool: "deployment_rollout", Arguments: args}
	ctx := context.Background()
	if err := d.AuthorizeCall(ctx, alice, call); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	stop := cputime.Report(b)
	for b.Loop() {
		if err := d.AuthorizeCall(ctx, alice, call); err != nil {
			b.Fatal(err)
		}
	}
	stop()
}

// BenchmarkAuthorizeCallReader measures a granted call (no arguments) through Readers
// other than *grants.Memory, which the Discoverer reads under Options.GrantTimeout in
// a goroutine of their own: "shared" answers the same Snapshot while nothing changes
// (as the stores do), "fresh" a new Snapshot of the same 200 rows at every read, which
// the content-keyed cache still serves.
func BenchmarkAuthorizeCallReader(b *testing.B) {
	cat := newCatalog(b, sampleTools()...)
	store := newStore(b, allow("alice", "model_search", "models:read"))
	rows := make([]grants.Row, 0, 200)
	for i := range 199 {
		rows = append(rows, grants.Row{Principal: "*", Tool: fmt.Sprintf("other_%03d", i), Effect: grants.Allow, Revision: int64(i + 1)})
	}
	rows = append(rows, grants.Row{Principal: "alice", Tool: "model_search", Effect: grants.Allow, Revision: 300})
	readers := []struct {
		name string
		r    grants.Reader
	}{
		{"shared", &grantstest.CountingReader{Base: store}},
		{"fresh", readerFunc(func(context.Context, string) (*grants.Snapshot, error) {
			return &grants.Snapshot{Revision: 1, Rows: rows}, nil
		})},
	}
	call := discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)}
	ctx := context.Background()
	for _, rc := range readers {
		b.Run(rc.name, func(b *testing.B) {
			d := newDiscoverer(cat, rc.r, nil)
			if err := d.AuthorizeCall(ctx, alice, call); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := d.AuthorizeCall(ctx, alice, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
