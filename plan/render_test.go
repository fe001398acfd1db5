package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// renderFixture is a 200-tool catalog: the 43 demo tools of examples/internal/demo
// and 157 generated ones, every tool granted to alice but those of denied.
type renderFixture struct {
	d      *discovery.Discoverer
	p      grants.Principal
	denied []string
	all    []string
}

// genNouns and genVerbs name the generated tools, noun_verb.
var (
	genNouns = []string{"tickets", "incidents", "runbooks", "secrets", "queues", "buckets", "clusters",
		"pipelines", "repos", "alerts", "dashboards", "users", "teams", "schedules", "webhooks",
		"backups", "domains", "certificates", "regions", "quotas"}
	genVerbs = []string{"list", "get", "create", "update", "delete", "search", "export", "archive"}
)

func newRenderFixture(t testing.TB) *renderFixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "examples", "internal", "demo", "tools.json"))
	if err != nil {
		t.Fatalf("demo catalog: %v", err)
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatalf("demo catalog: %v", err)
	}
	for i := 0; len(tools) < 200; i++ {
		noun, verb := genNouns[i/len(genVerbs)], genVerbs[i%len(genVerbs)]
		def := map[string]any{
			"name":        "ops_" + noun + "_" + verb,
			"description": fmt.Sprintf("%s %s of the operations workspace; answers their identifiers and state.", strings.ToUpper(verb[:1])+verb[1:], noun),
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"id":    map[string]any{"type": "string", "description": "Identifier of the item."},
				"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
			}, "required": []string{"id"}},
			"annotations": map[string]any{"readOnlyHint": verb == "list" || verb == "get" || verb == "search",
				"destructiveHint": verb == "delete"},
		}
		b, _ := json.Marshal(def)
		tools = append(tools, b)
	}
	return newRenderFixtureOf(t, tools)
}

// newRenderFixtureOf is the fixture over tools: every ninth tool in name order, and
// keys_revoke, denied.
func newRenderFixtureOf(t testing.TB, tools []json.RawMessage) *renderFixture {
	t.Helper()
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	f := &renderFixture{p: grants.Principal{ID: "alice", Scopes: []string{"tools:use"}}, all: cat.Names()}
	store := grants.NewMemory()
	ctx := context.Background()
	for i, name := range f.all {
		effect := grants.Allow
		if i%9 == 4 || name == "keys_revoke" {
			effect = grants.Deny
			f.denied = append(f.denied, name)
		}
		if _, err := store.Put(ctx, grants.Row{Principal: f.p.ID, Tool: name, Scopes: []string{"tools:use"}, Effect: effect}); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	return f
}

// planner returns a Planner with the golden tests' policy: inference tools and
// models_search eager, search as given.
func (f *renderFixture) planner(search plan.Search, undiscovered plan.Undiscovered) *plan.Planner {
	return f.plannerNS(search, undiscovered, nil)
}

// plannerNS is planner with OpenAI namespaces.
func (f *renderFixture) plannerNS(search plan.Search, undiscovered plan.Undiscovered, ns func(string) (string, string)) *plan.Planner {
	return plan.New(f.d, &plan.Policy{
		Servers:         map[string]plan.Loading{"inference_": plan.LoadEager},
		Tools:           map[string]plan.Loading{"models_search": plan.LoadEager},
		Search:          search,
		Undiscovered:    undiscovered,
		OpenAINamespace: ns,
	})
}

// areaNamespace groups tools by area: ops_<noun> for the generated tools, the first
// word for the demo's (models, datasets, ...), at most 8 functions each.
func areaNamespace(tool string) (string, string) {
	ns, _, _ := strings.Cut(tool, "_")
	if ns == "ops" {
		ns = tool[:strings.LastIndexByte(tool, '_')]
	}
	return ns, "Tools for " + strings.ReplaceAll(ns, "_", " ") + "."
}

// renderCase is one provider path of the golden tests.
type renderCase struct {
	name   string
	search plan.Search
	caps   plan.ModelCapabilities
	path   plan.Path
	ns     func(string) (string, string)
}

var renderCases = []renderCase{
	{"client-side", plan.SearchAuto, plan.ModelCapabilities{}, plan.PathClientSide, nil},
	{"anthropic-server-bm25", plan.SearchAuto, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true}, plan.PathAnthropicServer, nil},
	{"anthropic-server-regex", plan.SearchRegex, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true, ClientToolSearch: true}, plan.PathAnthropicServer, nil},
	{"anthropic-client", plan.SearchClient, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true, ClientToolSearch: true}, plan.PathAnthropicClient, nil},
	{"openai-hosted", plan.SearchAuto, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, NativeToolSearch: true, ClientToolSearch: true}, plan.PathOpenAIHosted, nil},
	{"openai-client", plan.SearchClient, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, NativeToolSearch: true, ClientToolSearch: true}, plan.PathOpenAIClient, nil},
	{"openai-hosted-namespaces", plan.SearchAuto, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, NativeToolSearch: true}, plan.PathOpenAIHosted, areaNamespace},
	{"openai-client-namespaces", plan.SearchClient, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, ClientToolSearch: true}, plan.PathOpenAIClient, areaNamespace},
}

