package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/plan"
)

// planTool is one generated tool of a test catalog.
type planTool struct {
	Name        string
	Description string
	Title       string
	ReadOnly    bool
	Meta        string // the JSON value of _meta[MetaEagerKey], or "" for none
}

func (t planTool) json() json.RawMessage {
	m := map[string]any{
		"name":        t.Name,
		"description": t.Description,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
			"id": map[string]any{"type": "string", "description": "The identifier of the item."},
		}},
		"annotations": map[string]any{"readOnlyHint": t.ReadOnly},
	}
	if t.Title != "" {
		m["title"] = t.Title
	}
	if t.Meta != "" {
		m["_meta"] = map[string]any{plan.MetaEagerKey: json.RawMessage(t.Meta), "other/key": 1}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// planFixture is a Discoverer over a catalog with a grant store.
type planFixture struct {
	d     *discovery.Discoverer
	cat   *discovery.Catalog
	store *grants.Memory
	p     grants.Principal
}

// newPlanFixture compiles tools, grants every tool of granted to p (every tool when
// granted is nil), and builds an enabled Discoverer with visibility vis.
func newPlanFixture(t testing.TB, tools []planTool, granted func(string) bool, vis discovery.Visibility, toolset func(string) string) *planFixture {
	t.Helper()
	raws := make([]json.RawMessage, len(tools))
	for i, tl := range tools {
		raws[i] = tl.json()
	}
	cat, err := discovery.NewCatalog(raws, &discovery.CatalogOptions{Toolset: toolset})
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	store := grants.NewMemory()
	p := grants.Principal{ID: "alice", Scopes: []string{"tools:use"}}
	ctx := context.Background()
	for _, tl := range tools {
		effect := grants.Allow
		if granted != nil && !granted(tl.Name) {
			effect = grants.Deny
		}
		if _, err := store.Put(ctx, grants.Row{Principal: p.ID, Tool: tl.Name, Scopes: []string{"tools:use"}, Effect: effect}); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, Visibility: vis})
	return &planFixture{d: d, cat: cat, store: store, p: p}
}

// toolName reads the name of a tool definition.
func toolName(t testing.TB, def json.RawMessage) string {
	t.Helper()
	var f struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(def, &f); err != nil {
		t.Fatalf("tool definition is not JSON: %v", err)
	}
	return f.Name
}

// listed returns the principal's tools/list, by name.
func (f *planFixture) listed(t testing.TB) map[string]json.RawMessage {
	t.Helper()
	res, err := f.d.ListTools(context.Background(), f.p)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	m := make(map[string]json.RawMessage, len(res.Tools))
	for _, def := range res.Tools {
		m[toolName(t, def)] = def
	}
	return m
}

func joinArray(tools []json.RawMessage) []byte {
	b := []byte("[")
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t...)
	}
	return append(b, ']')
}

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

func rawsOf(tools []planTool) []json.RawMessage {
	raws := make([]json.RawMessage, len(tools))
	for i, tl := range tools {
		raws[i] = tl.json()
	}
	return raws
}

// demoTools is a catalog of 12 tools whose text never says search or select.
func demoTools() []planTool {
	var tools []planTool
	for i, w := range words[:12] {
		tools = append(tools, planTool{
			Name:        fmt.Sprintf("ml_%s_%02d", w, i),
			Description: "Manage the " + w + " resources of a project.",
			ReadOnly:    i%2 == 0,
		})
	}
	return tools
}

