package otelmetrics_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
	"github.com/deferredtools/deferredtools/otelmetrics"
)

// canary marks every byte a client or host supplies in the tests.
const canary = "zq9canary"

// tool returns a tool definition whose input schema takes a required string "text".
func tool(name, description string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object",`+
		`"properties":{"text":{"type":"string","maxLength":100}},"required":["text"]}}`, name, description))
}

// fixture is a Discoverer over five tools whose observer records into m through a
// manual reader, keeping every event too.
type fixture struct {
	reader *sdkmetric.ManualReader
	mu     sync.Mutex
	events []observe.Event
	build  func(edit func(*discovery.Options)) *discovery.Discoverer
}

func newFixture(t *testing.T, who grants.Principal) *fixture {
	t.Helper()
	f := &fixture{reader: sdkmetric.NewManualReader()}
	m, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader)))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := discovery.NewCatalog([]json.RawMessage{
		tool("model_search", "Search the model registry by name or tag."),
		tool("model_get", "Get one model of the registry."),
		tool("model_tag", "Tag a model of the registry."),
		tool("invoice_get", "Get an invoice of the billing account."),
		tool(canary+"_tool", "Search the "+canary+" registry."),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	for _, name := range []string{"model_search", "model_get", "model_tag", canary + "_tool"} {
		if _, err := store.Put(context.Background(), grants.Row{Principal: who.ID, Tool: name, Effect: grants.Allow, Revision: 1}); err != nil {
			t.Fatal(err)
		}
	}
	record := func(ctx context.Context, e observe.Event) {
		f.mu.Lock()
		f.events = append(f.events, e)
		f.mu.Unlock()
		m.Observe(ctx, e)
	}
	check := func(_ context.Context, _ grants.Principal, tool string, args json.RawMessage) error {
		switch tool {
		case "model_get":
			return errors.New(canary + " host refusal for " + string(args))
		case "model_tag":
			return discovery.Code(canary + "_code")
		}
		return nil
	}
	f.build = func(edit func(*discovery.Options)) *discovery.Discoverer {
		o := &discovery.Options{Enabled: true, Catalog: cat, Grants: store, Observe: record, CheckCall: check}
		if edit != nil {
			edit(o)
		}
		return discovery.New(o)
	}
	return f
}

// collect reads the metrics.
func (f *fixture) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// key names a series by its op and code attributes.
func key(t *testing.T, set attribute.Set) string {
	op, ok1 := set.Value(otelmetrics.OpKey)
	code, ok2 := set.Value(otelmetrics.CodeKey)
	if !ok1 || !ok2 || set.Len() != 2 {
		t.Errorf("attributes %v, want exactly %s and %s", set.ToSlice(), otelmetrics.OpKey, otelmetrics.CodeKey)
	}
	return op.AsString() + "/" + code.AsString()
}

// sums returns, per instrument name, the value per series: a counter's sum, a
// histogram's count.
func sums(t *testing.T, rm metricdata.ResourceMetrics) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otelmetrics.Scope {
			t.Errorf("scope %q, want %q", sm.Scope.Name, otelmetrics.Scope)
		}
		for _, m := range sm.Metrics {
			series := map[string]float64{}
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				if !data.IsMonotonic {
					t.Errorf("%s is not monotonic", m.Name)
				}
				for _, dp := range data.DataPoints {
					series[key(t, dp.Attributes)] += float64(dp.Value)
				}
			case metricdata.Histogram[float64]:
				for _, dp := range data.DataPoints {
					series[key(t, dp.Attributes)] += float64(dp.Count)
				}
			default:
				t.Errorf("%s: data %T", m.Name, m.Data)
			}
			out[m.Name] = series
		}
	}
	return out
}

