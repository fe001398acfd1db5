package plan_test

// Attacks on the plan package from outside: hostile policies, catalogs and arguments
// against the promises of the package doc and SPEC PLAN-1..4.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/plan"
)

// attackFixture is an enabled Discoverer over n generated tools, all granted to alice.
func attackFixture(t testing.TB, n int) *planFixture {
	t.Helper()
	tools := make([]planTool, n)
	for i := range tools {
		tools[i] = planTool{Name: fmt.Sprintf("tool_%05d", i), Description: fmt.Sprintf("Manage item %d of the registry.", i)}
	}
	return newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
}

// allCaps are the model capabilities that lead Request to each path.
var allCaps = []plan.ModelCapabilities{
	{},
	{NativeToolSearch: true},
	{Provider: plan.ProviderAnthropic, NativeToolSearch: true},
	{Provider: plan.ProviderAnthropic, ClientToolSearch: true},
	{Provider: plan.ProviderOpenAI, NativeToolSearch: true},
	{Provider: plan.ProviderOpenAI, ClientToolSearch: true},
}

// SPEC PLAN-2, and Request's doc: "On the provider paths a tool whose name breaks the
// providers' rule (1 to 64 of a-z, A-Z, 0-9, "_", "-") is left out of the request ...
// since the provider would refuse the whole request." The host's own search tool is
// a tool of that request too: a Policy.ToolName with a '.' (the SPEC's method name,
// multillm.tools.discover, a natural choice) must never reach an Anthropic request,
// and what is deferred must keep a search path. Before the fix, PathAnthropicClient
// sent {"name":"multillm.tools.discover",...}, which Anthropic refuses.
func TestAttackSearchToolNameBreaksProviderRule(t *testing.T) {
	f := attackFixture(t, 12)
	ctx := context.Background()
	for _, name := range []string{"multillm.tools.discover", "search tools", "x" + string(make([]byte, 70))} {
		for _, search := range []plan.Search{plan.SearchAuto, plan.SearchClient} {
			pl := plan.New(f.d, &plan.Policy{ToolName: name, Search: search})
			for _, m := range allCaps {
				r, err := pl.Request(ctx, f.p, m)
				if err != nil {
					t.Fatalf("Request(%+v): %v", m, err)
				}
				if r.Path == plan.PathClientSide {
					continue // MCP names allow '.', and the client-side plan is the host's own
				}
				for _, v := range r.Tools {
					if a, ok := v.(plan.AnthropicTool); ok && !providerName.MatchString(a.Name) {
						t.Errorf("ToolName %q, search %v, %+v: path %v sends a tool named %q", name, search, m, r.Path, a.Name)
					}
				}
				if len(r.Deferred) > 0 && r.SearchTool == "" {
					t.Errorf("ToolName %q, %+v: path %v defers %d tools without a search tool", name, m, r.Path, len(r.Deferred))
				}
				if r.Path == plan.PathAnthropicClient {
					t.Errorf("ToolName %q, %+v: answered PathAnthropicClient, whose search tool the provider refuses", name, m)
				}
			}
		}
	}
}

// ErrNotRendered's doc: "CheckCall's answer for a nil Rendering or one without its
// plan". The search answers take the same Rendering: a nil one, or one without its
// plan, is refused with ErrNotRendered before any grant is read, never a nil pointer
// panic in the host's request handler. Before the fix both panicked once the page held
// a tool.
func TestAttackAnswerSearchWithoutRendering(t *testing.T) {
	f := attackFixture(t, 12)
	pl := plan.New(f.d, nil)
	ctx := context.Background()
	input := json.RawMessage(`{"query":"item registry"}`)
	for _, r := range []*plan.Rendering{nil, {}} {
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("AnswerAnthropicSearch(rendering %v) panicked: %v", r, v)
				}
			}()
			res, loaded, err := pl.AnswerAnthropicSearch(ctx, f.p, r, "toolu_1", input)
			if !errors.Is(err, plan.ErrNotRendered) || res != nil || loaded != nil {
				t.Errorf("AnswerAnthropicSearch(rendering %v) = %v, %v, %v; want ErrNotRendered", r, res, loaded, err)
			}
		}()
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("AnswerOpenAISearch(rendering %v) panicked: %v", r, v)
				}
			}()
			out, loaded, err := pl.AnswerOpenAISearch(ctx, f.p, r, "call_1", input)
			if !errors.Is(err, plan.ErrNotRendered) || out != nil || loaded != nil {
				t.Errorf("AnswerOpenAISearch(rendering %v) = %v, %v, %v; want ErrNotRendered", r, out, loaded, err)
			}
		}()
	}
}

