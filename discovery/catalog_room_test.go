package discovery_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
)

// TestCanonicalFormsKeepNoTextRoom checks that a catalog keeps each tool's canonical
// form in memory sized for the form (an allocation size class: at most an eighth more),
// not for the tool's text: indented text shrinks when canonicalized, and a number like
// 1E300 grows (1e+300).
func TestCanonicalFormsKeepNoTextRoom(t *testing.T) {
	space := strings.Repeat(" ", 4000)
	tools := []json.RawMessage{
		json.RawMessage("{" + space + `"name":"indented","description":"` + strings.Repeat("word ", 40) + `",` + space + `"inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"grows","inputSchema":{"type":"object","properties":{"n":{"maximum":1E300,"minimum":-1E300}}}}`),
		json.RawMessage("{\n  \"name\": \"sorted\",\n  \"inputSchema\": {\n    \"type\": \"object\"\n  }\n}"),
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	lens, caps := discovery.CanonicalRoom(cat)
	for i := range lens {
		if caps[i] > lens[i]+lens[i]/8+16 {
			t.Errorf("tool %d: canonical form of %d bytes kept in %d", i, lens[i], caps[i])
		}
	}
}

// TestServedDefinitionsAppendCopy checks that appending to a definition the library
// hands out copies it: the bytes are shared with every caller (and with the catalog's
// text for ranking), so an append must never write into room past them, which another
// caller's append would overwrite. Every way a definition leaves the library:
// Catalog.Tool, ListTools (switch on and off), ListResult.Tool and a discovery page, for
// a plain tool and for a meta tool served with its action enum narrowed.
func TestServedDefinitionsAppendCopy(t *testing.T) {
	ctx := t.Context()
	cat, err := discovery.NewCatalog(append(metaTools(), json.RawMessage(`{"name":"odd","inputSchema":{"type":"object","description":"abc"}}`)),
		&discovery.CatalogOptions{MetaTools: metaDecls()})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, get func() json.RawMessage) {
		t.Helper()
		a, b := get(), get()
		a = append(a, 'A')
		b = append(b, 'B')
		if a[len(a)-1] != 'A' || b[len(b)-1] != 'B' {
			t.Errorf("%s: appends to two callers' definitions share memory: %q, %q", what, a[len(a)-1:], b[len(b)-1:])
		}
	}
	store := newStore(t, allow("*", "odd"), allow("*", "issue.list"), allow("*", "issue.close")) // issue served narrowed
	for _, name := range []string{"odd", "issue"} {
		check("Catalog.Tool("+name+")", func() json.RawMessage { def, _ := cat.Tool(name); return def })
		for _, on := range []bool{true, false} {
			d := newDiscoverer(cat, store, func(o *discovery.Options) { o.Enabled = on })
			check("ListTools "+name, func() json.RawMessage {
				tools, _ := listed(t, d, alice)
				return tools[name]
			})
			check("ListResult.Tool("+name+")", func() json.RawMessage {
				_, list := listed(t, d, alice)
				def, _ := list.Tool(name)
				return def
			})
			if on {
				check("Discover "+name, func() json.RawMessage {
					res, err := d.Discover(ctx, alice, discovery.Request{Query: map[string]string{"odd": "odd abc", "issue": "issues project"}[name]})
					if err != nil || len(res.Tools) == 0 || toolNames(t, res.Tools)[0] != name {
						t.Fatalf("Discover %s: %v, %d tools", name, err, len(res.Tools))
					}
					return res.Tools[0]
				})
			}
		}
	}
	d := newDiscoverer(cat, store, nil)
	if tools, _ := listed(t, d, alice); !slices.Equal(servedEnum(t, tools["issue"], "action"), []string{"list", "close"}) {
		t.Fatalf("issue served as %s: want its enum narrowed, the form this test checks", tools["issue"])
	}
}
