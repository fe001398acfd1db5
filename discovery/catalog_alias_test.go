package discovery_test

import (
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/deferredtools/deferredtools/discovery"
)

// escapedTools are tools whose text holds escapes (a quote, a backslash, a newline) in
// the title, the description, a property's name, description or enum, or nowhere but
// one of these, and non-ASCII text: each reaches another of the build's text paths.
func escapedTools() []json.RawMessage {
	defs := []map[string]any{
		{"name": "quoted_title", "title": `Export "all" reports`, "description": "Exports reports as archive files.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"archive_format": map[string]any{"description": "zip or tarball"}}}},
		{"name": "escaped_param", "description": "Imports notebook cells.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"cell_source": map[string]any{"description": "first line\nsecond \"line\" of the notebook"},
				"kernel":      map[string]any{"enum": []any{`python\3`, "julia"}}}}},
		{"name": "escaped_name", "description": "Audit \"events\" of a cluster\nweekly.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				`node"selector`: map[string]any{"title": "Node selector"}, "region": map[string]any{}}}},
		{"name": "unicode_text", "annotations": map[string]any{"title": "Café\ttokens"}, "description": "Rotate 東京 secrets\u2028now.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"ｆｕｌｌ_width": map[string]any{"description": "naïve déjà vu"}}}},
	}
	out := make([]json.RawMessage, len(defs))
	for i, d := range defs {
		b, err := json.Marshal(d)
		if err != nil {
			panic(err)
		}
		out[i] = b
	}
	return out
}

// textQueries returns, for each tool, two of the words of its text, and the queries
// of previousQueries.
func textQueries(r *rand.Rand, tools []json.RawMessage) []string {
	qs := append([]string(nil), previousQueries...)
	for _, raw := range tools {
		words := strings.FieldsFunc(string(raw), func(c rune) bool { return !unicode.IsLetter(c) })
		if len(words) > 0 {
			qs = append(qs, words[r.IntN(len(words))]+" "+words[r.IntN(len(words))])
		}
	}
	return qs
}

// Every string a build gives rank shares its canonical form's bytes, or is its
// parameter text as spans of them: those bytes are never written, by this build or a
// later one. Builds run concurrently (with Previous from scratch, reading Previous's
// forms again for another Compiler or for parameter text Previous ignored, ignoring it,
// with meta tools), then every catalog's index ranks each query as an index over text
// read afresh from its forms, Previous's forms are byte for byte as before, and each
// catalog built with Previous is the one built from scratch (run with -race).
func TestBuildsShareFormsSoundly(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 9))
	v0 := append(genCatalog(r, 160), escapedTools()...)
	v1, v2 := edit(r, v0, 0), editInOrder(r, v0, 1)
	prev := build(t, v0, nil)
	ignored := build(t, v0, &discovery.CatalogOptions{IgnoreParamText: true})
	before := map[*discovery.Catalog][]discovery.CatalogTool{}
	for _, c := range []*discovery.Catalog{prev, ignored} {
		before[c], _, _, _ = discovery.CatalogState(c)
	}
	metas := append(metaTools(), escapedTools()...)
	builds := []struct {
		tools []json.RawMessage
		opts  discovery.CatalogOptions
	}{
		{v1, discovery.CatalogOptions{Previous: prev}},
		{v2, discovery.CatalogOptions{Previous: prev, IgnoreParamText: true}},
		{v0, discovery.CatalogOptions{Previous: prev, Compiler: newTally()}},
		{v1, discovery.CatalogOptions{Previous: ignored}},
		{v2, discovery.CatalogOptions{}},
		{metas, discovery.CatalogOptions{MetaTools: metaDecls()}},
	}
	got := make([]*discovery.Catalog, 2*len(builds))
	var wg sync.WaitGroup
	for k := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := builds[k%len(builds)]
			c, err := discovery.NewCatalog(b.tools, &b.opts)
			if err != nil {
				t.Error(err)
			}
			got[k] = c
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	runtime.GC()
	queries := textQueries(r, append(append(v0, v1...), metas...))
	for k, c := range append(got, prev, ignored) {
		if q := discovery.IndexTextMismatch(c, queries); q != "" {
			t.Fatalf("catalog %d: %q ranks otherwise than over the text of its forms", k, q)
		}
	}
	for c, want := range before {
		if now, _, _, _ := discovery.CatalogState(c); !slices.Equal(now, want) {
			t.Fatal("a Previous catalog's tools changed after builds from it")
		}
	}
	for k, c := range got[:len(builds)] {
		if b := builds[k]; b.opts.Previous != nil {
			o := b.opts
			o.Previous = nil
			sameCatalog(t, c, build(t, b.tools, &o))
		}
	}
}