// SPEC PLAN-2: the mode is chosen per request; swapping the model moves the very next
// plan to the other mechanism, for the same session and grants.
func TestPlanModelSwap(t *testing.T) {
	ctx := context.Background()
	f := newPlanFixture(t, demoTools(), nil, discovery.Visibility{}, nil)
	pl := plan.New(f.d, &plan.Policy{MinTools: 5})
	models := []bool{true, false, false, true, false, true, true}
	var deferred []string
	for i, native := range models {
		tp, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: native})
		if err != nil {
			t.Fatalf("request %d: Plan: %v", i, err)
		}
		want := plan.ClientSide
		if native {
			want = plan.Native
		}
		if tp.Mode != want {
			t.Fatalf("request %d: Mode = %v, want %v", i, tp.Mode, want)
		}
		if len(tp.Deferred) != 12 {
			t.Fatalf("request %d: %d deferred, want 12", i, len(tp.Deferred))
		}
		if deferred != nil && !slices.Equal(tp.Deferred, deferred) {
			t.Fatalf("request %d: the deferred set changed with the model", i)
		}
		deferred = tp.Deferred
		if native {
			if tp.Catalog != "" || len(tp.Tools) != 12 {
				t.Fatalf("request %d: native plan has %d tools and a %d-byte catalog, want 12 and none", i, len(tp.Tools), len(tp.Catalog))
			}
		} else {
			if len(tp.Tools) != 1 || toolName(t, tp.Tools[0]) != discovery.DefaultToolName || tp.Catalog == "" {
				t.Fatalf("request %d: client-side plan is not the discovery tool and a catalog", i)
			}
		}
		checkPlan(t, f, &plan.Policy{MinTools: 5}, demoTools(), tp, native)
	}
}

// SPEC PLAN-4: a native plan carries no catalog text and no search/select wording:
// nothing but the authorised definitions, while the client-side plan of the same
// request does carry the catalog and the discovery tool.
func TestPlanNativeHasNoSearchWording(t *testing.T) {
	ctx := context.Background()
	f := newPlanFixture(t, demoTools(), nil, discovery.Visibility{}, nil)
	pl := plan.New(f.d, &plan.Policy{MinTools: 1, ToolName: "find_more_tools"})
	client, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	native, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	var header string
	if i := strings.IndexByte(client.Catalog, '\n'); i > 0 {
		header = client.Catalog[:i]
	}
	if header == "" || len(client.Deferred) == 0 {
		t.Fatalf("client-side plan has no catalog header; the test would prove nothing")
	}
	nativeText := strings.ToLower(string(joinArray(native.Tools)) + native.Catalog)
	clientText := strings.ToLower(string(joinArray(client.Tools)) + client.Catalog)
	for _, w := range []string{"search", "select", "find_more_tools", strings.ToLower(header), "more tools"} {
		if strings.Contains(nativeText, w) {
			t.Errorf("native plan contains %q", w)
		}
	}
	for _, w := range []string{"search", "find_more_tools"} {
		if !strings.Contains(clientText, w) {
			t.Errorf("client-side plan lacks %q; the native check would prove nothing", w)
		}
	}
	if native.Catalog != "" || native.CatalogBytes != 0 {
		t.Errorf("native Catalog = %q (%d bytes), want none", native.Catalog, native.CatalogBytes)
	}
	if len(native.Tools) != len(f.listed(t)) {
		t.Errorf("native plan has %d tools, want the %d authorised", len(native.Tools), len(f.listed(t)))
	}
}