// CheckCall's doc: it "decides what the host does with the model's call of tool in
// answer to request r". The model's call of the request's own search tool (the
// discovery tool on PathClientSide, the host's search tool on PathAnthropicClient) is
// such a call; it is no catalog tool, and must be answered CallRun (the host routes it
// to DiscoverTool), not refused as an ungranted tool, or a host that checks every call
// locks the model out of the only path to its deferred tools (SPEC PLAN-2).
func TestAttackCheckCallOfTheSearchTool(t *testing.T) {
	f := attackFixture(t, 12)
	ctx := context.Background()
	pl := plan.New(f.d, &plan.Policy{Search: plan.SearchClient})
	for _, m := range []plan.ModelCapabilities{{}, {Provider: plan.ProviderAnthropic, ClientToolSearch: true}} {
		r, err := pl.Request(ctx, f.p, m)
		if err != nil {
			t.Fatal(err)
		}
		if r.SearchTool == "" || len(r.Deferred) == 0 {
			t.Fatalf("%v: nothing deferred, search tool %q", r.Path, r.SearchTool)
		}
		cc, err := pl.CheckCall(ctx, f.p, r, r.SearchTool)
		if err != nil || cc.Action != plan.CallRun {
			t.Errorf("%v: CheckCall(%s) = %+v, %v; want CallRun", r.Path, r.SearchTool, cc, err)
		}
	}
}

// SPEC PLAN-1, PLAN-2 on a hostile catalog: a principal with no tool at all (an empty
// authorised set) gets, on every path, a request with nothing deferred, no search
// tool and no catalog text, never an error or a panic.
func TestAttackEmptyAuthorisedSet(t *testing.T) {
	f := attackFixture(t, 12)
	ctx := context.Background()
	nobody := grants.Principal{ID: "mallory"}
	pl := plan.New(f.d, &plan.Policy{MinTools: 1, MinBytes: 1})
	for _, m := range allCaps {
		tp, err := pl.Plan(ctx, nobody, m)
		if err != nil || len(tp.Tools) != 0 || len(tp.Deferred) != 0 || tp.Catalog != "" {
			t.Errorf("Plan(%+v) for no tools = %+v, %v; want an empty plan", m, tp, err)
		}
		r, err := pl.Request(ctx, nobody, m)
		if err != nil || len(r.Tools) != 0 || len(r.Deferred) != 0 || r.SearchTool != "" || r.System != "" {
			t.Errorf("Request(%+v) for no tools = %+v, %v; want an empty request", m, r, err)
		}
	}
}

// New's doc: "policy is copied". A host that edits its Policy's maps after New (say,
// reloading configuration into the same maps) changes no plan of the Planner made
// before. Breaks if New kept the caller's maps.
func TestAttackPolicyMapsCopied(t *testing.T) {
	f := attackFixture(t, 12)
	ctx := context.Background()
	pol := &plan.Policy{Tools: map[string]plan.Loading{"tool_00001": plan.LoadEager}, Servers: map[string]plan.Loading{"tool_0000": plan.LoadEager}}
	pl := plan.New(f.d, pol)
	before, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	pol.Tools["tool_00001"] = plan.LoadDeferred
	pol.Tools["tool_00011"] = plan.LoadEager
	delete(pol.Servers, "tool_0000")
	pol.Servers["tool_"] = plan.LoadEager
	pol.MinTools = -1
	after, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before.Deferred, after.Deferred) || before.Catalog != after.Catalog {
		t.Errorf("plan changed when the caller edited its Policy after New: deferred %v, then %v", before.Deferred, after.Deferred)
	}
	if slices.Contains(after.Deferred, "tool_00001") || !slices.Contains(after.Deferred, "tool_00011") {
		t.Errorf("deferred %v: want tool_00001 eager and tool_00011 deferred, as the policy given to New says", after.Deferred)
	}
}

