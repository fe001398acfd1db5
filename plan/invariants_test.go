package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/plan"
)

var words = []string{"create", "delete", "list", "update", "model", "dataset", "deploy", "billing",
	"invoice", "metrics", "training", "job", "key", "project", "report", "alert", "label", "branch"}

// genTools returns n tools with distinct names under a few server prefixes.
func genTools(r *rand.Rand, n int) []planTool {
	prefixes := []string{"gh_", "gl_", "az_", "gh_actions_", ""}
	metas := []string{"", "", "", "true", "false", `"yes"`}
	tools := make([]planTool, n)
	for i := range tools {
		desc := make([]string, 3+r.IntN(12))
		for j := range desc {
			desc[j] = words[r.IntN(len(words))]
		}
		text := strings.Join(desc, " ")
		if r.IntN(4) == 0 {
			text += ".\nSecond line " + strings.Repeat("long ", r.IntN(40))
		}
		tools[i] = planTool{
			Name:        fmt.Sprintf("%s%s_%s_%03d", prefixes[r.IntN(len(prefixes))], words[r.IntN(len(words))], words[r.IntN(len(words))], i),
			Description: text,
			ReadOnly:    r.IntN(2) == 0,
			Meta:        metas[r.IntN(len(metas))],
		}
		if r.IntN(5) == 0 {
			tools[i].Description = ""
			tools[i].Title = "Title of " + words[r.IntN(len(words))]
		}
	}
	return tools
}

func genLoading(r *rand.Rand) plan.Loading {
	return []plan.Loading{plan.LoadUnset, plan.LoadEager, plan.LoadDeferred}[r.IntN(3)]
}

// genPolicy returns a random policy over tools.
func genPolicy(r *rand.Rand, tools []planTool) *plan.Policy {
	if r.IntN(6) == 0 {
		return nil
	}
	pol := &plan.Policy{
		MinTools:  []int{-1, 0, 1, 3, 8, 40}[r.IntN(6)],
		MinBytes:  []int{-1, 0, 1, 600, 4000}[r.IntN(5)],
		Default:   genLoading(r),
		LineBytes: []int{0, 5, 40}[r.IntN(3)],
	}
	if r.IntN(2) == 0 {
		pol.Servers = map[string]plan.Loading{}
		for _, p := range []string{"gh_", "gl_", "az_", "gh_actions_", "gh_a"} {
			if r.IntN(2) == 0 {
				pol.Servers[p] = genLoading(r)
			}
		}
	}
	if r.IntN(2) == 0 && len(tools) > 0 {
		pol.Tools = map[string]plan.Loading{}
		for range 1 + r.IntN(4) {
			pol.Tools[tools[r.IntN(len(tools))].Name] = genLoading(r)
		}
	}
	if r.IntN(8) == 0 && len(tools) > 0 {
		pol.ToolName = tools[r.IntN(len(tools))].Name // collides with a catalog tool
	}
	return pol
}

// wantLoading is the test's own reading of the policy rules (SPEC PLAN-3): tool rule,
// then the tool's _meta, then the longest server prefix, then the default.
func wantEager(pol *plan.Policy, tl planTool) bool {
	if pol == nil {
		pol = &plan.Policy{}
	}
	if l := pol.Tools[tl.Name]; l != plan.LoadUnset {
		return l == plan.LoadEager
	}
	switch tl.Meta {
	case "true":
		return true
	case "false":
		return false
	}
	best, bestLen := plan.LoadUnset, -1
	for p, l := range pol.Servers {
		if l != plan.LoadUnset && strings.HasPrefix(tl.Name, p) && len(p) > bestLen {
			best, bestLen = l, len(p)
		}
	}
	if best != plan.LoadUnset {
		return best == plan.LoadEager
	}
	return pol.Default == plan.LoadEager
}

// wantThreshold reports whether an authorised set of n tools and size bytes defers.
func wantThreshold(pol *plan.Policy, n, size int) bool {
	minTools, minBytes := plan.DefaultMinTools, plan.DefaultMinBytes
	if pol != nil && pol.MinTools != 0 {
		minTools = pol.MinTools
	}
	if pol != nil && pol.MinBytes != 0 {
		minBytes = pol.MinBytes
	}
	return minTools > 0 && n >= minTools || minBytes > 0 && size >= minBytes
}

// discoverable reports whether walking every page of Discover for query finds the tool
// name.
func discoverable(t testing.TB, d *discovery.Discoverer, p grants.Principal, query, name string) bool {
	t.Helper()
	req := discovery.Request{Query: query}
	for range 1000 {
		res, err := d.Discover(context.Background(), p, req)
		if err != nil {
			t.Fatalf("Discover(%q): %v", req.Query, err)
		}
		for _, def := range res.Tools {
			if toolName(t, def) == name {
				return true
			}
		}
		if res.NextCursor == "" {
			return false
		}
		req.Cursor = res.NextCursor
	}
	t.Fatalf("Discover(%q): more than 1000 pages", req.Query)
	return false
}

