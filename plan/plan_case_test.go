package plan_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/plan"
)

// with replaces f's catalog by raws, each granted to f.p, and returns f.
func (f *planFixture) with(t testing.TB, raws []json.RawMessage) *planFixture {
	t.Helper()
	cat, err := discovery.NewCatalog(raws, nil)
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	for _, name := range cat.Names() {
		if _, err := f.store.Put(context.Background(), grants.Row{Principal: f.p.ID, Tool: name, Scopes: []string{"tools:use"}, Effect: grants.Allow}); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	f.cat = cat
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: f.store})
	return f
}

// The Planner reads _meta, description, title and annotations by their exact names: a
// lone _Meta opt-out keeps no tool eager, and a lone Description, Title or annotations
// Title never reaches the catalog segment (SPEC PLAN-3, CONTRACT-1).
func TestPlanReadsMembersExactly(t *testing.T) {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"a_meta","description":"Exact.","inputSchema":{"type":"object"},"_Meta":{"deferredtools/eager":true}}`),
		json.RawMessage(`{"name":"b_desc","Description":"Injected description.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"c_title","Title":"Injected title.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"d_ann","inputSchema":{"type":"object"},"annotations":{"Title":"Injected annotation."}}`),
		json.RawMessage(`{"name":"e_eager","description":"Kept.","inputSchema":{"type":"object"},"_meta":{"deferredtools/eager":true}}`),
		json.RawMessage(`{"name":"f_ann","inputSchema":{"type":"object"},"annotations":{"title":"Annotation title."}}`),
	}
	f := newPlanFixture(t, nil, nil, discovery.Visibility{}, nil).with(t, tools)
	tp, err := plan.New(f.d, &plan.Policy{MinTools: 1}).Plan(context.Background(), f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a_meta", "b_desc", "c_title", "d_ann", "f_ann"}; !slices.Equal(tp.Deferred, want) {
		t.Errorf("Plan deferred %v, want %v: only an exact _meta opts a tool out", tp.Deferred, want)
	}
	lines := strings.SplitAfter(tp.Catalog, "\n")
	want := []string{"- a_meta: Exact.\n", "- b_desc\n", "- c_title\n", "- d_ann\n", "- f_ann: Annotation title.\n", ""}
	if len(lines) < 1 || !slices.Equal(lines[1:], want) {
		t.Errorf("Plan catalog lines = %q, want %q", lines[1:], want)
	}
}

// BenchmarkPlanFirst measures a Planner's first plan over 1,000 authorised tools, which
// derives the data of every definition (its cache starts empty; native: every one
// deferred).
func BenchmarkPlanFirst(b *testing.B) {
	tools := genTools(rand.New(rand.NewPCG(1, 2)), 1000)
	f := newPlanFixture(b, tools, nil, discovery.Visibility{}, nil)
	m := plan.ModelCapabilities{NativeToolSearch: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := plan.New(f.d, nil).Plan(context.Background(), f.p, m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanNewSet measures a plan for an authorised set the Planner has not seen,
// over 1,000 definitions it has derived before (a grant change, another principal):
// the cache finds each tool's data by its digest.
func BenchmarkPlanNewSet(b *testing.B) {
	tools := genTools(rand.New(rand.NewPCG(1, 2)), 1000)
	f := newPlanFixture(b, tools, nil, discovery.Visibility{}, nil)
	pl := plan.New(f.d, nil)
	m := plan.ModelCapabilities{NativeToolSearch: true}
	if _, err := pl.Plan(context.Background(), f.p, m); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		plan.ForgetLists(pl)
		if _, err := pl.Plan(context.Background(), f.p, m); err != nil {
			b.Fatal(err)
		}
	}
}

// A native plan never gives a tool a "defer_loading" twin: a tool holding a member that
// differs from it only by case is sent as it is, not deferred (SPEC PLAN-1, CONTRACT-1).
func TestPlanNoDeferLoadingTwin(t *testing.T) {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"a_plain","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"b_twin","inputSchema":{"type":"object"},"Defer_Loading":false}`),
	}
	f := newPlanFixture(t, nil, nil, discovery.Visibility{}, nil).with(t, tools)
	tp, err := plan.New(f.d, &plan.Policy{MinTools: 1}).Plan(context.Background(), f.p, plan.ModelCapabilities{NativeToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tp.Deferred, []string{"a_plain"}) {
		t.Errorf("native Plan deferred %v, want [a_plain]", tp.Deferred)
	}
	want := []string{`{"defer_loading":true,"inputSchema":{"type":"object"},"name":"a_plain"}`, `{"Defer_Loading":false,"inputSchema":{"type":"object"},"name":"b_twin"}`}
	for i, def := range tp.Tools {
		if i >= len(want) || string(def) != want[i] {
			t.Errorf("native Plan tool %d = %s, want %s", i, def, want[min(i, len(want)-1)])
		}
	}
}
