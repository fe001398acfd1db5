package discovery_test

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/catalogtest"
	"github.com/deferredtools/deferredtools/internal/cputime"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// catalogSizes are the catalog sizes the catalog build benchmarks run at.
var catalogSizes = []int{1000, 10000}

var (
	catToolsMu sync.Mutex
	catTools   = map[int][]json.RawMessage{}
)

// catalogTools returns n generated tools (genCatalog), the same ones on every call.
func catalogTools(n int) []json.RawMessage {
	catToolsMu.Lock()
	defer catToolsMu.Unlock()
	if t, ok := catTools[n]; ok {
		return t
	}
	t := genCatalog(rand.New(rand.NewPCG(2026, uint64(n))), n)
	catTools[n] = t
	return t
}

// catalogOpts are limits no generated catalog reaches.
var catalogOpts = &discovery.CatalogOptions{Limits: schemaguard.Limits{MaxBytes: 1 << 40, MaxNodes: 1 << 40}}

// BenchmarkNewCatalog measures compiling a catalog of generated tools (1-7 KB each, a
// few up to 30 KB), the once-per-version cost. BenchmarkNewCatalogFloor is its floor.
// tools=N is the tools as generated, json.Marshal of maps: every object's members in
// sorted order, each tool already its canonical form. order=server/tools=10000 is the
// same tools written as an SDK writes them (serverOrder), order=indented/tools=10000
// those indented by 2 spaces, as a catalog file may be.
func BenchmarkNewCatalog(b *testing.B) {
	build := func(b *testing.B, tools []json.RawMessage) {
		b.ReportAllocs()
		defer cputime.Report(b)()
		for b.Loop() {
			if _, err := discovery.NewCatalog(tools, catalogOpts); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, n := range catalogSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) { build(b, catalogTools(n)) })
	}
	for _, form := range []string{"server", "indented"} {
		b.Run("order="+form+"/tools=10000", func(b *testing.B) { build(b, catalogToolsIn(b, form, 10000)) })
	}
}

// BenchmarkNewCatalogFloor measures the least any catalog build must do, on the tools of
// BenchmarkNewCatalog (each variant): check every tool is JSON and hash it.
func BenchmarkNewCatalogFloor(b *testing.B) {
	floor := func(b *testing.B, tools []json.RawMessage) {
		b.ReportAllocs()
		defer cputime.Report(b)()
		for b.Loop() {
			for _, t := range tools {
				if !json.Valid(t) {
					b.Fatal("invalid")
				}
				sum := sha256.Sum256(t)
				if sum[0] == 0 && sum[1] == 0 && sum[2] == 0 && sum[3] == 0 {
					b.Log("unlikely") // keeps the hash live
				}
			}
		}
	}
	for _, n := range catalogSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) { floor(b, catalogTools(n)) })
	}
	for _, form := range []string{"server", "indented"} {
		b.Run("order="+form+"/tools=10000", func(b *testing.B) { floor(b, catalogToolsIn(b, form, 10000)) })
	}
}

var (
	formToolsMu sync.Mutex
	formTools   = map[string][]json.RawMessage{}
)

// catalogToolsIn returns catalogTools(n) written in form: "server" (serverOrder,
// compact) or "indented" (serverOrder, indented by 2 spaces), the same on every call.
func catalogToolsIn(tb testing.TB, form string, n int) []json.RawMessage {
	formToolsMu.Lock()
	defer formToolsMu.Unlock()
	key := fmt.Sprintf("%s/%d", form, n)
	if t, ok := formTools[key]; ok {
		return t
	}
	src := catalogTools(n)
	t := make([]json.RawMessage, len(src))
	for i, tool := range src {
		t[i] = serverOrder(tb, tool)
		if form == "indented" {
			var buf bytes.Buffer
			if err := json.Indent(&buf, t[i], "", "  "); err != nil {
				tb.Fatal(err)
			}
			t[i] = buf.Bytes()
		}
	}
	formTools[key] = t
	return t
}

// serverKeys orders the member names of a generated tool as the MCP SDKs write them
// (struct and zod field order, not sorted): a tool's name, title, description,
// inputSchema, annotations; a schema's type, properties, required,
// additionalProperties, then the keywords of its kind, its description last.
var serverKeys = map[string]int{
	"name": 1, "title": 2, "readOnlyHint": 3, "inputSchema": 5, "annotations": 6,
	"type": 10, "properties": 11, "required": 12, "additionalProperties": 13,
	"items": 14, "enum": 15, "minimum": 16, "maximum": 17, "minLength": 18,
	"maxLength": 19, "maxItems": 20, "default": 21, "description": 30,
}

// serverOrder returns the JSON text tool (a generated tool) written compact with each
// object's members in server order: the names of serverKeys in its order, then the
// others (property names, "word_k") in the order they were generated (k), which is
// the order a server declares them in. Only the member order changes, so the canonical
// form is the same.
func serverOrder(tb testing.TB, tool json.RawMessage) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(tool))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		tb.Fatal(err)
	}
	return catalogtest.AppendJSON(nil, v, func(keys []string, depth int) {
		slices.SortFunc(keys, func(x, y string) int { return compareServerKeys(x, y, depth == 0) })
	})
}

