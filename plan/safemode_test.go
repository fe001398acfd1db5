package plan_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/plan"
	"github.com/deferredtools/deferredtools/safemode"
)

// safePlanner is a Planner over demo-like tools (even ones read-only) granted to alice,
// with the Discoverer's safe mode set to safe.
func safePlanner(t testing.TB, safe safemode.Options) (*plan.Planner, grants.Principal) {
	t.Helper()
	tools := []planTool{
		{Name: "a_get", Description: "Get an item.", ReadOnly: true},
		{Name: "b_delete", Description: "Delete an item."},
		{Name: "c_meta", Description: "Manage items per action."},
		{Name: "d_list", Description: "List items.", ReadOnly: true},
		{Name: "e_bare"},
	}
	cat, err := discovery.NewCatalog(rawsOf(tools), nil)
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	p := grants.Principal{ID: "alice"}
	for _, tl := range tools {
		if _, err := store.Put(context.Background(), grants.Row{Principal: "alice", Tool: tl.Name, Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, SafeMode: safe})
	return plan.New(d, &plan.Policy{MinTools: 1}), p
}

// SPEC PLAN-1: in safe mode a client-side catalog marks the tools whose calls are held
// for confirmation (mutating, not exempt) with SafeModeMark and says what the mark
// means in its header; read-only and exempt tools are unmarked. Without safe mode the
// catalog is what it was, and a native plan is the same with or without it.
func TestPlanMarksSafeModeTools(t *testing.T) {
	ctx := context.Background()
	header := "More tools are available than are loaded. Call search_tools with a few words describing the task to get the full definitions of the matching tools:\n"
	note := "Tools marked [confirm] do not run at first: they answer a preview, and run when the same call is made again with the confirmation it hands out.\n"
	pl, p := safePlanner(t, safemode.Options{Enabled: true, Exempt: []string{"c_meta"}})
	tp, err := pl.Plan(ctx, p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	want := header + note +
		"- a_get: Get an item.\n" +
		"- b_delete [confirm]: Delete an item.\n" +
		"- c_meta: Manage items per action.\n" +
		"- d_list: List items.\n" +
		"- e_bare [confirm]\n"
	if tp.Catalog != want {
		t.Errorf("safe-mode Catalog =\n%s\nwant\n%s", tp.Catalog, want)
	}
	if tp.CatalogBytes != len(want) {
		t.Errorf("CatalogBytes = %d, want %d", tp.CatalogBytes, len(want))
	}
	// Loaded, the marked tools go in full: no marked line is left, so no note.
	tp, err = pl.Plan(ctx, p, plan.ModelCapabilities{}, "b_delete", "e_bare")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(tp.Catalog, "[confirm]") {
		t.Errorf("catalog without marked tools =\n%s\nwant no mark and no note", tp.Catalog)
	}

	off, p := safePlanner(t, safemode.Options{})
	tpOff, err := off.Plan(ctx, p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	if wantOff := strings.ReplaceAll(strings.Replace(want, note, "", 1), plan.SafeModeMark, ""); tpOff.Catalog != wantOff {
		t.Errorf("Catalog without safe mode =\n%s\nwant\n%s", tpOff.Catalog, wantOff)
	}
	native, err := pl.Plan(ctx, p, plan.ModelCapabilities{NativeToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	nativeOff, err := off.Plan(ctx, p, plan.ModelCapabilities{NativeToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(native.Tools)
	b, _ := json.Marshal(nativeOff.Tools)
	if string(a) != string(b) || native.Catalog != "" {
		t.Errorf("native plans differ with safe mode:\n%s\n%s", a, b)
	}
}