// requestJSON is the request members a rendering sets, one tool per line: "system"
// (Anthropic and client-side) or "instructions" (OpenAI), then "tools".
func requestJSON(t testing.TB, r *plan.Rendering) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("{")
	if r.System != "" {
		key := "system"
		if r.Path == plan.PathOpenAIHosted || r.Path == plan.PathOpenAIClient {
			key = "instructions"
		}
		fmt.Fprintf(&b, "%q:%s,\n", key, encode(t, r.System))
	}
	b.WriteString(`"tools":[`)
	for i, v := range r.Tools {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
		b.Write(encode(t, v))
	}
	b.WriteString("\n]}\n")
	if !json.Valid(b.Bytes()) {
		t.Fatalf("%s: request is not JSON", r.Path)
	}
	return b.Bytes()
}

// encode is the JSON of v without HTML escaping.
func encode(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encode: %v", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// golden compares got with testdata/golden/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("golden file: %v (run go test ./plan -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (%d bytes, want %d); rerun with -update and review the diff", file, len(got), len(want))
	}
}

// SPEC PLAN-1, PLAN-2: each provider path renders the 200-tool catalog to its
// golden request, in the shape the provider documents, every granted tool exactly
// once and no ungranted one anywhere, with sizes that add up; the table of sizes is
// golden too (bytes.txt).
func TestRenderGolden(t *testing.T) {
	f := newRenderFixture(t)
	ctx := context.Background()
	var table strings.Builder
	fmt.Fprintf(&table, "%-24s %6s %8s %8s %8s %8s\n", "path", "tools", "deferred", "request", "upfront", "full")
	for _, c := range renderCases {
		t.Run(c.name, func(t *testing.T) {
			pl := f.plannerNS(c.search, plan.UndiscoveredAnswer, c.ns)
			r, err := pl.Request(ctx, f.p, c.caps)
			if err != nil {
				t.Fatalf("Request: %v", err)
			}
			if r.Path != c.path {
				t.Fatalf("Request(%+v) path = %v, want %v", c.caps, r.Path, c.path)
			}
			req := requestJSON(t, r)
			golden(t, c.name+".json", req)
			names := checkShape(t, r, req)
			checkGranted(t, f, names, req)
			checkRenderSizes(t, r)
			fmt.Fprintf(&table, "%-24s %6d %8d %8d %8d %8d\n", c.name, len(names), len(r.Deferred), r.RequestBytes, r.UpFrontBytes, r.FullBytes)
		})
	}
	if !t.Failed() {
		golden(t, "bytes.txt", []byte(table.String()))
		t.Logf("bytes of a 200-tool catalog per path:\n%s", table.String())
	}
}

