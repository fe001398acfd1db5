package discovery_test

import (
	"encoding/json"
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

// TestToolAppendCopies checks that appending to the definition Catalog.Tool returns
// copies it: the bytes are shared with every caller and with the catalog's text for
// ranking, so an append must never write into room past them, which another caller's
// append would overwrite.
func TestToolAppendCopies(t *testing.T) {
	cat, err := discovery.NewCatalog([]json.RawMessage{json.RawMessage(`{"name":"odd","inputSchema":{"type":"object","description":"abc"}}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := cat.Tool("odd")
	b, _ := cat.Tool("odd")
	a = append(a, 'A')
	b = append(b, 'B')
	if a[len(a)-1] != 'A' || b[len(b)-1] != 'B' {
		t.Fatalf("appends to two callers' definitions share memory: %q, %q", a[len(a)-1:], b[len(b)-1:])
	}
}

// TestServedDefinitionsAppendCopy is TestToolAppendCopies for every other way a
// definition leaves the library: ListTools (switch on and off), ListResult.Tool and a
// discovery page. Two callers appending to what they were handed never write into the
// same room.
func TestServedDefinitionsAppendCopy(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, json.RawMessage(`{"name":"odd","inputSchema":{"type":"object","description":"abc"}}`))
	check := func(what string, get func() json.RawMessage) {
		t.Helper()
		a, b := get(), get()
		a = append(a, 'A')
		b = append(b, 'B')
		if a[len(a)-1] != 'A' || b[len(b)-1] != 'B' {
			t.Errorf("%s: appends to two callers' definitions share memory: %q, %q", what, a[len(a)-1:], b[len(b)-1:])
		}
	}
	for _, on := range []bool{true, false} {
		d := newDiscoverer(cat, allGranted(t, cat), func(o *discovery.Options) { o.Enabled = on })
		list := func() *discovery.ListResult {
			r, err := d.ListTools(ctx, alice)
			if err != nil || len(r.Tools) != 1 {
				t.Fatalf("ListTools (enabled %v): %v, %d tools", on, err, len(r.Tools))
			}
			return r
		}
		check("ListTools", func() json.RawMessage { return list().Tools[0] })
		check("ListResult.Tool", func() json.RawMessage { def, _ := list().Tool("odd"); return def })
		if on {
			check("Discover", func() json.RawMessage {
				res, err := d.Discover(ctx, alice, discovery.Request{Query: "odd abc"})
				if err != nil || len(res.Tools) != 1 {
					t.Fatalf("Discover: %v", err)
				}
				return res.Tools[0]
			})
		}
	}
}
