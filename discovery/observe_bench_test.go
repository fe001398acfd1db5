package discovery_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/observe"
)

// BenchmarkObserve measures a warm discover request over a generated 10,000-tool
// catalog (BenchmarkDiscover's own, 4,096 granted), by Discover and by AppendJSONRPC,
// through two Discoverers over the same catalog and store: without an observer, and
// with one that sums the tools served.
func BenchmarkObserve(b *testing.B) {
	f := benchCatalog(b, 10000) // its catalog and store, another Discoverer over them
	cat, store := f.cat, f.store
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