var providerName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// SPEC PLAN-1: a real catalog (../shared/data, when present) renders on every path
// in its provider's shape, granted tools only, deferral showing less up front.
func TestRenderRealCatalog(t *testing.T) {
	file := filepath.Join("..", "..", "shared", "data", "catalogs", "raw", "gitlab.raw-tools.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Skipf("real catalog absent (%s): %v", file, err)
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	f := newRenderFixtureOf(t, tools)
	for _, c := range renderCases {
		t.Run(c.name, func(t *testing.T) {
			r, err := f.plannerNS(c.search, plan.UndiscoveredAnswer, c.ns).Request(context.Background(), f.p, c.caps)
			if err != nil {
				t.Fatal(err)
			}
			if r.Path != c.path {
				t.Fatalf("path %v, want %v", r.Path, c.path)
			}
			req := requestJSON(t, r)
			checkGranted(t, f, checkShape(t, r, req), req)
			checkRenderSizes(t, r)
			t.Logf("%s: %d tools, request %d bytes, up front %d, full %d", c.name, len(f.all)-len(f.denied), r.RequestBytes, r.UpFrontBytes, r.FullBytes)
		})
	}
}

// SPEC PLAN-2: swapping the model moves the very next request to that model's path,
// and a model with no discovery path of its own gets the catalog back at once.
func TestRequestModelSwap(t *testing.T) {
	f := newRenderFixture(t)
	pl := f.planner(plan.SearchAuto, plan.UndiscoveredAnswer)
	ctx := context.Background()
	for i, c := range []struct {
		caps plan.ModelCapabilities
		want plan.Path
	}{
		{plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true}, plan.PathAnthropicServer},
		{plan.ModelCapabilities{Provider: plan.ProviderAnthropic}, plan.PathClientSide},
		{plan.ModelCapabilities{Provider: plan.ProviderOpenAI, ClientToolSearch: true}, plan.PathOpenAIClient},
		{plan.ModelCapabilities{NativeToolSearch: true}, plan.PathClientSide}, // generic: no provider search to render
		{plan.ModelCapabilities{Provider: plan.ProviderOpenAI, NativeToolSearch: true}, plan.PathOpenAIHosted},
	} {
		r, err := pl.Request(ctx, f.p, c.caps)
		if err != nil {
			t.Fatal(err)
		}
		if r.Path != c.want {
			t.Errorf("request %d (%+v): path %v, want %v", i+1, c.caps, r.Path, c.want)
		}
		if r.Path == plan.PathClientSide && !strings.Contains(r.System, "Call search_tools") {
			t.Errorf("request %d: client-side without the catalog", i+1)
		}
		if len(r.Deferred) > 0 && r.SearchTool == "" {
			t.Errorf("request %d: %d deferred with no search tool", i+1, len(r.Deferred))
		}
	}
}

