package plan_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/metatool"
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

// Meta tools for TestPlanMarksMetaToolsByServedActions: issue is mutating by its own
// hint, its action list read-only by its own; repo is read-only by its own hint, its
// action archive mutating by its own (in metaPlanDecls).
const (
	metaIssue = `{"name":"issue","description":"Create or list issues.","annotations":{"readOnlyHint":false},` +
		`"inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["create","list"]}},"required":["action"]}}`
	metaRepo = `{"name":"repo","description":"Read or archive a repository.","annotations":{"readOnlyHint":true},` +
		`"inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["archive","get"]}},"required":["action"]}}`
)

func metaPlanDecls(archiveReadOnly bool) map[string]metatool.Tool {
	yes, archive := true, archiveReadOnly
	return map[string]metatool.Tool{
		"issue": {Actions: []metatool.Action{{Name: "create"}, {Name: "list", ReadOnlyHint: &yes}}},
		"repo":  {Actions: []metatool.Action{{Name: "archive", ReadOnlyHint: &archive}, {Name: "get"}}},
	}
}

// SPEC PLAN-1: a client-side catalog marks a meta tool [confirm] exactly when safe mode
// holds a call of an action the principal is served (AuthorizeCall judges each action
// by its own hints, else the tool's), not by the tool's own hint: alice, served the
// read-only actions alone, sees neither marked; bob, served all, sees both. The mark
// follows the catalog version's declarations even where the definitions' bytes stay
// the same (the Planner caches by content).
func TestPlanMarksMetaToolsByServedActions(t *testing.T) {
	ctx := context.Background()
	newCat := func(archiveReadOnly bool) *discovery.Catalog {
		cat, err := discovery.NewCatalog([]json.RawMessage{json.RawMessage(metaIssue), json.RawMessage(metaRepo)},
			&discovery.CatalogOptions{MetaTools: metaPlanDecls(archiveReadOnly)})
		if err != nil {
			t.Fatal(err)
		}
		return cat
	}
	store := grants.NewMemory()
	for _, r := range []grants.Row{
		{Principal: "alice", Tool: "issue.list", Effect: grants.Allow},
		{Principal: "alice", Tool: "repo.get", Effect: grants.Allow},
		{Principal: "bob", Tool: "issue.create", Effect: grants.Allow},
		{Principal: "bob", Tool: "issue.list", Effect: grants.Allow},
		{Principal: "bob", Tool: "repo.archive", Effect: grants.Allow},
		{Principal: "bob", Tool: "repo.get", Effect: grants.Allow},
	} {
		if _, err := store.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	var src discovery.SwappableCatalog
	src.Store(newCat(false))
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: &src, Grants: store, SafeMode: safemode.Options{Enabled: true}})
	pl := plan.New(d, &plan.Policy{MinTools: 1})
	lines := func(who string) (issue, repo string) {
		t.Helper()
		tp, err := pl.Plan(ctx, grants.Principal{ID: who}, plan.ModelCapabilities{})
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(tp.Catalog) {
			switch {
			case strings.HasPrefix(line, "- issue"):
				issue = line
			case strings.HasPrefix(line, "- repo"):
				repo = line
			}
		}
		return issue, repo
	}
	for _, c := range []struct {
		who                 string
		issueHeld, repoHeld bool
	}{
		{"alice", false, false},
		{"bob", true, true},
	} {
		issue, repo := lines(c.who)
		if got := strings.Contains(issue, plan.SafeModeMark); got != c.issueHeld {
			t.Errorf("%s: issue line %q marked %v, want %v", c.who, issue, got, c.issueHeld)
		}
		if got := strings.Contains(repo, plan.SafeModeMark); got != c.repoHeld {
			t.Errorf("%s: repo line %q marked %v, want %v", c.who, repo, got, c.repoHeld)
		}
	}
	// The next version declares archive read-only: the same bytes, bob's repo unmarked.
	src.Store(newCat(true))
	if _, repo := lines("bob"); strings.Contains(repo, plan.SafeModeMark) {
		t.Errorf("bob, archive read-only: repo line %q marked, want not", repo)
	}
}
