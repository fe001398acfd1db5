package discovery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// BenchmarkObserve measures a warm discover request over a generated 10,000-tool
// catalog (as BenchmarkDiscover's, 4,096 granted), by Discover and by AppendJSONRPC,
// through two Discoverers over the same catalog and store: without an observer, and
// with one that sums the tools served.
func BenchmarkObserve(b *testing.B) {
	const n = 10000
	r := rand.New(rand.NewPCG(2026, n))
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
	for _, i := range r.Perm(len(names))[:grants.MaxRows] {
		if _, err := store.Put(context.Background(), allow("alice", names[i])); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	msgs := make([][]byte, len(benchQueries))
	for i, q := range benchQueries {
		msgs[i] = discoverMsg(fmt.Sprint(i+1), q, 16, "")
	}
	served := 0
	for _, c := range []struct {
		name    string
		observe func(context.Context, observe.Event)
	}{{"unset", nil}, {"set", func(_ context.Context, e observe.Event) { served += e.Tools }}} {
		d := newDiscoverer(cat, store, func(o *discovery.Options) { o.Observe = c.observe })
		for _, q := range benchQueries { // warm the caches, check the path
			if res, err := d.Discover(ctx, alice, discovery.Request{Query: q, Limit: 16}); err != nil || len(res.Tools) == 0 {
				b.Fatalf("query %q: %v, %v", q, res, err)
			}
		}
		b.Run("op=discover/observer="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := d.Discover(ctx, alice, discovery.Request{Query: benchQueries[i%len(benchQueries)], Limit: 16}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run("op=rpc/observer="+c.name, func(b *testing.B) {
			buf := make([]byte, 0, discovery.MaxResponseBytes)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, status := d.AppendJSONRPC(ctx, buf[:0], alice, msgs[i%len(msgs)]); status != http.StatusOK {
					b.Fatal("not a page")
				}
				i++
			}
		})
	}
}

// BenchmarkObserveHook measures the hook alone: AuthorizeTool with the switch off
// does nothing else. Unset, the hook is a nil check; set, a span, its context and the
// observer's call.
func BenchmarkObserveHook(b *testing.B) {
	cat := newCatalog(b, sampleTools()...)
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		observe func(context.Context, observe.Event)
	}{{"unset", nil}, {"set", func(context.Context, observe.Event) {}}} {
		d := newDiscoverer(cat, nil, func(o *discovery.Options) { o.Enabled = false; o.Observe = c.observe })
		b.Run("observer="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := d.AuthorizeTool(ctx, alice, "model_search"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