// SPEC PLAN-1: the catalog segment is name-only, one line per deferred tool, in name
// order, deterministic, and its size is reported.
func TestPlanCatalogSegment(t *testing.T) {
	ctx := context.Background()
	tools := []planTool{
		{Name: "b_multi", Description: "\n\n  First\tline  with   spaces.  \nSecond line is dropped."},
		{Name: "a_long", Description: strings.Repeat("é", 30)}, // 60 bytes
		{Name: "c_title", Title: "Only a title"},
		{Name: "d_bare"},
		{Name: "e_ctrl", Description: "bell\a here\r\nnext"},
		{Name: "f_eager", Description: "kept in full", Meta: "true"},
	}
	f := newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
	pl := plan.New(f.d, &plan.Policy{MinTools: 1, LineBytes: 20})
	tp, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	want := "More tools are available than are loaded. Call search_tools with a few words describing the task to get the full definitions of the matching tools:\n" +
		"- a_long: " + strings.Repeat("é", 8) + "...\n" +
		"- b_multi: First line with...\n" +
		"- c_title: Only a title\n" +
		"- d_bare\n" +
		"- e_ctrl: bell here\n"
	if tp.Catalog != want {
		t.Fatalf("Catalog =\n%s\nwant\n%s", tp.Catalog, want)
	}
	if tp.CatalogBytes != len(want) {
		t.Errorf("CatalogBytes = %d, want %d", tp.CatalogBytes, len(want))
	}
	for range 3 {
		again, err := plan.New(f.d, &plan.Policy{MinTools: 1, LineBytes: 20}).Plan(ctx, f.p, plan.ModelCapabilities{})
		if err != nil || again.Catalog != want {
			t.Fatalf("a second planner gave another catalog (err %v)", err)
		}
	}
	if got := []string{toolName(t, tp.Tools[0]), toolName(t, tp.Tools[1])}; !slices.Equal(got, []string{"f_eager", "search_tools"}) {
		t.Errorf("client-side tools = %q, want the eager tool then the discovery tool", got)
	}
}

// SPEC PLAN-3: below both thresholds nothing is deferred; at either one, the policy's
// rules decide, the most specific first.
func TestPlanPolicy(t *testing.T) {
	ctx := context.Background()
	tools := []planTool{
		{Name: "gh_issue_create", Description: "Create an issue."},
		{Name: "gh_issue_read", Description: "Read an issue.", Meta: "true"},
		{Name: "gh_pr_merge", Description: "Merge a pull request.", Meta: "false"},
		{Name: "gl_branch_list", Description: "List branches."},
		{Name: "gl_mr_create", Description: "Create a merge request."},
	}
	f := newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
	bad := `{"name":"gl_odd_meta","description":"A _meta that is no object.","inputSchema":{"type":"object"},"_meta":5}`
	f.cat, _ = discovery.NewCatalog(append(rawsOf(tools), json.RawMessage(bad)), nil)
	f.store.Put(context.Background(), grants.Row{Principal: f.p.ID, Tool: "gl_odd_meta", Scopes: []string{"tools:use"}, Effect: grants.Allow})
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: f.cat, Grants: f.store})
	size := 0
	for _, def := range f.listed(t) {
		size += len(def)
	}
	tests := []struct {
		name   string
		policy *plan.Policy
		want   []string // deferred
	}{
		{"defaults: 6 tools is below both thresholds", nil, nil},
		{"count threshold not met", &plan.Policy{MinTools: 7, MinBytes: -1}, nil},
		{"count threshold met", &plan.Policy{MinTools: 6, MinBytes: -1},
			[]string{"gh_issue_create", "gh_pr_merge", "gl_branch_list", "gl_mr_create", "gl_odd_meta"}},
		{"byte threshold not met", &plan.Policy{MinTools: -1, MinBytes: size + 1}, nil},
		{"byte threshold met", &plan.Policy{MinTools: -1, MinBytes: size},
			[]string{"gh_issue_create", "gh_pr_merge", "gl_branch_list", "gl_mr_create", "gl_odd_meta"}},
		{"both thresholds off", &plan.Policy{MinTools: -1, MinBytes: -1, Default: plan.LoadDeferred}, nil},
		{"default eager, a lazy server", &plan.Policy{MinTools: 1, Default: plan.LoadEager,
			Servers: map[string]plan.Loading{"gl_": plan.LoadDeferred}},
			[]string{"gh_pr_merge", "gl_branch_list", "gl_mr_create", "gl_odd_meta"}},
		{"longest prefix wins", &plan.Policy{MinTools: 1,
			Servers: map[string]plan.Loading{"gh_": plan.LoadEager, "gh_issue_": plan.LoadDeferred}},
			[]string{"gh_issue_create", "gh_pr_merge", "gl_branch_list", "gl_mr_create", "gl_odd_meta"}},
		{"_meta beats the server", &plan.Policy{MinTools: 1,
			Servers: map[string]plan.Loading{"gh_": plan.LoadEager}},
			[]string{"gh_pr_merge", "gl_branch_list", "gl_mr_create", "gl_odd_meta"}},
		{"a tool rule beats _meta", &plan.Policy{MinTools: 1,
			Tools: map[string]plan.Loading{"gh_issue_read": plan.LoadDeferred, "gl_mr_create": plan.LoadEager, "gh_pr_merge": plan.LoadUnset}},
			[]string{"gh_issue_create", "gh_issue_read", "gh_pr_merge", "gl_branch_list", "gl_odd_meta"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, native := range []bool{false, true} {
				tp, err := plan.New(f.d, tt.policy).Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: native})
				if err != nil {
					t.Fatalf("%s: Plan: %v", tt.name, err)
				}
				if !slices.Equal(tp.Deferred, tt.want) {
					t.Errorf("%s (native %v): Deferred = %q, want %q", tt.name, native, tp.Deferred, tt.want)
				}
				if len(tt.want) == 0 && tp.Bytes() != tp.FullBytes {
					t.Errorf("%s (native %v): a plan deferring nothing is %d bytes, want the full %d", tt.name, native, tp.Bytes(), tp.FullBytes)
				}
			}
		})
	}
}