// catalogNames parses a client-side catalog segment: the header, then "- name..." lines.
func catalogNames(t testing.TB, catalog string) []string {
	t.Helper()
	if catalog == "" {
		return nil
	}
	lines := strings.SplitAfter(catalog, "\n")
	if last := lines[len(lines)-1]; last != "" {
		t.Fatalf("catalog does not end in a newline: %q", last)
	}
	var names []string
	for _, l := range lines[1 : len(lines)-1] {
		rest, ok := strings.CutPrefix(l, "- ")
		if !ok {
			t.Fatalf("catalog line %q does not start with \"- \"", l)
		}
		name, _, _ := strings.Cut(strings.TrimSuffix(rest, "\n"), ":")
		names = append(names, name)
	}
	return names
}

// checkPlan asserts the invariants every plan keeps (SPEC PLAN-1, PLAN-2, PLAN-3): its
// mode, deferred set, coverage, discovery path and sizes.
func checkPlan(t *testing.T, f *planFixture, pol *plan.Policy, tools []planTool, tp *plan.ToolPlan, native bool, loaded ...string) {
	t.Helper()
	listed := f.listed(t)
	toolName0 := discovery.DefaultToolName
	if pol != nil && pol.ToolName != "" {
		toolName0 = pol.ToolName
	}
	_, taken := f.cat.Tool(toolName0)

	wantMode := plan.ClientSide
	if native {
		wantMode = plan.Native
	}
	if tp.Mode != wantMode {
		t.Fatalf("Mode = %v, want %v", tp.Mode, wantMode)
	}

	checkDeferred(t, pol, tools, tp, listed, native, taken, loaded)
	hasDiscoveryTool := checkCoverage(t, tp, listed, native, toolName0)
	checkDiscoveryPath(t, f, tp, native, taken, hasDiscoveryTool, toolName0)
	checkSizes(t, f, tp)
}

// checkDeferred asserts that the deferred set follows the policy (SPEC PLAN-3).
func checkDeferred(t *testing.T, pol *plan.Policy, tools []planTool, tp *plan.ToolPlan, listed map[string]json.RawMessage, native, taken bool, loaded []string) {
	t.Helper()
	size := 0
	for _, def := range listed {
		size += len(def)
	}
	deferring := wantThreshold(pol, len(listed), size) && (native || !taken)
	var wantDeferred []string
	for _, tl := range tools {
		if _, ok := listed[tl.Name]; ok && deferring && !wantEager(pol, tl) && (native || !slices.Contains(loaded, tl.Name)) {
			wantDeferred = append(wantDeferred, tl.Name)
		}
	}
	slices.Sort(wantDeferred)
	if !slices.Equal(tp.Deferred, wantDeferred) {
		t.Fatalf("Deferred = %q, want %q (policy %+v, %d tools, %d bytes)", tp.Deferred, wantDeferred, pol, len(listed), size)
	}
}

// checkCoverage asserts that every authorised tool appears exactly once (SPEC PLAN-1),
// in full unless deferred, in name order, and reports whether the plan carries the
// discovery tool.
func checkCoverage(t *testing.T, tp *plan.ToolPlan, listed map[string]json.RawMessage, native bool, toolName0 string) (hasDiscoveryTool bool) {
	t.Helper()
	seen := map[string]int{}
	var names []string
	for _, def := range tp.Tools {
		name := toolName(t, def)
		names = append(names, name)
		if !native && name == toolName0 && bytes.Equal(def, discovery.ToolDefinition(toolName0)) {
			hasDiscoveryTool = true
			continue
		}
		want, ok := listed[name]
		if !ok {
			t.Fatalf("plan sends %q, which is not authorised", name)
		}
		seen[name]++
		checkSent(t, name, def, want, native, slices.Contains(tp.Deferred, name))
	}
	if !slices.IsSorted(names[:len(names)-btoi(hasDiscoveryTool)]) {
		t.Fatalf("plan tools not in name order: %q", names)
	}
	if !native {
		for _, n := range catalogNames(t, tp.Catalog) {
			seen[n]++
		}
		if got := catalogNames(t, tp.Catalog); !slices.Equal(got, tp.Deferred) {
			t.Fatalf("catalog names = %q, want the deferred %q", got, tp.Deferred)
		}
	}
	for name := range listed {
		if seen[name] != 1 {
			t.Fatalf("authorised %q appears %d times in the plan, want 1", name, seen[name])
		}
	}
	if len(seen) != len(listed) {
		t.Fatalf("plan covers %d tools, %d authorised", len(seen), len(listed))
	}
	return hasDiscoveryTool
}

