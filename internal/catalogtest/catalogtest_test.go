package catalogtest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/catalogtest"
	"github.com/deferredtools/deferredtools/schemaguard"
	"github.com/deferredtools/deferredtools/validate"
)

// bigLimits lets NewCatalog take catalogs of any size these tests build.
var bigLimits = &discovery.CatalogOptions{Limits: schemaguard.Limits{MaxBytes: 1 << 30, MaxNodes: 1 << 28}}

// sources returns the built-in source and, when ../shared/data is present, the real one.
func sources(t *testing.T) map[string]*catalogtest.Source {
	t.Helper()
	m := map[string]*catalogtest.Source{"builtin": catalogtest.Builtin()}
	if s := realSource(t, false); s != nil {
		m["real"] = s
	}
	return m
}

// realSource loads the real catalogs, or skips (need) or returns nil when absent.
func realSource(t *testing.T, need bool) *catalogtest.Source {
	t.Helper()
	dir := catalogtest.DataDir()
	if dir == "" {
		if need {
			t.Skip("real catalogs absent: ../shared/data/catalogs not found beside the module root")
		}
		t.Log("real catalogs absent (../shared/data/catalogs): testing the built-in source only")
		return nil
	}
	s, err := catalogtest.Load(dir)
	if err != nil {
		t.Fatalf("Load(%s): %v", dir, err)
	}
	return s
}