// SPEC PLAN-1 on provider paths with a hostile OpenAINamespace: namespaces named like
// a tool sent in full, like the hosted search ("tool_search"), invalid for the
// provider, or empty, never make a request with two items of one name, and every
// deferred tool is still in the request once (in a namespace or top-level).
func TestAttackHostileNamespaces(t *testing.T) {
	f := attackFixture(t, 12)
	ctx := context.Background()
	hostile := func(tool string) (string, string) {
		switch tool[len(tool)-1] {
		case '0':
			return "tool_00001", "a tool's name" // tool_00001 is eager below
		case '2':
			return "tool_search", "the search tool's name"
		case '3':
			return "bad name.with dots", "invalid"
		case '4':
			return "", "none"
		case '5':
			return "tool_00006", "a deferred tool's name"
		}
		return "ns", "a namespace"
	}
	pl := plan.New(f.d, &plan.Policy{OpenAINamespace: hostile, Tools: map[string]plan.Loading{"tool_00001": plan.LoadEager}})
	for _, m := range allCaps[4:] {
		r, err := pl.Request(ctx, f.p, m)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]int{}
		members := map[string]int{}
		for _, v := range r.Tools {
			switch x := v.(type) {
			case plan.OpenAIFunction:
				names[x.Name]++
				members[x.Name]++
			case plan.OpenAINamespace:
				names[x.Name]++
				if !providerName.MatchString(x.Name) {
					t.Errorf("%v: namespace %q breaks the provider's name rule", r.Path, x.Name)
				}
				for _, fn := range x.Tools {
					members[fn.Name]++
				}
			}
		}
		for n, c := range names {
			if c > 1 {
				t.Errorf("%v: %d items named %q in one request", r.Path, c, n)
			}
		}
		for _, d := range r.Deferred {
			if members[d] != 1 {
				t.Errorf("%v: deferred tool %s appears %d times", r.Path, d, members[d])
			}
		}
	}
}

// Request's doc: loaded tools "are sent in full on every path": with 4,000 authorised
// tools all loaded (in reverse order), none is deferred. Its cost is
// BenchmarkRequestLoaded's: it walked loaded once per tool (16 million string
// comparisons: 20 ms against 2.2 ms with none loaded) before the fix.
func TestAttackManyLoadedTools(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 4,000-tool catalog")
	}
	f := attackFixture(t, 4000)
	m := plan.ModelCapabilities{Provider: plan.ProviderAnthropic, ClientToolSearch: true}
	r, err := plan.New(f.d, nil).Request(context.Background(), f.p, m, reversedNames(4000)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Deferred) != 0 {
		t.Errorf("%d tools deferred, want none: every tool is loaded", len(r.Deferred))
	}
}

// reversedNames is the names of attackFixture's n tools, last first: a walk of the
// loaded list finds the last tool it looks up last.
func reversedNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("tool_%05d", n-1-i)
	}
	return names
}

