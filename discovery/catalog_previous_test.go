package discovery_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/schemaguard"
	"github.com/deferredtools/deferredtools/validate"
)

// tallyCompiler compiles with the default Compiler and counts the schemas it compiled.
type tallyCompiler struct {
	n   atomic.Int64
	def validate.Compiler
}

func newTally() *tallyCompiler { return &tallyCompiler{def: validate.NewCompiler(nil)} }

func (c *tallyCompiler) Compile(schema []byte) (validate.Validator, error) {
	c.n.Add(1)
	return c.def.Compile(schema)
}

// funcCompiler is a Compiler of a type == cannot compare.
type funcCompiler struct {
	compile func([]byte) (validate.Validator, error)
}

func (c funcCompiler) Compile(schema []byte) (validate.Validator, error) { return c.compile(schema) }

// previousQueries are searched on both catalogs a test compares.
var previousQueries = []string{"model", "list datasets", "deploy endpoint version", "billing invoice",
	"gpu usage cost report", "kubernetes", "search models by tag", "token secret", "zzz"}

// previousArgs are validated by each tool of both catalogs a test compares.
var previousArgs = []string{`{}`, `{"x":1}`, `[]`, `{"model_0":"a","deploy_1":5}`}

// sameCatalog fails t unless got, built with Previous, is observably the catalog want,
// built from scratch: names, tool bytes, digests, sizes, toolsets, read-only hints,
// validation results, contract digest and search results.
func sameCatalog(t *testing.T, got, want *discovery.Catalog) {
	t.Helper()
	gt, gv, gc, gs := discovery.CatalogState(got)
	wt, wv, wc, ws := discovery.CatalogState(want)
	if !slices.Equal(gt, wt) {
		for i := range min(len(gt), len(wt)) {
			if gt[i] != wt[i] {
				t.Fatalf("tool %d: with Previous %+v\nfrom scratch %+v", i, gt[i], wt[i])
			}
		}
		t.Fatalf("with Previous %d tools, from scratch %d", len(gt), len(wt))
	}
	if gc != wc || gs != ws {
		t.Fatalf("with Previous contract %s size %+v, from scratch %s %+v", gc, gs, wc, ws)
	}
	if !slices.Equal(got.Names(), want.Names()) {
		t.Fatalf("Names differ")
	}
	for i, name := range want.Names() {
		g, _ := got.Tool(name)
		w, _ := want.Tool(name)
		if string(g) != string(w) {
			t.Fatalf("Tool(%s) differs", name)
		}
		if (gv[i] == nil) != (wv[i] == nil) {
			t.Fatalf("tool %s: validator with Previous %v, from scratch %v", name, gv[i] != nil, wv[i] != nil)
		}
		if gv[i] == nil {
			continue
		}
		for _, a := range previousArgs {
			ge, we := gv[i].Validate([]byte(a)), wv[i].Validate([]byte(a))
			if fmt.Sprint(ge) != fmt.Sprint(we) {
				t.Fatalf("tool %s: Validate(%s) with Previous %v, from scratch %v", name, a, ge, we)
			}
		}
	}
	for _, q := range previousQueries {
		for _, k := range []int{0, 7} {
			if g, w := discovery.CatalogSearch(got, q, k), discovery.CatalogSearch(want, q, k); !slices.Equal(g, w) {
				t.Fatalf("Search(%q, %d): with Previous %v, from scratch %v", q, k, g, w)
			}
		}
	}
}