// SPEC PLAN-1: tools a session discovered through the discovery tool are sent in full
// by its later client-side plans, and leave the catalog; names it may not see change
// nothing; a native plan leaves loading to the provider.
func TestPlanLoaded(t *testing.T) {
	ctx := context.Background()
	tools := demoTools()
	denied := tools[3].Name
	f := newPlanFixture(t, tools, func(n string) bool { return n != denied }, discovery.Visibility{}, nil)
	pl := plan.New(f.d, &plan.Policy{MinTools: 1})
	loaded := []string{tools[5].Name, tools[1].Name, denied, "no_such_tool"}
	client, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{}, loaded...)
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, def := range client.Tools {
		sent = append(sent, toolName(t, def))
	}
	if want := []string{tools[5].Name, tools[1].Name, discovery.DefaultToolName}; !slices.Equal(sent, want) {
		t.Errorf("client-side tools = %q, want %q", sent, want)
	}
	if len(client.Deferred) != 9 || slices.Contains(client.Deferred, tools[1].Name) || strings.Contains(client.Catalog, tools[5].Name) || strings.Contains(client.Catalog, denied) {
		t.Errorf("client-side plan still defers a loaded tool or lists a denied one: %q", client.Deferred)
	}
	checkPlan(t, f, &plan.Policy{MinTools: 1}, tools, client, false, loaded...)
	native, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: true}, loaded...)
	if err != nil {
		t.Fatal(err)
	}
	if len(native.Deferred) != 11 {
		t.Errorf("native plan defers %d tools, want all 11 authorised", len(native.Deferred))
	}
}

// SPEC PLAN-2: a client-side plan never defers when a catalog tool bears the discovery
// tool's name (the discovery path would be ambiguous); a native plan still does.
func TestPlanDiscoveryToolNameTaken(t *testing.T) {
	ctx := context.Background()
	tools := append(demoTools(), planTool{Name: discovery.DefaultToolName, Description: "A host tool of that name."})
	f := newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
	pl := plan.New(f.d, &plan.Policy{MinTools: 1})
	client, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{})
	if err != nil {
		t.Fatal(err)
	}
	if len(client.Deferred) != 0 || client.Catalog != "" || len(client.Tools) != len(tools) {
		t.Errorf("client-side plan deferred %d tools with the discovery tool's name taken", len(client.Deferred))
	}
	native, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(native.Deferred) != len(tools) {
		t.Errorf("native plan deferred %d tools, want %d", len(native.Deferred), len(tools))
	}
}

