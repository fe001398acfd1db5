package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/plan"
)

// The cache is keyed by content: principals with different authorised sets share the
// data of the tools they have in common, and a new catalog version holding the same
// definitions derives nothing again (SPEC PLAN-1: the same inputs give the same plan).
func TestPlanCacheKeyedByContent(t *testing.T) {
	ctx := context.Background()
	tools := demoTools()
	f := newPlanFixture(t, tools, func(n string) bool { return n != tools[0].Name }, discovery.Visibility{}, nil)
	bob := grants.Principal{ID: "bob", Scopes: []string{"tools:use"}}
	for _, tl := range tools[:6] {
		f.store.Put(ctx, grants.Row{Principal: bob.ID, Tool: tl.Name, Scopes: []string{"tools:use"}, Effect: grants.Allow})
	}
	var src discovery.SwappableCatalog
	src.Store(f.cat)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: &src, Grants: f.store})
	pl := plan.New(d, &plan.Policy{MinTools: 1})
	first, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pl.Plan(ctx, bob, plan.ModelCapabilities{NativeToolSearch: true}); err != nil {
		t.Fatal(err)
	}
	lists, derived, bytes := plan.CacheStats(pl)
	if lists != 2 || derived != len(tools) || bytes <= 0 {
		t.Fatalf("after two sets over %d tools: %d lists, %d tools, %d bytes; want 2 lists, %d tools", len(tools), lists, derived, bytes, len(tools))
	}

	again, err := discovery.NewCatalog(rawsOf(tools), nil) // a new version, the same bytes
	if err != nil {
		t.Fatal(err)
	}
	src.Store(again)
	second, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	if l, d, b := plan.CacheStats(pl); l != lists || d != derived || b != bytes {
		t.Errorf("an identical catalog version grew the cache to %d lists, %d tools, %d bytes; want %d, %d, %d", l, d, b, lists, derived, bytes)
	}
	if string(joinArray(second.Tools)) != string(joinArray(first.Tools)) {
		t.Errorf("the same definitions planned differently in a new catalog version")
	}

	changed := append([]planTool(nil), tools...)
	changed[5].Description = "Manage something else entirely."
	next, err := discovery.NewCatalog(rawsOf(changed), nil)
	if err != nil {
		t.Fatal(err)
	}
	src.Store(next)
	third, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	if l, d, _ := plan.CacheStats(pl); l != lists+1 || d != derived+1 {
		t.Errorf("one changed tool: %d lists, %d tools; want %d, %d", l, d, lists+1, derived+1)
	}
	if want := "- " + changed[5].Name + ": Manage something else entirely.\n"; !strings.Contains(third.Catalog, "\n"+want) {
		t.Errorf("the changed tool's catalog line is stale:\n%s", third.Catalog)
	}
}

// The cache stays within its byte bound however many distinct authorised sets it sees,
// and plans made after it drops its content are the same as before.
func TestPlanCacheBounded(t *testing.T) {
	ctx := context.Background()
	tools := demoTools()
	f := newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
	pl := plan.New(f.d, &plan.Policy{MinTools: 1})
	first, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, one := plan.CacheStats(pl)
	budget := one + 600 // room for a few more lists sharing these tools, not for all
	plan.SetCacheBudget(pl, budget)
	for i := range len(tools) { // principals granted every tool but one: distinct sets
		p := grants.Principal{ID: "p" + string(rune('a'+i)), Scopes: []string{"tools:use"}}
		for j, tl := range tools {
			effect := grants.Allow
			if j == i {
				effect = grants.Deny
			}
			f.store.Put(ctx, grants.Row{Principal: p.ID, Tool: tl.Name, Scopes: []string{"tools:use"}, Effect: effect})
		}
		if _, err := pl.Plan(ctx, p, plan.ModelCapabilities{NativeToolSearch: true}); err != nil {
			t.Fatal(err)
		}
		if lists, _, bytes := plan.CacheStats(pl); bytes > budget || lists < 1 {
			t.Fatalf("after %d sets the cache holds %d lists in %d bytes, want at most %d bytes", i+1, lists, bytes, budget)
		}
	}
	again, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Catalog != first.Catalog || string(joinArray(again.Tools)) != string(joinArray(first.Tools)) {
		t.Errorf("a plan made after the cache dropped its content differs")
	}

	plan.SetCacheBudget(pl, 1) // below any one list: the current list is still kept
	if _, err := pl.Plan(ctx, grants.Principal{ID: "pa", Scopes: []string{"tools:use"}}, plan.ModelCapabilities{}); err != nil {
		t.Fatal(err)
	}
	if lists, derived, _ := plan.CacheStats(pl); lists != 1 || derived != len(tools)-1 {
		t.Errorf("over the bound: %d lists, %d tools; want the current list alone (1, %d)", lists, derived, len(tools)-1)
	}
}