// build calls NewCatalog, failing t on an error.
func build(t *testing.T, tools []json.RawMessage, opts *discovery.CatalogOptions) *discovery.Catalog {
	t.Helper()
	c, err := discovery.NewCatalog(tools, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// withPrevious returns opts with Previous set to prev.
func withPrevious(opts discovery.CatalogOptions, prev *discovery.Catalog) *discovery.CatalogOptions {
	opts.Previous = prev
	return &opts
}

// edit returns a new version of tools: some removed, some changed (text, or only the
// spacing of the text, which is another text of the same canonical form), some renamed,
// some added, then shuffled.
func edit(r *rand.Rand, tools []json.RawMessage, round int) []json.RawMessage {
	var out []json.RawMessage
	for i, raw := range tools {
		switch r.IntN(12) {
		case 0: // removed
			continue
		case 1: // another tool of the same name
			var def map[string]any
			json.Unmarshal(raw, &def)
			next, _, _ := genTool(r, 7000+round*100+i, 1000+r.IntN(3000))
			var nd map[string]any
			json.Unmarshal(next, &nd)
			nd["name"] = def["name"]
			raw, _ = json.Marshal(nd)
		case 2: // the same tool, spaced
			raw = json.RawMessage(strings.Replace(string(raw), ":", ": ", 1))
		case 3: // renamed
			var def map[string]any
			json.Unmarshal(raw, &def)
			def["name"] = fmt.Sprintf("renamed_%d_%d", round, i)
			raw, _ = json.Marshal(def)
		}
		out = append(out, raw)
	}
	for i := range 1 + r.IntN(5) {
		t, _, _ := genTool(r, 9000+round*100+i, 1000+r.IntN(3000))
		out = append(out, t)
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// SPEC CONTRACT-2: a catalog built with Previous is the catalog built from scratch, over
// versions that remove, add, change, respace, rename and reorder tools, each built with
// the last as Previous; and a Compiler given to both compiles only the tools whose text
// is new.
func TestNewCatalogPreviousSameAsScratch(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	tools := genCatalog(r, 300)
	cc := newTally()
	opts := discovery.CatalogOptions{Compiler: cc, Toolset: func(name string) string { return name[:2] }}
	prev := build(t, tools, &opts)
	for round := range 5 {
		next := edit(r, tools, round)
		newText := newTexts(tools, next)
		before := cc.n.Load()
		got := build(t, next, withPrevious(opts, prev))
		if n := cc.n.Load() - before; n != int64(newText) {
			t.Errorf("round %d: %d schemas compiled with Previous, want %d (the new texts)", round, n, newText)
		}
		sameCatalog(t, got, build(t, next, &opts))
		tools, prev = next, got
	}
	// Unchanged, and in another order: nothing compiled, the same catalog.
	same := slices.Clone(tools)
	r.Shuffle(len(same), func(i, j int) { same[i], same[j] = same[j], same[i] })
	before := cc.n.Load()
	got := build(t, same, withPrevious(opts, prev))
	if n := cc.n.Load() - before; n != 0 {
		t.Errorf("unchanged catalog: %d schemas compiled with Previous, want 0", n)
	}
	sameCatalog(t, got, build(t, same, &opts))
}

// A reused artifact never comes from other options: with another Compiler, or one ==
// cannot compare, every schema is compiled again; with parameter text ignored or read
// where Previous did the other, ranking is the new option's; Toolset is the new one's;
// and the default Compiler's validators are reused.
func TestNewCatalogPreviousOptions(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2))
	tools := genCatalog(r, 120)
	next := edit(r, tools, 0)
	a, b := newTally(), newTally()
	fc := funcCompiler{compile: a.Compile}
	cases := []struct {
		name          string
		prev, opts    discovery.CatalogOptions
		wantCompiled  int64 // by opts.Compiler, when a *tallyCompiler
		countCompiler *tallyCompiler
	}{
		{"other Compiler", discovery.CatalogOptions{Compiler: a}, discovery.CatalogOptions{Compiler: b}, int64(len(next)), b},
		{"default then a Compiler", discovery.CatalogOptions{}, discovery.CatalogOptions{Compiler: b}, int64(len(next)), b},
		{"incomparable Compiler", discovery.CatalogOptions{Compiler: fc}, discovery.CatalogOptions{Compiler: fc}, int64(len(next)), a},
		{"parameter text ignored", discovery.CatalogOptions{}, discovery.CatalogOptions{IgnoreParamText: true}, -1, nil},
		{"parameter text read", discovery.CatalogOptions{IgnoreParamText: true}, discovery.CatalogOptions{}, -1, nil},
		{"other Toolset", discovery.CatalogOptions{Toolset: func(string) string { return "x" }},
			discovery.CatalogOptions{Toolset: func(n string) string { return n[:1] }}, -1, nil},
		{"other Limits", discovery.CatalogOptions{Limits: schemaguard.Limits{MaxBytes: 1 << 30}}, discovery.CatalogOptions{}, -1, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prev := build(t, tools, &tc.prev)
			var before int64
			if tc.countCompiler != nil {
				before = tc.countCompiler.n.Load()
			}
			got := build(t, next, withPrevious(tc.opts, prev))
			if tc.countCompiler != nil {
				if n := tc.countCompiler.n.Load() - before; n != tc.wantCompiled {
					t.Errorf("%d schemas compiled, want %d", n, tc.wantCompiled)
				}
			}
			sameCatalog(t, got, build(t, next, &tc.opts))
		})
	}
	// The default Compiler's validators are reused: the same values.
	prev := build(t, tools, nil)
	got := build(t, tools, withPrevious(discovery.CatalogOptions{}, prev))
	_, pv, _, _ := discovery.CatalogState(prev)
	_, gv, _, _ := discovery.CatalogState(got)
	for i := range gv {
		if gv[i] != nil && reflect.ValueOf(gv[i]).Kind() == reflect.Pointer && gv[i] != pv[i] {
			t.Fatalf("tool %d: default Compiler's validator not reused", i)
		}
	}
}

// A catalog refused with Previous is refused as without: the same index, reason and
// name, whether the offending tool's text is one Previous holds or not.
func TestNewCatalogPreviousRefusesAlike(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 3))
	tools := genCatalog(r, 50)
	prev := build(t, tools, nil)
	other, _, _ := genTool(r, 9999, 2000)
	var sameName map[string]any
	json.Unmarshal(other, &sameName)
	var first map[string]any
	json.Unmarshal(tools[3], &first)
	sameName["name"] = first["name"]
	dupText, _ := json.Marshal(sameName)
	cases := map[string][]json.RawMessage{
		"a tool of Previous twice":                    append(slices.Clone(tools), tools[7]),
		"a tool of Previous then its name again":      append(slices.Clone(tools), dupText),
		"a new tool then a tool of Previous named so": append([]json.RawMessage{dupText}, tools...),
		"malformed after a duplicate":                 append(append(slices.Clone(tools), tools[0]), json.RawMessage(`{`)),
		"malformed before a duplicate":                append(append(slices.Clone(tools), json.RawMessage(`{`)), tools[0]),
		"no inputSchema":                              append(slices.Clone(tools), json.RawMessage(`{"name":"x"}`)),
	}
	limits := discovery.CatalogOptions{Limits: schemaguard.Limits{MaxBytes: 1000}}
	for name, list := range cases {
		t.Run(name, func(t *testing.T) {
			_, want := discovery.NewCatalog(list, nil)
			_, got := discovery.NewCatalog(list, withPrevious(discovery.CatalogOptions{}, prev))
			sameRefusal(t, got, want)
		})
	}
	t.Run("over the limits", func(t *testing.T) {
		_, want := discovery.NewCatalog(tools, &limits)
		_, got := discovery.NewCatalog(tools, withPrevious(limits, prev))
		sameRefusal(t, got, want)
	})
}