// SPEC PLAN-2: plans made concurrently while the host swaps catalog versions each see
// one version whole (run with -race).
func TestPlanConcurrentCatalogSwap(t *testing.T) {
	ctx := context.Background()
	small, big := demoTools()[:4], demoTools()
	f := newPlanFixture(t, big, nil, discovery.Visibility{}, nil)
	var raws []json.RawMessage
	for _, tl := range small {
		raws = append(raws, tl.json())
	}
	smallCat, err := discovery.NewCatalog(raws, nil)
	if err != nil {
		t.Fatal(err)
	}
	var src discovery.SwappableCatalog
	src.Store(f.cat)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: &src, Grants: f.store})
	pl := plan.New(d, &plan.Policy{MinTools: 8})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			if i%2 == 0 {
				src.Store(smallCat)
			} else {
				src.Store(f.cat)
			}
		}
	}()
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			for i := range 100 {
				tp, err := pl.Plan(ctx, f.p, plan.ModelCapabilities{NativeToolSearch: (w+i)%2 == 0})
				switch {
				case err != nil:
					errs <- err
					return
				case len(tp.Deferred) != 0 && len(tp.Deferred) != 12,
					len(tp.Deferred) == 0 && len(tp.Tools) != 4:
					errs <- fmt.Errorf("a plan mixed catalog versions: %d deferred, %d sent", len(tp.Deferred), len(tp.Tools))
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	<-done
}

// failReader fails the test when grants are read.
type failReader struct{ t *testing.T }

func (r failReader) ReadGrants(context.Context, string) (*grants.Snapshot, error) {
	r.t.Error("grants read while the switch is off")
	return nil, grants.ErrUnavailable
}

// SPEC FLAG-2, PLAN-2: while the switch is off the discover method does not exist, so
// no plan defers anything, and no grant is read.
func TestPlanSwitchOff(t *testing.T) {
	raws := make([]json.RawMessage, 0, 12)
	for _, tl := range demoTools() {
		raws = append(raws, tl.json())
	}
	cat, err := discovery.NewCatalog(raws, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := discovery.New(&discovery.Options{Catalog: cat, Grants: failReader{t}})
	pl := plan.New(d, &plan.Policy{MinTools: 1})
	for _, native := range []bool{false, true} {
		tp, err := pl.Plan(context.Background(), grants.Principal{ID: "x"}, plan.ModelCapabilities{NativeToolSearch: native})
		if err != nil {
			t.Fatal(err)
		}
		if len(tp.Deferred) != 0 || tp.Catalog != "" || len(tp.Tools) != 12 || tp.ToolsBytes != tp.FullBytes {
			t.Errorf("native %v: switch-off plan defers %d tools or drops some (%d sent)", native, len(tp.Deferred), len(tp.Tools))
		}
	}
}

// SPEC ERR-5, GRANT-6: without a grant reader a plan fails closed with 503 rather than
// planning from no grants.
func TestPlanGrantsUnavailable(t *testing.T) {
	raws := []json.RawMessage{demoTools()[0].json()}
	cat, err := discovery.NewCatalog(raws, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat})
	_, err = plan.New(d, nil).Plan(context.Background(), grants.Principal{ID: "x"}, plan.ModelCapabilities{})
	var e *discovery.Error
	if !errors.As(err, &e) || e.Code != discovery.CodeGrantsUnavailable || e.Code.Status() != 503 {
		t.Fatalf("Plan without grants = %v, want grants_unavailable 503", err)
	}
}

// BenchmarkPlan measures one plan over 1,000 authorised tools, every one deferred.
func BenchmarkPlan(b *testing.B) {
	tools := genTools(rand.New(rand.NewPCG(1, 2)), 1000)
	for i := range tools {
		tools[i].Meta = ""
	}
	f := newPlanFixture(b, tools, nil, discovery.Visibility{}, nil)
	pl := plan.New(f.d, nil)
	for _, native := range []bool{true, false} {
		name := "client-side"
		if native {
			name = "native"
		}
		b.Run(name, func(b *testing.B) {
			m := plan.ModelCapabilities{NativeToolSearch: native}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pl.Plan(context.Background(), f.p, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ExamplePlanner_Plan() {
	ctx := context.Background()
	var raws []json.RawMessage
	for _, name := range []string{"deploy_model", "list_models", "rotate_key"} {
		raws = append(raws, json.RawMessage(`{"name":"`+name+`","description":"Does `+
			strings.ReplaceAll(name, "_", " ")+`.","inputSchema":{"type":"object"}}`))
	}
	raws = append(raws, json.RawMessage(`{"name":"whoami","description":"Names the caller.","inputSchema":{"type":"object"},"_meta":{"deferredtools/eager":true}}`))
	cat, _ := discovery.NewCatalog(raws, nil)
	store := grants.NewMemory()
	for _, name := range cat.Names() {
		store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow})
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	pl := plan.New(d, &plan.Policy{MinTools: 3})
	alice := grants.Principal{ID: "alice"}

	tp, _ := pl.Plan(ctx, alice, plan.ModelCapabilities{NativeToolSearch: false})
	fmt.Println(tp.Mode, tp.Deferred)
	fmt.Print(tp.Catalog)
	tp, _ = pl.Plan(ctx, alice, plan.ModelCapabilities{NativeToolSearch: true})
	fmt.Println(tp.Mode, tp.Deferred, len(tp.Tools), tp.Catalog == "")
	// Output:
	// client-side [deploy_model list_models rotate_key]
	// More tools are available than are loaded. Call search_tools with a few words describing the task to get the full definitions of the matching tools:
	// - deploy_model: Does deploy model.
	// - list_models: Does list models.
	// - rotate_key: Does rotate key.
	// native [deploy_model list_models rotate_key] 4 true
}

// FuzzPlanCatalogLine feeds arbitrary tool descriptions and titles (a gateway relays
// them from servers it does not control) through a client-side plan: the catalog
// segment keeps one line per deferred tool, with no control character, valid UTF-8,
// and at most LineBytes of text after the name (SPEC PLAN-1).
func FuzzPlanCatalogLine(f *testing.F) {
	f.Add("Create an issue.", "")
	f.Add("line one\n- injected_tool: fake entry\n", "")
	f.Add("\r\n\t \u2028 text\u0085more\x00\x1b[31m", "")
	f.Add("", "A title only")
	f.Add(strings.Repeat("é", 40), "")
	f.Add("\xff\xfe invalid utf-8", "t\nt")
	const limit = 20
	f.Fuzz(func(t *testing.T, desc, title string) {
		tools := []planTool{{Name: "a_tool", Description: desc, Title: title}, {Name: "b_tool", Description: "Plain."}}
		f := newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
		tp, err := plan.New(f.d, &plan.Policy{MinTools: 1, LineBytes: limit}).Plan(context.Background(), f.p, plan.ModelCapabilities{})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(tp.Catalog, "\n")
		if len(lines) != 4 || lines[3] != "" {
			t.Fatalf("catalog has %d lines, want a header and 2 tools:\n%q", len(lines)-1, tp.Catalog)
		}
		line := strings.TrimSuffix(lines[1], "\n")
		if !utf8.ValidString(line) {
			t.Fatalf("catalog line is not UTF-8: %q", line)
		}
		for _, r := range line {
			if unicode.IsControl(r) {
				t.Fatalf("catalog line holds control character %U: %q", r, line)
			}
		}
		text, ok := strings.CutPrefix(line, "- a_tool: ")
		if !ok && line != "- a_tool" {
			t.Fatalf("catalog line %q is not \"- a_tool[: text]\"", line)
		}
		if len(text) > limit {
			t.Fatalf("catalog line text is %d bytes, want at most %d: %q", len(text), limit, text)
		}
		if lines[2] != "- b_tool: Plain.\n" {
			t.Fatalf("second line = %q", lines[2])
		}
	})
}
