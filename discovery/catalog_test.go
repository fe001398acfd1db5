package discovery_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// Annotations are hints: a wrong-typed readOnlyHint or title is read as absent and never
// refuses the catalog; only the literal true makes a tool read-only (SPEC VIS-1).
func TestCatalogAnnotationsAreHints(t *testing.T) {
	ctx := context.Background()
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"a_true","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`),
		json.RawMessage(`{"name":"b_string","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"true","title":7}}`),
		json.RawMessage(`{"name":"c_null","description":"d","inputSchema":{"type":"object"},"annotations":null}`),
		json.RawMessage(`{"name":"d_array","description":"d","inputSchema":{"type":"object"},"annotations":[true]}`),
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		t.Fatalf("NewCatalog with wrong-typed annotations: %v, want the catalog accepted", err)
	}
	store := grants.NewMemory()
	for _, n := range cat.Names() {
		if _, err := store.Put(ctx, grants.Row{Principal: "p", Tool: n, Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store,
		Visibility: discovery.Visibility{ReadOnly: true}})
	list, err := d.ListTools(ctx, grants.Principal{ID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, raw := range list.Tools {
		var tool struct{ Name string }
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if len(names) != 1 || names[0] != "a_true" {
		t.Errorf("read-only ListTools = %v, want [a_true] (only the literal true is read-only)", names)
	}
}