func sameRefusal(t *testing.T, got, want error) {
	t.Helper()
	var g, w *discovery.CatalogError
	if !errors.As(want, &w) {
		t.Fatalf("from scratch: %v, want a *CatalogError", want)
	}
	if !errors.As(got, &g) {
		t.Fatalf("with Previous: %v, want %v", got, want)
	}
	if g.Index != w.Index || g.Reason != w.Reason || g.Name != w.Name || g.Error() != w.Error() {
		t.Fatalf("with Previous refused %+v, from scratch %+v", g, w)
	}
}

// SPEC CONTRACT-2: a tool whose text has the length and the ends of a text Previous was
// built from, but other bytes between, is built from its own text: in canonical form
// (compared byte for byte) and not (told apart by its hash).
func TestNewCatalogPreviousSameEnds(t *testing.T) {
	desc := strings.Repeat("lists the models of a project ", 8)
	mk := func(word string, spaced bool) json.RawMessage {
		sep := ":"
		if spaced {
			sep = ": "
		}
		return json.RawMessage(`{"description"` + sep + `"` + desc + word + desc + `","inputSchema"` + sep +
			`{"properties":{"project":{"type":"string"}},"type":"object"},"name"` + sep + `"list_models"}`)
	}
	for _, spaced := range []bool{false, true} {
		prev := build(t, []json.RawMessage{mk("alpha", spaced)}, nil)
		next := []json.RawMessage{mk("omega", spaced)}
		got := build(t, next, withPrevious(discovery.CatalogOptions{}, prev))
		sameCatalog(t, got, build(t, next, nil))
		if c, _ := got.Tool("list_models"); !strings.Contains(string(c), "omega") {
			t.Fatalf("spaced %v: the tool kept Previous's text", spaced)
		}
	}
}

