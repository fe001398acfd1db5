package discovery

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
)

// FuzzNewCatalogPrevious checks, for any two tool texts a and b, that the catalog of
// [b, a, base...] built with Previous (the catalog of [base..., a], or of base when that
// is refused) is the one built without: refused alike (index, reason, name), or equal
// tool by tool, in contract digest and in what a query of b's words ranks.
func FuzzNewCatalogPrevious(f *testing.F) {
	base := []json.RawMessage{
		json.RawMessage(`{"name":"list_models","description":"List models.","inputSchema":{"type":"object","properties":{"tag":{"type":"string","description":"model tag"}}}}`),
		json.RawMessage(`{"name":"get_model","description":"Get a model.","inputSchema":{"type":"object"}}`),
	}
	f.Add(`{"name":"deploy","description":"Deploy a model.","inputSchema":{"type":"object"}}`, `{"name":"deploy","description":"Deploy it.","inputSchema":{"type":"object"}}`)
	f.Add(`{"name":"a","inputSchema":{}}`, `{"name":"a","inputSchema":{}}`)
	f.Add(`{"name":"a","inputSchema":{}}`, ` {"inputSchema":{},"name":"a"}`)
	f.Add(string(base[0]), `{"name":"get_model","inputSchema":{"type":"object","properties":{"x":{}}}}`)
	f.Add(`{"name":"a","inputSchema":{}}`, `{`)
	f.Add(`{"name":"b","inputSchema":[]}`, `{"name":"list_models","inputSchema":{}}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		prev, err := NewCatalog(append(slices.Clone(base), json.RawMessage(a)), nil)
		if err != nil {
			prev, _ = NewCatalog(base, nil)
		}
		tools := append([]json.RawMessage{json.RawMessage(b), json.RawMessage(a)}, base...)
		want, werr := NewCatalog(tools, nil)
		got, gerr := NewCatalog(tools, &CatalogOptions{Previous: prev})
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("with Previous: %v; from scratch: %v", gerr, werr)
		}
		if werr != nil {
			var g, w *CatalogError
			if !errors.As(werr, &w) || !errors.As(gerr, &g) || g.Index != w.Index || g.Reason != w.Reason || g.Name != w.Name {
				t.Fatalf("with Previous refused %v; from scratch %v", gerr, werr)
			}
			return
		}
		if len(got.tools) != len(want.tools) || got.contract != want.contract || got.total != want.total {
			t.Fatalf("with Previous %d tools, contract %s; from scratch %d, %s", len(got.tools), got.contract, len(want.tools), want.contract)
		}
		for i := range got.tools {
			g, w := &got.tools[i], &want.tools[i]
			gv, _ := g.compiled()
			wv, _ := w.compiled()
			if g.name != w.name || string(g.canonical) != string(w.canonical) || g.digest != w.digest ||
				g.readOnly != w.readOnly || g.strEscapes != w.strEscapes || g.rawEscapes != w.rawEscapes ||
				(gv == nil) != (wv == nil) {
				t.Fatalf("tool %d differs with Previous", i)
			}
		}
		all := rank.NewSet(len(got.tools))
		for i := range got.tools {
			all.Add(i)
		}
		for _, q := range []string{b, a, "model"} {
			if g, w := got.index.Search(nil, q, all, 0), want.index.Search(nil, q, all, 0); !slices.Equal(g, w) {
				t.Fatalf("Search(%q) with Previous %v, from scratch %v", q, g, w)
			}
		}
	})
}
