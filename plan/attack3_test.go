package plan_test

// Attack round 3 on plans from a harness's view (public API only): SPEC PLAN-1, PLAN-2,
// PLAN-4.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/plan"
	"github.com/deferredtools/deferredtools/safemode"
)

// SPEC PLAN-2: the mode is chosen per request: one Planner serving two harness loops at
// once, one talking to a native-search model and one to a plain model, gives each
// request the mode of its own model, every time, however the requests interleave; and
// a swap in one loop moves its very next request. Breaks when a Planner keeps the last
// model's mode (or its rendering) anywhere shared.
func TestAttack3ModelSwapConcurrent(t *testing.T) {
	f := attackFixture(t, 40)
	pl := plan.New(f.d, nil)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 2 {
		wg.Go(func() {
			for i := range 300 {
				native := (i+g)%2 == 0 // each loop swaps its model on every request
				tp, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: native})
				if err != nil {
					errs <- err.Error()
					return
				}
				if (tp.Mode == plan.Native) != native || (native && tp.Catalog != "") || (!native && tp.Catalog == "") {
					errs <- fmt.Sprintf("loop %d request %d: native %v, got mode %v with a catalog of %d bytes", g, i, native, tp.Mode, len(tp.Catalog))
					return
				}
				caps := plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: native}
				want := plan.PathClientSide
				if native {
					want = plan.PathAnthropicServer
				}
				if r, err := pl.Request(ctx, f.p, caps); err != nil || r.Path != want {
					errs <- fmt.Sprintf("loop %d request %d: Request(%+v) = %v, %v, want %v", g, i, caps, r, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// SPEC PLAN-2 with the grants: a plan is made from the grants of its own request: a tool
// revoked between two requests is gone from the very next plan (no deferred name, no
// catalog line, no definition), whichever model; granted again, it is back.
func TestAttack3RevocationMovesTheNextPlan(t *testing.T) {
	f := attackFixture(t, 40)
	pl := plan.New(f.d, nil)
	ctx := context.Background()
	const victim = "tool_00007"
	holds := func(native bool) bool {
		tp, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: native})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tp.Tools)
		return strings.Contains(string(b), `"`+victim+`"`) || strings.Contains(tp.Catalog, "- "+victim+":")
	}
	for _, native := range []bool{false, true} {
		if !holds(native) {
			t.Fatalf("native %v: %s missing before the revocation", native, victim)
		}
	}
	f.store.Put(ctx, grants.Row{Principal: f.p.ID, Tool: victim, Effect: grants.Deny})
	for _, native := range []bool{true, false} {
		if holds(native) {
			t.Errorf("native %v: %s still planned right after its revocation", native, victim)
		}
	}
	f.store.Put(ctx, grants.Row{Principal: f.p.ID, Tool: victim, Effect: grants.Allow})
	if !holds(false) {
		t.Errorf("%s not planned once granted again", victim)
	}
}

// SPEC PLAN-2 ("no plan ever defers a tool without a discovery path"): tools whose names
// ranking cannot read (stop words, one letter, digits and dots, "who_am_i", "id",
// "to_do") are deferred on a client-side catalog; each must be found by the discovery
// the catalog points to, queried with the name its catalog line shows. Failed before
// discover put an authorised tool whose name is the whole query first: "do_it", "the",
// "x", "a_an_of", "t_1-2.3" and, among realistic names, "who_am_i", "what_is", "id",
// "to_do" and "how_to" were deferred and never found (their words are all stop words
// or too short for the index).
func TestAttack3EveryDeferredToolIsDiscoverable(t *testing.T) {
	tools := []planTool{
		{Name: "the", Description: "The."},
		{Name: "a_an_of", Description: ""},
		{Name: "x", Description: "x"},
		{Name: "v2.1", Description: "2.1"},
		{Name: "t_1-2.3", Description: "It is what it is."},
		{Name: "do_it", Description: "Do it."},
		{Name: "MCP_Tool", Description: "Über-Werkzeug für Straßen."},
		{Name: "who_am_i", Description: "Who am I?"},
		{Name: "id", Description: "ID."},
		{Name: "to_do", Description: ""},
	}
	for i := range 12 {
		tools = append(tools, planTool{Name: fmt.Sprintf("filler_%02d", i), Description: fmt.Sprintf("Manage report %d of the ledger.", i)})
	}
	f := newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
	pl := plan.New(f.d, nil)
	tp, err := pl.Plan(context.Background(), f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Deferred) != len(tools) {
		t.Fatalf("%d deferred of %d: the attack needs them all deferred", len(tp.Deferred), len(tools))
	}
	for _, line := range strings.Split(strings.TrimSuffix(tp.Catalog, "\n"), "\n")[1:] {
		entry, ok := strings.CutPrefix(line, "- ")
		if !ok {
			t.Fatalf("catalog line %q", line)
		}
		name, _, _ := strings.Cut(entry, ":")
		for _, q := range []string{name, " " + name + " "} {
			if !discoverable(t, f.d, f.p, q, name) {
				t.Errorf("%s is deferred but discovering %q does not find it", name, q)
			}
		}
	}
}

// SPEC PLAN-4, PLAN-1: a native plan, and every rendering on a provider's own search
// (Anthropic server, OpenAI hosted), never carries client-side search wording: not the
// catalog's header ("More tools are available", "Call <tool>"), not the discovery
// tool (its name, set here to an unusual one, or its description), not safe mode's
// catalog note, and no system text at all; the client-side plan of the same request
// carries them (the grep can see them). Safe mode is on, so a held tool's mark would
// show too. Breaks when a native rendering reuses the client-side catalog or adds the
// discovery tool.
func TestAttack3NativePlanHasNoSearchWording(t *testing.T) {
	tools := make([]planTool, 30)
	for i := range tools {
		tools[i] = planTool{Name: fmt.Sprintf("tool_%02d", i), Description: fmt.Sprintf("Change item %d of the ledger.", i), ReadOnly: i%2 == 0}
	}
	f := newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: f.cat, Grants: f.store, SafeMode: safemode.Options{Enabled: true}})
	const toolName = "qq_find_tools_zz"
	pl := plan.New(f.d, &plan.Policy{ToolName: toolName})
	ctx := context.Background()
	toolDesc := descriptionOf(t, discovery.ToolDefinition(toolName))
	wording := []string{"More tools are available", "Call " + toolName, toolName, toolDesc, "[confirm]", "do not run at first"}

	client, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	clientBytes, _ := json.Marshal(client)
	for _, w := range wording[:4] {
		if !strings.Contains(string(clientBytes), w) {
			t.Fatalf("the client-side plan lacks %q: the grep would see nothing", w)
		}
	}
	native, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(native.Deferred) == 0 || native.Catalog != "" {
		t.Fatalf("native plan: %d deferred, catalog %q", len(native.Deferred), native.Catalog)
	}
	grep := func(what string, b []byte) {
		t.Helper()
		for _, w := range wording {
			if strings.Contains(string(b), w) {
				t.Errorf("%s carries %q", what, w)
			}
		}
	}
	b, _ := json.Marshal(native)
	grep("the native plan", b)
	for _, caps := range []plan.ModelCapabilities{
		{Provider: plan.ProviderAnthropic, NativeToolSearch: true},
		{Provider: plan.ProviderOpenAI, NativeToolSearch: true},
	} {
		r, err := pl.Request(ctx, f.p, caps)
		if err != nil {
			t.Fatal(err)
		}
		if r.Path != plan.PathAnthropicServer && r.Path != plan.PathOpenAIHosted {
			t.Fatalf("%+v: path %v", caps, r.Path)
		}
		if r.System != "" {
			t.Errorf("%v: system text %q", r.Path, r.System)
		}
		tb, _ := json.Marshal(r.Tools)
		grep(r.Path.String()+" tools", tb)
		grep(r.Path.String()+" system", []byte(r.System))
	}
}

func descriptionOf(t *testing.T, def json.RawMessage) string {
	t.Helper()
	var v struct{ Description string }
	if err := json.Unmarshal(def, &v); err != nil || v.Description == "" {
		t.Fatalf("discovery tool definition: %v", err)
	}
	return v.Description
}