// editInOrder returns a new version of tools keeping their order: a few removed, changed
// (another tool of the same name), respaced, renamed or added at random places, some in
// runs of adjacent tools, so that a tool's position moves by several.
func editInOrder(r *rand.Rand, tools []json.RawMessage, round int) []json.RawMessage {
	var out []json.RawMessage
	for i := 0; i < len(tools); i++ {
		raw := tools[i]
		switch r.IntN(40) {
		case 0: // removed, with up to two after it
			i += r.IntN(3)
			continue
		case 1: // one to three added before it
			for k := range 1 + r.IntN(3) {
				t, _, _ := genTool(r, 20000+round*1000+i*4+k, 800+r.IntN(2000))
				out = append(out, t)
			}
		case 2: // another tool of the same name
			var def, nd map[string]any
			json.Unmarshal(raw, &def)
			next, _, _ := genTool(r, 7000+round*100+i, 800+r.IntN(2000))
			json.Unmarshal(next, &nd)
			nd["name"] = def["name"]
			raw, _ = json.Marshal(nd)
		case 3: // the same tool, spaced
			raw = json.RawMessage(strings.Replace(string(raw), ":", ": ", 1))
		case 4: // renamed
			var def map[string]any
			json.Unmarshal(raw, &def)
			def["name"] = fmt.Sprintf("renamed_%d_%d", round, i)
			raw, _ = json.Marshal(def)
		}
		out = append(out, raw)
	}
	return out
}

// SPEC CONTRACT-2: over a chain of 20 versions, each built with the last as Previous and
// edited in place (tools removed, added, changed, respaced and renamed where they were,
// so that Previous finds most texts near their old positions), every version is the one
// built from scratch, and ranks alike every query of two vocabulary words or fewer; a
// Compiler given to both compiles only the texts that are new.
func TestNewCatalogPreviousChain(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 5))
	tools := genCatalog(r, 400)
	cc := newTally()
	opts := discovery.CatalogOptions{Compiler: cc}
	prev := build(t, tools, &opts)
	var queries []string
	for i, a := range vocabulary {
		queries = append(queries, a, a+" "+vocabulary[(i*7+3)%len(vocabulary)])
	}
	for round := range 20 {
		next := editInOrder(r, tools, round)
		newText := newTexts(tools, next)
		before := cc.n.Load()
		got := build(t, next, withPrevious(opts, prev))
		if n := cc.n.Load() - before; n != int64(newText) {
			t.Fatalf("round %d: %d schemas compiled with Previous, want %d (the new texts)", round, n, newText)
		}
		want := build(t, next, &opts)
		sameCatalog(t, got, want)
		for _, q := range queries {
			if g, w := discovery.CatalogSearch(got, q, 0), discovery.CatalogSearch(want, q, 0); !slices.Equal(g, w) {
				t.Fatalf("round %d: Search(%q): with Previous %v, from scratch %v", round, q, g, w)
			}
		}
		tools, prev = next, got
	}
}

// A chain of 50 versions, each built with the last as Previous and the older ones
// dropped, holds no more memory than its first versions: a version keeps only what it
// shares with Previous, not Previous itself.
func TestNewCatalogPreviousChainMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 6))
	tools := genCatalog(r, 300)
	cur := build(t, tools, nil)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var early uint64
	for round := range 50 {
		tools = editInOrder(r, tools, round)
		cur = build(t, tools, withPrevious(discovery.CatalogOptions{}, cur))
		if round == 4 {
			early = heap()
		}
	}
	late := heap()
	runtime.KeepAlive(cur)
	if late > early+early/4 {
		t.Fatalf("heap after 50 versions %d bytes, after 5 %d: the chain retains old versions", late, early)
	}
}

// Previous stays usable while versions are built from it: searches, tool reads and
// validations on it run concurrently with several builds using it as Previous, and
// answer as before (run with -race).
func TestNewCatalogPreviousConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 7))
	tools := genCatalog(r, 200)
	prev := build(t, tools, nil)
	want := build(t, tools, nil)
	versions := make([][]json.RawMessage, 4)
	for k := range versions {
		versions[k] = editInOrder(r, tools, k)
	}
	var wg sync.WaitGroup
	for _, next := range versions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := discovery.NewCatalog(next, withPrevious(discovery.CatalogOptions{}, prev)); err != nil {
				t.Error(err)
			}
		}()
	}
	for range 3 {
		for _, q := range previousQueries {
			if g, w := discovery.CatalogSearch(prev, q, 5), discovery.CatalogSearch(want, q, 5); !slices.Equal(g, w) {
				t.Errorf("Search(%q) on Previous during builds %v, want %v", q, g, w)
			}
		}
	}
	wg.Wait()
	sameCatalog(t, prev, want)
}

// newTexts counts the tools of next whose text none of tools has: those a Compiler must
// compile when next is built with tools' catalog as Previous.
func newTexts(tools, next []json.RawMessage) int {
	known := map[string]bool{}
	for _, raw := range tools {
		known[string(raw)] = true
	}
	n := 0
	for _, raw := range next {
		if !known[string(raw)] {
			n++
		}
	}
	return n
}