// TestMetrics checks that each decision is counted under its op and code, its duration
// recorded in the histogram's series, and the tools and bytes served added up, equal
// to what the events said.
func TestMetrics(t *testing.T) {
	ctx := context.Background()
	who := grants.Principal{ID: "ana"}
	f := newFixture(t, who)
	d := f.build(nil)
	for range 3 {
		if _, err := d.Discover(ctx, who, discovery.Request{Query: "model registry", Limit: 2}); err != nil {
			t.Fatal(err)
		}
	}
	d.Discover(ctx, who, discovery.Request{})
	d.HandleJSONRPC(ctx, who, []byte(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model"}}`))
	d.ListTools(ctx, who)
	d.AuthorizeCall(ctx, who, discovery.Call{Tool: "invoice_get"})
	d.AuthorizeCall(ctx, who, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)})
	d.AuthorizeCall(ctx, who, discovery.Call{Tool: "model_get", Arguments: json.RawMessage(`{"text":"x"}`)})

	want := map[string]map[string]float64{
		"deferredtools.decisions":         {},
		"deferredtools.decision.duration": {},
		"deferredtools.served.tools":      {},
		"deferredtools.served.bytes":      {},
	}
	for _, e := range f.events {
		code := string(e.Code)
		if code == "" {
			code = "ok"
		}
		k := string(e.Op) + "/" + code
		want["deferredtools.decisions"][k]++
		want["deferredtools.decision.duration"][k]++
		if e.Tools > 0 {
			want["deferredtools.served.tools"][k] += float64(e.Tools)
			want["deferredtools.served.bytes"][k] += float64(e.Bytes)
		}
	}
	if n := want["deferredtools.decisions"]; n["discover/ok"] != 4 || n["discover/invalid_params"] != 1 || n["list/ok"] != 1 ||
		n["authorize_call/tool_not_granted"] != 1 || n["authorize_call/ok"] != 1 || n["authorize_call/tool_call_refused"] != 1 {
		t.Fatalf("events counted %v, want 4 discover/ok, 1 discover/invalid_params, list/ok, and authorize_call ok, tool_not_granted, tool_call_refused", n)
	}
	got := sums(t, f.collect(t))
	for name, series := range want {
		for k, v := range series {
			if got[name][k] != v {
				t.Errorf("%s{%s} = %v, want %v", name, k, got[name][k], v)
			}
		}
		if len(got[name]) != len(series) {
			t.Errorf("%s has series %v, want %v", name, got[name], series)
		}
	}
}