// A catalog tool bearing the host's search tool name moves an Anthropic
// client-search request to the client-side plan, which then defers nothing: the
// provider would refuse two tools of one name (SPEC PLAN-2).
func TestRequestSearchNameTaken(t *testing.T) {
	tools := []planTool{{Name: "search_tools", Description: "A catalog tool of that name."}}
	for i := range 20 {
		tools = append(tools, planTool{Name: fmt.Sprintf("tool_%02d", i), Description: "A tool."})
	}
	fx := newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
	pl := plan.New(fx.d, &plan.Policy{Search: plan.SearchClient})
	r, err := pl.Request(context.Background(), fx.p, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, ClientToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != plan.PathClientSide || len(r.Deferred) != 0 || len(r.Tools) != len(tools) {
		t.Errorf("path %v, %d deferred, %d tools; want client-side, none deferred, all %d", r.Path, len(r.Deferred), len(r.Tools), len(tools))
	}
	// With Anthropic's own search available, the request uses it instead.
	r, err = pl.Request(context.Background(), fx.p, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true, ClientToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != plan.PathAnthropicServer || r.SearchTool != plan.AnthropicBM25Name || len(r.Deferred) != len(tools) {
		t.Errorf("path %v, search %q, %d deferred; want anthropic-server, BM25, all %d", r.Path, r.SearchTool, len(r.Deferred), len(tools))
	}
}

// A tool whose name the providers refuse is left out of a provider request and
// named in Omitted, never sent to fail the whole request; the client-side path sends
// it as it is.
func TestRequestOmitsInvalidNames(t *testing.T) {
	tools := []planTool{{Name: "files.read", Description: "Dotted name."}}
	for i := range 12 {
		tools = append(tools, planTool{Name: fmt.Sprintf("tool_%02d", i), Description: "A tool."})
	}
	fx := newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
	for _, c := range renderCases {
		r, err := plan.New(fx.d, &plan.Policy{Search: c.search}).Request(context.Background(), fx.p, c.caps)
		if err != nil {
			t.Fatal(err)
		}
		req := requestJSON(t, r)
		if c.path == plan.PathClientSide {
			if len(r.Omitted) != 0 || !bytes.Contains(req, []byte("files.read")) {
				t.Errorf("client-side: omitted %v; want files.read sent", r.Omitted)
			}
			continue
		}
		if !slices.Equal(r.Omitted, []string{"files.read"}) || bytes.Contains(req, []byte("files.read")) || len(r.Deferred) != 12 {
			t.Errorf("%s: omitted %v, %d deferred; want files.read omitted and absent, 12 deferred", c.name, r.Omitted, len(r.Deferred))
		}
		checkRenderSizes(t, r)
	}
}

// Below the thresholds, and while the switch is off, no path defers or adds a
// search tool: every tool is sent in full in the provider's shape (SPEC PLAN-2,
// FLAG-2).
func TestRequestNothingDeferred(t *testing.T) {
	tools := []planTool{{Name: "a_tool", Description: "A."}, {Name: "b_tool", Description: "B."}}
	fx := newPlanFixture(t, tools, nil, discovery.Visibility{}, nil)
	off := discovery.New(&discovery.Options{Catalog: fx.cat, Grants: fx.store})
	for _, d := range []*discovery.Discoverer{fx.d, off} {
		for _, c := range renderCases {
			r, err := plan.New(d, &plan.Policy{Search: c.search}).Request(context.Background(), fx.p, c.caps)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Deferred) != 0 || r.SearchTool != "" || len(r.Tools) != 2 || r.System != "" ||
				r.UpFrontBytes != r.RequestBytes || r.RequestBytes != r.FullBytes {
				t.Errorf("%s (enabled %v): %d deferred, search %q, %d tools, sizes %d/%d/%d; want both tools in full, no search",
					c.name, d.Enabled(), len(r.Deferred), r.SearchTool, len(r.Tools), r.RequestBytes, r.UpFrontBytes, r.FullBytes)
			}
		}
	}
}

// The host's search answers are the Discoverer's page, in its rank order, as
// tool_reference blocks (Anthropic) or function definitions (OpenAI), granted tools
// only; both are golden.
func TestSearchAnswersGolden(t *testing.T) {
	f := newRenderFixture(t)
	ctx := context.Background()
	args := json.RawMessage(`{"query":"roll out a new model version","limit":4}`)
	page, err := f.d.DiscoverTool(ctx, f.p, args)
	if err != nil {
		t.Fatal(err)
	}
	var ranked []string // the page's deferred tools, in rank order
	for _, def := range page.Tools {
		if name := toolName(t, def); name != "models_search" && !strings.HasPrefix(name, "inference_") {
			ranked = append(ranked, name)
		}
	}

	pl := f.planner(plan.SearchClient, plan.UndiscoveredAnswer)
	ra, err := pl.Request(ctx, f.p, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, ClientToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	res, loaded, err := pl.AnswerAnthropicSearch(ctx, f.p, ra, "toolu_01", args)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(loaded, ranked) {
		t.Errorf("Anthropic answer references %v, want the page's %v", loaded, ranked)
	}
	for i, c := range res.Content {
		if i < len(ranked) && (c.Type != "tool_reference" || c.ToolName != ranked[i]) {
			t.Errorf("content[%d] = %+v, want tool_reference %s", i, c, ranked[i])
		}
	}
	if last := res.Content[len(res.Content)-1]; len(ranked) == 0 || last.Type != "text" || !strings.Contains(last.Text, "cursor") {
		t.Errorf("Anthropic answer %+v lacks the next page's cursor", res.Content)
	}
	// The cursor is sealed afresh on each page: the golden file holds a placeholder.
	ans := regexp.MustCompile(`cursor \\"[^\\]+\\"`).ReplaceAll(encode(t, res), []byte(`cursor \"CURSOR\"`))
	golden(t, "anthropic-client-answer.json", append(ans, '\n'))

	ro, err := pl.Request(ctx, f.p, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, ClientToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	out, loaded, err := pl.AnswerOpenAISearch(ctx, f.p, ro, "call_01", args)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(loaded, ranked) || len(out.Tools) != len(ranked) {
		t.Errorf("OpenAI answer loads %v, want the page's %v", loaded, ranked)
	}
	for _, v := range out.Tools {
		if fn, ok := v.(plan.OpenAIFunction); !ok || fn.DeferLoading || fn.Type != "function" || len(fn.Parameters) == 0 {
			t.Errorf("OpenAI answer tool %+v", v)
		}
	}
	golden(t, "openai-client-answer.json", append(encode(t, out), '\n'))

	// With namespaces, each found function comes inside its namespace, holding the
	// found members only.
	pn := f.plannerNS(plan.SearchClient, plan.UndiscoveredAnswer, areaNamespace)
	rn, err := pn.Request(ctx, f.p, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, ClientToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	outNS, loaded, err := pn.AnswerOpenAISearch(ctx, f.p, rn, "call_03", args)
	if err != nil {
		t.Fatal(err)
	}
	var inNS []string
	for _, v := range outNS.Tools {
		ns, ok := v.(plan.OpenAINamespace)
		if !ok {
			t.Fatalf("namespaced answer holds %T", v)
		}
		for _, fn := range ns.Tools {
			if want, _ := areaNamespace(fn.Name); want != ns.Name {
				t.Errorf("%s answered in namespace %s, want %s", fn.Name, ns.Name, want)
			}
			inNS = append(inNS, fn.Name)
		}
	}
	if !slices.Equal(loaded, ranked) || len(inNS) != len(ranked) {
		t.Errorf("namespaced answer loads %v holding %v, want the page's %v", loaded, inNS, ranked)
	}
	golden(t, "openai-client-namespaces-answer.json", append(encode(t, outNS), '\n'))

	// Refused arguments answer an error result, not a Go error.
	bad := json.RawMessage(`{"query":""}`)
	if res, _, err := pl.AnswerAnthropicSearch(ctx, f.p, ra, "toolu_02", bad); err != nil || !res.IsError {
		t.Errorf("bad search arguments: result %+v, err %v; want an error result", res, err)
	}
	if out, _, err := pl.AnswerOpenAISearch(ctx, f.p, ro, "call_02", bad); err != nil || len(out.Tools) != 0 {
		t.Errorf("bad search arguments: output %+v, err %v; want no tools", out, err)
	}
}

// A call of a deferred tool the model has not loaded is answered by the policy:
// a structured result naming the discovery path, or a retry with the tool loaded
// that then sends it in full; an ungranted tool is refused as any call; tools the
// model holds run.
func TestCheckCall(t *testing.T) {
	f := newRenderFixture(t)
	ctx := context.Background()
	const deferred, eager = "models_register", "inference_predict"
	denied := f.denied[0]
	for _, c := range renderCases {
		t.Run(c.name, func(t *testing.T) {
			for _, u := range []plan.Undiscovered{plan.UndiscoveredAnswer, plan.UndiscoveredLoad} {
				pl := f.plannerNS(c.search, u, c.ns)
				r, err := pl.Request(ctx, f.p, c.caps)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(r.Deferred, deferred) {
					t.Fatalf("%s is not deferred on %v", deferred, r.Path)
				}
				if _, err := pl.CheckCall(ctx, f.p, r, denied); !errors.Is(err, discovery.CodeToolNotGranted) {
					t.Errorf("ungranted %s: err %v, want tool_not_granted", denied, err)
				}
				for _, name := range []string{eager} {
					if cc, err := pl.CheckCall(ctx, f.p, r, name); err != nil || cc.Action != plan.CallRun {
						t.Errorf("eager %s: %+v, %v; want run", name, cc, err)
					}
				}
				if cc, err := pl.CheckCall(ctx, f.p, r, deferred, deferred); err != nil || cc.Action != plan.CallRun {
					t.Errorf("loaded %s: %+v, %v; want run", deferred, cc, err)
				}
				cc, err := pl.CheckCall(ctx, f.p, r, deferred)
				if err != nil {
					t.Fatal(err)
				}
				hosted := r.Path == plan.PathAnthropicServer || r.Path == plan.PathOpenAIHosted
				switch {
				case hosted:
					if cc.Action != plan.CallRun {
						t.Errorf("provider-hosted search: %+v, want run (the provider loaded it)", cc)
					}
				case u == plan.UndiscoveredLoad:
					if cc.Action != plan.CallRetry || !slices.Equal(cc.Load, []string{deferred}) {
						t.Fatalf("load policy: %+v, want retry loading %s", cc, deferred)
					}
					again, err := pl.Request(ctx, f.p, c.caps, cc.Load...)
					if err != nil {
						t.Fatal(err)
					}
					if slices.Contains(again.Deferred, deferred) || !bytes.Contains(requestJSON(t, again), []byte(`"name":"`+deferred+`"`)) {
						t.Errorf("the retried request still defers %s", deferred)
					}
					if cc, _ := pl.CheckCall(ctx, f.p, again, deferred, cc.Load...); cc.Action != plan.CallRun {
						t.Errorf("after the retry: %+v, want run", cc)
					}
				default:
					var res struct {
						Error, Tool string
						Discover    struct {
							Tool      string
							Arguments map[string]string
						}
					}
					if cc.Action != plan.CallAnswer || json.Unmarshal(cc.Result, &res) != nil ||
						res.Error != "tool_not_loaded" || res.Tool != deferred || res.Discover.Tool != r.SearchTool ||
						res.Discover.Arguments["query"] != deferred {
						t.Errorf("answer policy: %+v %s, want tool_not_loaded naming %s", cc, cc.Result, r.SearchTool)
					}
					// The discovery path it names loads the tool: the search finds it.
					args, _ := json.Marshal(res.Discover.Arguments)
					page, err := f.d.DiscoverTool(ctx, f.p, args)
					if err != nil || len(page.Tools) == 0 || toolName(t, page.Tools[0]) != deferred {
						t.Errorf("searching %s as the answer says does not find it first (err %v)", args, err)
					}
					if c.path == plan.PathClientSide {
						golden(t, "not-loaded-answer.json", append(cc.Result, '\n'))
					}
				}
			}
		})
	}
}

// BenchmarkRequest renders the 200-tool golden catalog for each path.
func BenchmarkRequest(b *testing.B) {
	f := newRenderFixture(b)
	ctx := context.Background()
	for _, c := range renderCases {
		b.Run(c.name, func(b *testing.B) {
			pl := f.plannerNS(c.search, plan.UndiscoveredAnswer, c.ns)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pl.Request(ctx, f.p, c.caps); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Policy.OpenAINamespace is asked once per deferred tool definition: a second request
// over the same tools asks nothing and renders the same namespaces.
func TestOpenAINamespaceAskedOnce(t *testing.T) {
	f := newRenderFixture(t)
	calls := 0
	pl := f.plannerNS(plan.SearchAuto, plan.UndiscoveredAnswer, func(tool string) (string, string) {
		calls++
		return areaNamespace(tool)
	})
	caps := plan.ModelCapabilities{Provider: plan.ProviderOpenAI, NativeToolSearch: true}
	first, err := pl.Request(context.Background(), f.p, caps)
	if err != nil {
		t.Fatal(err)
	}
	n := calls
	again, err := pl.Request(context.Background(), f.p, caps)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || n > len(first.Deferred) || calls != n {
		t.Errorf("OpenAINamespace called %d times for %d deferred tools, then %d more", n, len(first.Deferred), calls-n)
	}
	if string(requestJSON(t, again)) != string(requestJSON(t, first)) {
		t.Error("the second request's namespaces differ")
	}
}