// BenchmarkRequestLoaded measures Request over 4,000 authorised tools with none and
// with all of them loaded: about the same cost, not a walk of loaded per tool.
//
//	go test -run '^$' -bench RequestLoaded -count 6 ./plan
func BenchmarkRequestLoaded(b *testing.B) {
	f := attackFixture(b, 4000)
	pl := plan.New(f.d, nil)
	m := plan.ModelCapabilities{Provider: plan.ProviderAnthropic, ClientToolSearch: true}
	for _, loaded := range []int{0, 4000} {
		names := reversedNames(4000)[:loaded]
		b.Run(fmt.Sprintf("loaded=%d", loaded), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pl.Request(context.Background(), f.p, m, names...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// AnswerAnthropicSearch's and AnswerOpenAISearch's doc: the page is the Discoverer's,
// "grants reread". A tool revoked after the request was rendered, still deferred in
// it, is never referenced nor returned: the model cannot load what it may no longer
// call. Breaks if the answers were built from the Rendering's deferred tools rather
// than a fresh page.
func TestAttackAnswersRereadGrants(t *testing.T) {
	f := attackFixture(t, 12)
	ctx := context.Background()
	pl := plan.New(f.d, &plan.Policy{Search: plan.SearchClient})
	const gone = "tool_00007"
	input := json.RawMessage(`{"query":"manage item 7 registry"}`)
	for _, m := range []plan.ModelCapabilities{
		{Provider: plan.ProviderAnthropic, ClientToolSearch: true},
		{Provider: plan.ProviderOpenAI, ClientToolSearch: true},
	} {
		if _, err := f.store.Put(ctx, grants.Row{Principal: f.p.ID, Tool: gone, Scopes: []string{"tools:use"}, Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
		r, err := pl.Request(ctx, f.p, m)
		if err != nil || !slices.Contains(r.Deferred, gone) {
			t.Fatalf("Request(%+v) = %v; want %s deferred", m, err, gone)
		}
		// Found while granted: the test can tell.
		var loaded []string
		if r.Path == plan.PathAnthropicClient {
			_, loaded, err = pl.AnswerAnthropicSearch(ctx, f.p, r, "toolu_1", input)
		} else {
			_, loaded, err = pl.AnswerOpenAISearch(ctx, f.p, r, "call_1", input)
		}
		if err != nil || !slices.Contains(loaded, gone) {
			t.Fatalf("%v while granted: loaded %v, %v; want %s", r.Path, loaded, err, gone)
		}
		if _, err := f.store.Put(ctx, grants.Row{Principal: f.p.ID, Tool: gone, Scopes: []string{"tools:use"}, Effect: grants.Deny}); err != nil {
			t.Fatal(err)
		}
		var text string
		if r.Path == plan.PathAnthropicClient {
			var res *plan.AnthropicToolResult
			res, loaded, err = pl.AnswerAnthropicSearch(ctx, f.p, r, "toolu_1", input)
			b, _ := json.Marshal(res)
			text = string(b)
		} else {
			var out *plan.OpenAIToolSearchOutput
			out, loaded, err = pl.AnswerOpenAISearch(ctx, f.p, r, "call_1", input)
			b, _ := json.Marshal(out)
			text = string(b)
		}
		if err != nil || slices.Contains(loaded, gone) || strings.Contains(text, gone) {
			t.Errorf("%v after the revocation: loaded %v, %v, answer %s; want %s nowhere", r.Path, loaded, err, text, gone)
		}
	}
}

// ToolPlan.Catalog's doc: "The same catalog version, policy, authorised set and
// loaded tools give the same bytes." The loaded tools are a set: the same names in
// another order, repeated, or among unknown and unauthorised names give the same plan
// and the same request. Breaks if loaded's order or repeats reached the output.
func TestAttackLoadedIsASet(t *testing.T) {
	f := newPlanFixture(t, demoTools(), func(name string) bool { return !strings.HasSuffix(name, "_11") }, discovery.Visibility{}, nil)
	ctx := context.Background()
	pl := plan.New(f.d, nil)
	names := slices.Sorted(maps.Keys(f.listed(t)))
	a, b := names[1], names[4]
	denied := demoTools()[11].Name
	sets := [][]string{
		{a, b},
		{b, a},
		{b, a, b, a, a},
		{"no_such_tool", b, denied, a, ""},
		{a, b, a, b, a, b, a, b, a, "no_such_tool"}, // past loadedSet's short scan: its map
	}
	var firstPlan *plan.ToolPlan
	var firstReq []byte
	for _, loaded := range sets {
		tp, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{}, loaded...)
		if err != nil {
			t.Fatal(err)
		}
		r, err := pl.Request(ctx, f.p, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, ClientToolSearch: true}, loaded...)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := json.Marshal(r.Tools)
		if firstPlan == nil {
			firstPlan, firstReq = tp, req
			if slices.Contains(tp.Deferred, a) || !slices.Contains(tp.Deferred, names[2]) {
				t.Fatalf("loaded %v: deferred %v; want %s sent in full and %s deferred", loaded, tp.Deferred, a, names[2])
			}
			continue
		}
		if tp.Catalog != firstPlan.Catalog || !slices.Equal(tp.Deferred, firstPlan.Deferred) || string(joinArray(tp.Tools)) != string(joinArray(firstPlan.Tools)) {
			t.Errorf("loaded %q: plan differs from loaded %q", loaded, sets[0])
		}
		if string(req) != string(firstReq) {
			t.Errorf("loaded %q: request differs from loaded %q", loaded, sets[0])
		}
	}
}