// TestMetricsNoContent drives every entry point with canary queries, arguments,
// cursors, tool names, ids, contract pins and principals, through every kind of
// outcome, and finds the canary in no event and nowhere in the metrics: no attribute
// key or value, no scope, no instrument name or description (SPEC ERR-2, ERR-4).
func TestMetricsNoContent(t *testing.T) {
	ctx := context.Background()
	who := grants.Principal{ID: canary + "-principal", Scopes: []string{canary + ":scope"}}
	f := newFixture(t, who)
	d := f.build(nil)
	off := f.build(func(o *discovery.Options) { o.Enabled = false })
	broken := f.build(func(o *discovery.Options) { o.Grants = failingReader{} })
	first, err := d.Discover(ctx, who, discovery.Request{Query: "model of the registry " + canary, Limit: 1})
	if err != nil || first.NextCursor == "" {
		t.Fatalf("first page: %v, %v; want a page with a cursor", first, err)
	}
	for _, dd := range []*discovery.Discoverer{d, off, broken} {
		for _, q := range []string{canary + " registry", canary + "\x00", strings.Repeat(canary, 60)} {
			for _, cur := range []string{"", canary + "cursor", first.NextCursor} {
				dd.Discover(ctx, who, discovery.Request{Query: q, Limit: 1, Cursor: cur})
				params, _ := json.Marshal(map[string]any{"query": q, "limit": 1, "cursor": cur})
				dd.DiscoverParams(ctx, who, params)
				dd.DiscoverTool(ctx, who, params)
				dd.DiscoverFramed(ctx, who, params, 9)
				msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": canary + "-id", "method": discovery.DefaultMethod, "params": json.RawMessage(params)})
				dd.HandleJSONRPC(ctx, who, msg)
			}
		}
		dd.DiscoverParams(ctx, who, json.RawMessage(`{"query":"x","`+canary+`":1}`))
		dd.HandleJSONRPC(ctx, who, []byte(`{"jsonrpc":"2.0","id":{"`+canary+`":1},"method":"multillm.tools.discover","params":{"query":"x"}}`))
		dd.ListTools(ctx, who)
		for _, c := range []discovery.Call{
			{Tool: "model_search", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)},
			{Tool: "model_search", Arguments: json.RawMessage(`{"` + canary + `":1,"text":2}`)},
			{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`), ContractPin: canary + "-pin"},
			{Tool: canary + "_unknown", Arguments: json.RawMessage(`{"text":"x"}`)},
			{Tool: canary + "_tool", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)},
			{Tool: "model_get", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)},
			{Tool: "model_tag", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)},
			{Tool: "invoice_get", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)},
		} {
			dd.AuthorizeTool(ctx, who, c.Tool)
			dd.AuthorizeCall(ctx, who, c)
			if call, err := dd.AuthorizeToolThen(ctx, who, c.Tool); err == nil {
				call(ctx, who, c)
			}
		}
	}

	codes := map[discovery.Code]bool{}
	for _, e := range f.events {
		if s := fmt.Sprintf("%#v", e); strings.Contains(strings.ToLower(s), canary) {
			t.Errorf("an event carries client or host text: %s", s)
		}
		codes[discovery.Code(e.Code)] = true
	}
	for _, c := range []discovery.Code{"", discovery.CodeInvalidParams, discovery.CodeInvalidCursor, discovery.CodeInvalidRequest,
		discovery.CodeInvalidArguments, discovery.CodeToolNotGranted, discovery.CodeContractChanged, discovery.CodeCallRefused,
		discovery.CodeInternal, discovery.CodeGrantsUnavailable, discovery.CodeMethodNotFound} {
		if !codes[c] {
			t.Errorf("no event with code %q: the run misses an outcome", string(c))
		}
	}

	rm := f.collect(t)
	var texts []string
	add := func(s ...string) { texts = append(texts, s...) }
	for _, kv := range rm.Resource.Attributes() {
		add(string(kv.Key), kv.Value.String())
	}
	points := 0
	for _, sm := range rm.ScopeMetrics {
		add(sm.Scope.Name, sm.Scope.Version, sm.Scope.SchemaURL)
		for _, m := range sm.Metrics {
			add(m.Name, m.Description, m.Unit)
			var sets []attribute.Set
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range data.DataPoints {
					sets = append(sets, dp.Attributes)
					for _, ex := range dp.Exemplars {
						sets = append(sets, attribute.NewSet(ex.FilteredAttributes...))
					}
				}
			case metricdata.Histogram[float64]:
				for _, dp := range data.DataPoints {
					sets = append(sets, dp.Attributes)
					for _, ex := range dp.Exemplars {
						sets = append(sets, attribute.NewSet(ex.FilteredAttributes...))
					}
				}
			default:
				t.Errorf("%s: data %T", m.Name, m.Data)
			}
			for _, set := range sets {
				for _, kv := range set.ToSlice() {
					add(string(kv.Key), kv.Value.String())
				}
			}
			points += len(sets)
			add(fmt.Sprintf("%+v", m.Data)) // every value, as text
		}
	}
	for _, s := range texts {
		if strings.Contains(strings.ToLower(s), canary) {
			t.Errorf("the metrics carry client or host text: %.200s", s)
		}
	}
	if points == 0 || !slices.Contains(texts, "authorize_call") || !slices.Contains(texts, "tool_call_refused") {
		t.Errorf("the metrics hold %d series; want the run's decisions", points)
	}
	t.Logf("%d events, %d series", len(f.events), points)
}

// failingReader is a grant store whose error carries text.
type failingReader struct{}

func (failingReader) ReadGrants(context.Context, string) (*grants.Snapshot, error) {
	return nil, errors.New(canary + " storage text")
}

// TestObserveAllocs checks that recording an event of a known op and code allocates
// nothing once its series exist.
func TestObserveAllocs(t *testing.T) {
	m, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := observe.Event{Op: observe.OpDiscover, Duration: 30000, Tools: 16, Bytes: 60000}
	m.Observe(ctx, e)
	if n := testing.AllocsPerRun(100, func() { m.Observe(ctx, e) }); n != 0 {
		t.Errorf("Observe: %v allocations, want 0", n)
	}
}

// TestCoreCompilesNoOpenTelemetry checks that no package of the module but this one
// depends on OpenTelemetry: importers of the core packages, the adapters and the
// commands never compile it.
func TestCoreCompilesNoOpenTelemetry(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH:", err)
	}
	out, err := exec.Command(gobin, "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	others, bridge := 0, false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		otel := slices.ContainsFunc(fields[1:], func(dep string) bool { return strings.HasPrefix(dep, "go.opentelemetry.io/") })
		if fields[0] == "github.com/deferredtools/deferredtools/otelmetrics" {
			bridge = otel
			continue
		}
		others++
		if otel {
			t.Errorf("%s depends on OpenTelemetry", fields[0])
		}
	}
	if others < 10 || !bridge {
		t.Errorf("go list saw %d other packages, otelmetrics using OpenTelemetry %v: want the module's packages", others, bridge)
	}
}

// An event of an op New prepared no series for (a later version's) is recorded under
// its own op and code, in every instrument it has values for.
func TestMetricsUnknownOp(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	if err != nil {
		t.Fatal(err)
	}
	m.Observe(context.Background(), observe.Event{Op: "later_op", Tools: 2, Bytes: 30})
	m.Observe(context.Background(), observe.Event{Op: "later_op", Code: string(discovery.CodeInternal)})
	f := &fixture{reader: reader}
	got := sums(t, f.collect(t))
	for name, want := range map[string]map[string]float64{
		"deferredtools.decisions":         {"later_op/ok": 1, "later_op/internal_error": 1},
		"deferredtools.decision.duration": {"later_op/ok": 1, "later_op/internal_error": 1},
		"deferredtools.served.tools":      {"later_op/ok": 2},
		"deferredtools.served.bytes":      {"later_op/ok": 30},
	} {
		if !maps.Equal(got[name], want) {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
}