type toolDef struct {
	Name        string          `json:"name"`
	Title       *string         `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func parse(t *testing.T, raw json.RawMessage) toolDef {
	t.Helper()
	var d toolDef
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("generated tool is not JSON: %v\n%s", err, raw)
	}
	return d
}

func TestLoadReadsEveryRealTool(t *testing.T) {
	s := realSource(t, true)
	if got := s.Templates(); got != 698 {
		t.Errorf("Load: %d templates, want the 698 tools of PROVENANCE.md", got)
	}
	if !s.Real() {
		t.Error("Load: Real() = false")
	}
	if catalogtest.Builtin().Real() {
		t.Error("Builtin: Real() = true")
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	for name, s := range sources(t) {
		a, b := s.Generate(7, 500), s.Generate(7, 500)
		for i := range a.Tools {
			if !bytes.Equal(a.Tools[i], b.Tools[i]) {
				t.Fatalf("%s: Generate(7, 500) differs between calls at tool %d:\n%s\n%s", name, i, a.Tools[i], b.Tools[i])
			}
		}
		if qa, qb := a.Queries(3, 50), b.Queries(3, 50); !slices.Equal(qa, qb) {
			t.Errorf("%s: Queries(3, 50) differs between calls", name)
		}
		c := s.Generate(8, 500)
		same := 0
		for i := range a.Tools {
			if bytes.Equal(a.Tools[i], c.Tools[i]) {
				same++
			}
		}
		if same > 5 {
			t.Errorf("%s: seeds 7 and 8 give %d identical tools of 500", name, same)
		}
	}
}

// TestGenerateIsDistinct checks names and descriptions are unique, no tool is a copy
// of its template, and Names matches the tools.
func TestGenerateIsDistinct(t *testing.T) {
	for name, s := range sources(t) {
		n := 10000
		if testing.Short() {
			n = 2000
		}
		c := s.Generate(1, n)
		names, descs := map[string]bool{}, map[string]bool{}
		for i, raw := range c.Tools {
			d := parse(t, raw)
			if d.Name != c.Names[i] {
				t.Fatalf("%s: tool %d named %q, Names[%d] = %q", name, i, d.Name, i, c.Names[i])
			}
			if names[d.Name] {
				t.Fatalf("%s: name %q twice", name, d.Name)
			}
			names[d.Name] = true
			if descs[d.Description] {
				t.Fatalf("%s: description %q twice", name, d.Description)
			}
			descs[d.Description] = true
		}
	}
}

// TestNoCopiesOfTheRealTools checks no generated tool equals a real tool.
func TestNoCopiesOfTheRealTools(t *testing.T) {
	s := realSource(t, true)
	real := map[string]bool{}
	for _, raw := range catalogtest.RealTools(t) {
		canon, _, err := schemaguard.Canonicalize(nil, raw)
		if err != nil {
			t.Fatal(err)
		}
		real[string(canon)] = true
	}
	c := s.Generate(2, 5000)
	for i, raw := range c.Tools {
		canon, _, err := schemaguard.Canonicalize(nil, raw)
		if err != nil {
			t.Fatalf("tool %d: %v", i, err)
		}
		if real[string(canon)] {
			t.Errorf("tool %d (%s) is a copy of a real tool", i, c.Names[i])
		}
	}
}

// TestEveryToolAccepted checks NewCatalog takes every generated catalog, and that the
// default compiler enforces about the same share of generated schemas as of the
// templates' (the rest answer tool_validation_unavailable, as their templates do).
func TestEveryToolAccepted(t *testing.T) {
	comp := validate.NewCompiler(nil)
	share := func(tools []json.RawMessage) float64 {
		ok := 0
		for _, raw := range tools {
			var d toolDef
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			if v, err := comp.Compile(d.InputSchema); v != nil && err == nil {
				ok++
			}
		}
		return float64(ok) / float64(len(tools))
	}
	for name, s := range sources(t) {
		c := s.Generate(3, 3000)
		if _, err := discovery.NewCatalog(c.Tools, bigLimits); err != nil {
			var ce *discovery.CatalogError
			if errors.As(err, &ce) && ce.Index >= 0 {
				t.Fatalf("%s: NewCatalog refused tool %d: %v\n%s", name, ce.Index, err, c.Tools[ce.Index])
			}
			t.Fatalf("%s: NewCatalog: %v", name, err)
		}
		got := share(c.Tools)
		t.Logf("%s: %.1f%% of 3,000 generated schemas compile with the bounded validator", name, 100*got)
		if name == "real" {
			want := share(catalogtest.RealTools(t))
			t.Logf("real: %.1f%% of the 698 real schemas compile", 100*want)
			if got < want-0.05 || got > want+0.05 {
				t.Errorf("generated schemas compile %.3f of the time, real ones %.3f: want within 0.05", got, want)
			}
		}
	}
}

// canonicalSizes returns the sorted canonical sizes in bytes of tools.
func canonicalSizes(t *testing.T, tools []json.RawMessage) []int {
	sizes := make([]int, len(tools))
	for i, raw := range tools {
		canon, _, err := schemaguard.Canonicalize(nil, raw)
		if err != nil {
			t.Fatal(err)
		}
		sizes[i] = len(canon)
	}
	slices.Sort(sizes)
	return sizes
}

func quantile(sorted []int, q float64) int { return sorted[int(q*float64(len(sorted)-1))] }

// TestSizesFollowTheRealCatalogs checks the median and 90th percentile of canonical
// bytes per tool are within 15% of the real catalogs'.
func TestSizesFollowTheRealCatalogs(t *testing.T) {
	s := realSource(t, true)
	real := canonicalSizes(t, catalogtest.RealTools(t))
	generated := s.Generate(4, 10000).Tools
	gen := canonicalSizes(t, generated)
	for _, q := range []float64{0.5, 0.9} {
		r, g := quantile(real, q), quantile(gen, q)
		t.Logf("p%02.0f bytes per tool: generated %d, real %d (%.2f×)", q*100, g, r, float64(g)/float64(r))
		if float64(g) < 0.85*float64(r) || float64(g) > 1.15*float64(r) {
			t.Errorf("p%02.0f: generated %d bytes, real %d: want within 15%%", q*100, g, r)
		}
	}
	t.Logf("max bytes per tool: generated %d, real %d", gen[len(gen)-1], real[len(real)-1])
	raw := 0
	for _, tool := range generated {
		raw += len(tool)
	}
	t.Logf("JSON as generated: %.2f KB per tool, %.1f MB at 10,000 tools", float64(raw)/10000/1e3, float64(raw)/1e6)
}

// The real catalogs' own Heaps' β, the figure TestVocabularyGrows' bounds are set
// around: distinct words at 698 tools over those at 70, the tools in a random order
// (the mean over 20 orders).
func TestRealVocabularyBeta(t *testing.T) {
	real := catalogtest.RealTools(t)
	r := rand.New(rand.NewPCG(1, 2))
	sum := 0.0
	for range 20 {
		tools := slices.Clone(real)
		r.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		small, all := vocabulary(t, tools[:len(tools)/10]), vocabulary(t, tools)
		sum += math.Log(float64(all)/float64(small)) / math.Log(float64(len(tools))/float64(len(tools)/10))
	}
	beta := sum / 20
	t.Logf("real: β = %.2f from %d to %d tools (mean of 20 orders)", beta, len(real)/10, len(real))
	if beta < 0.35 || beta > 0.65 {
		t.Errorf("real catalogs' β = %.2f: outside the 0.35 to 0.65 TestVocabularyGrows asks of the generator", beta)
	}
}

// vocabulary returns the distinct lower-case words of the names, titles and
// descriptions of tools.
func vocabulary(t *testing.T, tools []json.RawMessage) int {
	words := map[string]bool{}
	for _, raw := range tools {
		d := parse(t, raw)
		text := d.Name + " " + d.Description
		if d.Title != nil {
			text += " " + *d.Title
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
			words[w] = true
		}
	}
	return len(words)
}

// TestVocabularyGrows checks the vocabulary of names, titles and descriptions grows
// with the catalog less than linearly, as in real text (Heaps' law V = K·n^β): from
// 1,000 to 10,000 generated tools β must lie between 0.35 and 0.65 for the real source
// (the real catalogs' own β, from 70 to 698 tools in random order, is about 0.50);
// the built-in source, whose vocabulary is tiny, must only grow, by 1.5× to 10×.
func TestVocabularyGrows(t *testing.T) {
	for name, s := range sources(t) {
		v1 := vocabulary(t, s.Generate(5, 1000).Tools)
		v10 := vocabulary(t, s.Generate(5, 10000).Tools)
		beta := math.Log10(float64(v10) / float64(v1))
		t.Logf("%s: %d distinct words at 1,000 tools, %d at 10,000: β = %.2f", name, v1, v10, beta)
		lo, hi := 0.35, 0.65
		if name == "builtin" {
			lo, hi = math.Log10(1.5), 1
		}
		if beta < lo || beta > hi {
			t.Errorf("%s: vocabulary %d at 1,000 tools, %d at 10,000: β = %.2f, want %.2f to %.2f", name, v1, v10, beta, lo, hi)
		}
	}
}

// TestQueriesUseTheCatalogVocabulary checks queries are one to three words, mostly
// found in the catalog's text.
func TestQueriesUseTheCatalogVocabulary(t *testing.T) {
	for name, s := range sources(t) {
		c := s.Generate(6, 1000)
		var text strings.Builder
		for _, raw := range c.Tools {
			d := parse(t, raw)
			text.WriteString(strings.ToLower(d.Name + " " + d.Description + " "))
		}
		all := text.String()
		found, words := 0, 0
		for _, q := range c.Queries(1, 200) {
			f := strings.Fields(q)
			if len(f) < 1 || len(f) > 3 {
				t.Fatalf("%s: query %q has %d words, want 1 to 3", name, q, len(f))
			}
			for _, w := range f {
				words++
				if strings.Contains(all, w) {
					found++
				}
			}
		}
		if found < words*8/10 {
			t.Errorf("%s: %d of %d query words occur in the catalog, want 80%%", name, found, words)
		}
	}
}

// TestDefaultWithoutData checks Default falls back to the built-in source where no
// ../shared/data is found beside a module root.
func TestDefaultWithoutData(t *testing.T) {
	t.Chdir(t.TempDir())
	if dir := catalogtest.DataDir(); dir != "" {
		t.Skipf("a module root with ../shared/data lies above %s", dir)
	}
	s, err := catalogtest.Default()
	if err != nil {
		t.Fatal(err)
	}
	if s.Real() || s.Templates() != catalogtest.Builtin().Templates() {
		t.Errorf("Default() without data = %s, want the built-in source", s)
	}
	if _, err := catalogtest.Load(t.TempDir()); !errors.Is(err, catalogtest.ErrNoData) {
		t.Errorf("Load(empty dir) = %v, want ErrNoData", err)
	}
}