// compareServerKeys orders two member names for serverOrder, of the tool's own object
// when top.
func compareServerKeys(x, y string, top bool) int {
	rx, okx := serverRank(x, top)
	ry, oky := serverRank(y, top)
	switch {
	case okx && oky:
		return cmp.Compare(rx, ry)
	case okx: // known keywords first
		return -1
	case oky:
		return 1
	}
	return cmp.Or(cmp.Compare(generatedIndex(x), generatedIndex(y)), strings.Compare(x, y))
}

// serverRank returns the place of a known member name: a tool's description comes
// before its inputSchema, a schema's last.
func serverRank(name string, top bool) (int, bool) {
	if top && name == "description" {
		return 4, true
	}
	r, ok := serverKeys[name]
	return r, ok
}

// generatedIndex returns k of a property name "word_k" (catalogtest.Properties), or -1.
func generatedIndex(name string) int {
	k, err := strconv.Atoi(name[strings.LastIndexByte(name, '_')+1:])
	if err != nil {
		return -1
	}
	return k
}

// TestServerOrderSameTools checks the benchmark's server-order and indented tools are
// the generated tools in another member order: not their text, the same canonical form.
func TestServerOrderSameTools(t *testing.T) {
	sorted := catalogTools(1000)[:200]
	for _, form := range []string{"server", "indented"} {
		tools := catalogToolsIn(t, form, 1000)[:200]
		for i, tool := range tools {
			if bytes.Equal(tool, sorted[i]) {
				t.Fatalf("%s tool %d is the generated text", form, i)
			}
			want, _, err := schemaguard.Canonicalize(nil, sorted[i])
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := schemaguard.Canonicalize(nil, tool)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s tool %d: canonical form %s, want %s", form, i, got, want)
			}
		}
	}
	if got := string(serverOrder(t, json.RawMessage(`{"inputSchema":{"additionalProperties":false,"properties":{"a_10":{"description":"d","type":"string"},"b_2":{}},"type":"object"},"description":"t","name":"n"}`))); got != `{"name":"n","description":"t","inputSchema":{"type":"object","properties":{"b_2":{},"a_10":{"type":"string","description":"d"}},"additionalProperties":false}}` {
		t.Fatalf("serverOrder = %s", got)
	}
}

// BenchmarkNewCatalogIncremental measures swapping in a new version of the 10,000-tool
// catalog, built with the current version as Previous: 10 tools whose text changed under
// the same names ("changed"), or 10 tools gone and 10 others come ("replaced").
func BenchmarkNewCatalogIncremental(b *testing.B) {
	const n, changed = 10000, 10
	tools := catalogTools(n)
	prev, err := discovery.NewCatalog(tools, catalogOpts)
	if err != nil {
		b.Fatal(err)
	}
	for _, keepName := range []bool{true, false} {
		name := map[bool]string{true: "changed", false: "replaced"}[keepName]
		b.Run(name, func(b *testing.B) {
			next := slices.Clone(tools)
			r := rand.New(rand.NewPCG(14, 10))
			for _, i := range r.Perm(n)[:changed] {
				next[i], _, _ = genTool(r, i, 1000+r.IntN(6000))
				if keepName {
					next[i] = renamed(b, next[i], tools[i])
				}
			}
			opts := *catalogOpts
			opts.Previous = prev
			// Two swaps first, then a collection: the timed ones reuse memory the process
			// already touched (a first touch of fresh memory costs far more in a VM than
			// the swap itself) and do not pay for the garbage of building prev.
			for range 2 {
				if _, err := discovery.NewCatalog(next, &opts); err != nil {
					b.Fatal(err)
				}
			}
			runtime.GC()
			b.ReportAllocs()
			defer cputime.Report(b)()
			for b.Loop() {
				if _, err := discovery.NewCatalog(next, &opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// renamed returns tool with the name of like.
func renamed(b *testing.B, tool, like json.RawMessage) json.RawMessage {
	var t, l map[string]any
	if err := json.Unmarshal(tool, &t); err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(like, &l); err != nil {
		b.Fatal(err)
	}
	t["name"] = l["name"]
	out, err := json.Marshal(t)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkFirstCall measures what the default Compiler's lazy compilation adds to a
// tool's first call: compiling its validator (a later call finds it compiled). It
// reports the mean in wall time (ns/tool) and CPU time (cpu-ns/tool), the 99th
// percentile and the slowest over every tool of the catalog BenchmarkNewCatalog builds.
func BenchmarkFirstCall(b *testing.B) {
	tools := catalogTools(10000)
	var all []time.Duration
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		cat, err := discovery.NewCatalog(tools, catalogOpts)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0, _ := cputime.Process()
		all = append(all, discovery.FirstCallTimes(cat)...)
		cpu1, _ := cputime.Process()
		cpu += cpu1 - cpu0
	}
	b.ReportMetric(float64(cpu)/float64(len(all)), "cpu-ns/tool")
	slices.Sort(all)
	var sum time.Duration
	for _, d := range all {
		sum += d
	}
	b.ReportMetric(float64(sum)/float64(len(all)), "ns/tool")
	b.ReportMetric(float64(all[len(all)*99/100]), "p99-ns")
	b.ReportMetric(float64(all[len(all)-1]), "max-ns")
}
