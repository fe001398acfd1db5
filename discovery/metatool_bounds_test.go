package discovery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/metatool"
)

// The cache stays within its budget when authorised sets hold narrowed meta tool
// definitions: 1,000 principals, each holding a random subset of 40 meta tools' 8
// actions (one scope each), so nearly every set carries its own narrowed definitions.
// setBytes counts them: what the Discoverer keeps alive is within what it counted.
func TestCacheBoundedMetaTools(t *testing.T) {
	if testing.Short() {
		t.Skip("serves 1,000 principals; skipped in -short")
	}
	const (
		principals = 1000
		metas      = 40
		budget     = 2 << 20
		slack      = 512 << 10
	)
	ctx := context.Background()
	actions := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"}
	var tools []json.RawMessage
	decls := map[string]metatool.Tool{}
	store := grants.NewMemory()
	for j := range metas {
		name := fmt.Sprintf("meta_%02d", j)
		tools = append(tools, toolDefSchema(name, strings.Repeat("A meta tool of the bounds catalog. ", 20), map[string]any{
			"type": "object", "required": []any{"action"},
			"properties": map[string]any{"action": map[string]any{"type": "string", "enum": actions}, "x": map[string]any{"type": "string", "description": strings.Repeat("padding ", 60)}},
		}))
		var m metatool.Tool
		for k, a := range actions {
			m.Actions = append(m.Actions, metatool.Action{Name: a})
			store.Put(ctx, allow(grants.AnyPrincipal, name+"."+a, fmt.Sprintf("s%d", k)))
		}
		decls[name] = m
	}
	cat, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{MetaTools: decls})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 18))
	d := newDiscoverer(cat, store, func(o *discovery.Options) { o.CacheBytes = budget })
	for i := range principals {
		p := grants.Principal{ID: fmt.Sprintf("p%05d", i), Scopes: []string{"s0"}}
		for k := 1; k < len(actions); k++ {
			if r.IntN(2) == 0 {
				p.Scopes = append(p.Scopes, fmt.Sprintf("s%d", k))
			}
		}
		if err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: "meta_07", Arguments: json.RawMessage(`{"action":"a0"}`)}); err != nil {
			t.Fatalf("AuthorizeCall(%s): %v", p.ID, err)
		}
	}
	store.Put(ctx, allow(grants.AnyPrincipal, "meta_00.a0")) // the store keeps no snapshot now
	with := heapAfterGC()
	_, sets, counted, rotations := discovery.CacheStats(d)
	runtime.KeepAlive(d)
	d = nil
	without := heapAfterGC()
	runtime.KeepAlive(cat)
	runtime.KeepAlive(store)
	kept := with - without
	t.Logf("kept %d bytes (%d sets, %d counted, %d rotations)", kept, sets, counted, rotations)
	if rotations == 0 {
		t.Errorf("the cache never dropped a generation: the test does not reach the budget")
	}
	if counted > budget || kept > budget+slack || kept > counted+slack {
		t.Errorf("counted %d, kept %d bytes alive; budget %d + %d", counted, kept, budget, slack)
	}
}