// checkSent asserts how the plan sends authorised tool name: a native deferred tool is
// its definition with defer_loading: true, an eager one its definition byte for byte,
// and a client-side deferred one is not sent in full.
func checkSent(t *testing.T, name string, def, want json.RawMessage, native, deferred bool) {
	t.Helper()
	switch {
	case native && deferred:
		var got, base map[string]any
		json.Unmarshal(def, &got)
		json.Unmarshal(want, &base)
		if got["defer_loading"] != true {
			t.Fatalf("native deferred %q lacks defer_loading: true", name)
		}
		delete(got, "defer_loading")
		if fmt.Sprint(got) != fmt.Sprint(base) {
			t.Fatalf("native deferred %q differs from its definition beyond defer_loading", name)
		}
	case deferred:
		t.Fatalf("client-side plan sends deferred %q in full", name)
	default:
		if !bytes.Equal(def, want) {
			t.Fatalf("eager %q is not its tools/list definition", name)
		}
	}
}

// checkDiscoveryPath asserts that no tool is deferred without a discovery path (SPEC
// PLAN-2).
func checkDiscoveryPath(t *testing.T, f *planFixture, tp *plan.ToolPlan, native, taken, hasDiscoveryTool bool, toolName0 string) {
	t.Helper()
	if native {
		if tp.Catalog != "" || tp.CatalogBytes != 0 {
			t.Fatalf("native plan has a catalog segment")
		}
	} else if len(tp.Deferred) > 0 {
		if !hasDiscoveryTool || taken {
			t.Fatalf("client-side plan defers %d tools without the discovery tool", len(tp.Deferred))
		}
		if !strings.Contains(tp.Catalog, toolName0) {
			t.Fatalf("catalog does not name the discovery tool %q", toolName0)
		}
		for _, name := range tp.Deferred {
			if !discoverable(t, f.d, f.p, strings.ReplaceAll(name, "_", " "), name) {
				t.Fatalf("deferred %q is not discoverable by its name", name)
			}
		}
	} else if hasDiscoveryTool || tp.Catalog != "" {
		t.Fatalf("client-side plan that defers nothing carries the discovery tool or a catalog")
	}
}

// checkSizes asserts the sizes and the contract digest a plan reports.
func checkSizes(t *testing.T, f *planFixture, tp *plan.ToolPlan) {
	t.Helper()
	if got := len(joinArray(tp.Tools)); tp.ToolsBytes != got {
		t.Fatalf("ToolsBytes = %d, want %d", tp.ToolsBytes, got)
	}
	if tp.CatalogBytes != len(tp.Catalog) {
		t.Fatalf("CatalogBytes = %d, want %d", tp.CatalogBytes, len(tp.Catalog))
	}
	res, _ := f.d.ListTools(context.Background(), f.p)
	if got := len(joinArray(res.Tools)); tp.FullBytes != got {
		t.Fatalf("FullBytes = %d, want %d", tp.FullBytes, got)
	}
	if tp.ContractDigest != res.ContractDigest {
		t.Fatalf("ContractDigest = %q, want tools/list's %q", tp.ContractDigest, res.ContractDigest)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SPEC PLAN-1, PLAN-2, PLAN-3: over seeded generated catalogs, grants, visibility and
// policies, every plan covers each authorised tool exactly once, defers what the policy
// says, never defers a tool without a discovery path, and is deterministic.
func TestPlanGeneratedInvariants(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(60) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			tools := genTools(r, r.IntN(30))
			deny := map[string]bool{}
			for _, tl := range tools {
				deny[tl.Name] = r.IntN(5) == 0
			}
			var vis discovery.Visibility
			if r.IntN(3) == 0 && len(tools) > 0 {
				vis.Exclude = []string{tools[r.IntN(len(tools))].Name}
				vis.ReadOnly = r.IntN(3) == 0
			}
			f := newPlanFixture(t, tools, func(n string) bool { return !deny[n] }, vis, nil)
			pol := genPolicy(r, tools)
			pl := plan.New(f.d, pol)
			var loaded []string // tools the session discovered, and names it may not see
			if r.IntN(2) == 0 {
				for _, tl := range tools {
					if r.IntN(4) == 0 {
						loaded = append(loaded, tl.Name)
					}
				}
				loaded = append(loaded, "no_such_tool")
			}
			for _, native := range []bool{r.IntN(2) == 0, true, false} {
				tp, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: native}, loaded...)
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				checkPlan(t, f, pol, tools, tp, native, loaded...)
				again, err := plan.New(f.d, pol).Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: native}, loaded...)
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				if again.Catalog != tp.Catalog || !bytes.Equal(joinArray(again.Tools), joinArray(tp.Tools)) {
					t.Fatalf("two planners gave different plans for the same inputs")
				}
			}
		})
	}
}
