package plan_test

import (
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
