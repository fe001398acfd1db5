package discovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
)

// SPEC DISC-3, CALL-2: a Discoverer from ReserveToolName decides on the catalog
// version each request uses whether it holds the reserved name. While versions
// without and with a tool of that name swap as fast as they can, no list or page
// holds that tool, a call of the name never reaches its arguments, and calls of other
// tools go on; the Discoverer it was derived from reserves nothing.
func TestReserveToolNameUnderSwaps(t *testing.T) {
	ctx := context.Background()
	const mark = "RESERVED-NAME-CATALOG-SCHEMA"
	plain := []json.RawMessage{json.RawMessage(`{"name":"get_weather","description":"Weather of a city.","inputSchema":{"type":"object"}}`)}
	free, err := discovery.NewCatalog(plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	clash, err := discovery.NewCatalog(append(plain, json.RawMessage(`{"name":"search_tools","description":"Weather search `+mark+`","inputSchema":{"type":"object"}}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := grants.NewMemory()
	for _, tool := range []string{"get_weather", "search_tools"} {
		g.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: tool, Effect: grants.Allow})
	}
	var sw discovery.SwappableCatalog
	sw.Store(clash)
	base := discovery.New(&discovery.Options{Enabled: true, Catalog: &sw, Grants: g})
	d := base.ReserveToolName("search_tools")
	p := grants.Principal{ID: "ann"}

	// Before any swap: the base serves the catalog tool, the reserving one refuses.
	if _, err := base.Catalog(ctx); err != nil {
		t.Fatalf("base Catalog = %v, want the version", err)
	}
	if _, err := d.Catalog(ctx); !errors.Is(err, discovery.ErrToolNameReserved) || !errors.Is(err, discovery.CodeCatalogUnavailable) {
		t.Fatalf("reserving Catalog = %v, want catalog_unavailable caused by ErrToolNameReserved", err)
	}
	if list, err := base.ListTools(ctx, p); err != nil || len(list.Tools) != 2 {
		t.Fatalf("base ListTools = %v, %v: want both tools", list, err)
	}
	if discovery.New(&discovery.Options{Catalog: &sw}).ReserveToolName("search_tools").AuthorizeCall(ctx, p, discovery.Call{Tool: "search_tools"}) != nil {
		t.Fatal("switch off: a reserved name's call refused, want every call allowed (FLAG-2)")
	}

	adaptertest.Flip(t, &sw, free, clash)

	refused := 0
	check := func(what string, b []byte, err error) {
		t.Helper()
		if bytes.Contains(b, []byte(mark)) {
			t.Fatalf("%s served the reserved name's catalog tool: %s", what, b)
		}
		switch {
		case errors.Is(err, discovery.ErrToolNameReserved):
			refused++
		case err != nil:
			t.Fatalf("%s: %v", what, err)
		}
	}
	for range 2000 {
		list, err := d.ListTools(ctx, p)
		if err == nil {
			b, _ := json.Marshal(list.Tools)
			check("ListTools", b, nil)
		} else {
			check("ListTools", nil, err)
		}
		page, err := d.DiscoverParams(ctx, p, json.RawMessage(`{"query":"weather search"}`))
		if err == nil {
			check("DiscoverParams", page.AppendJSON(nil), nil)
		} else {
			check("DiscoverParams", nil, err)
		}
		page, err = d.DiscoverTool(ctx, p, json.RawMessage(`{"query":"weather search","bad":1}`))
		if err == nil || !errors.Is(err, discovery.ErrToolNameReserved) && !errors.Is(err, discovery.CodeInvalidParams) {
			t.Fatalf("DiscoverTool with an unknown argument = %v, want invalid_params or catalog_unavailable", err)
		}
		resp, _ := d.HandleJSONRPC(ctx, p, []byte(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather search"}}`))
		check("HandleJSONRPC", resp, nil)
		// A call of the reserved name: catalog_unavailable on the version holding it,
		// tool_not_granted (unknown) on the other; never its arguments' verdict.
		err = d.AuthorizeCall(ctx, p, discovery.Call{Tool: "search_tools", Arguments: json.RawMessage(`{"x":`)})
		if !errors.Is(err, discovery.ErrToolNameReserved) && !errors.Is(err, discovery.CodeToolNotGranted) {
			t.Fatalf("AuthorizeCall of the reserved name = %v", err)
		}
		if err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: "get_weather"}); err != nil {
			t.Fatalf("AuthorizeCall of another tool = %v, want nil", err)
		}
	}
	if refused == 0 {
		t.Error("no request met the version holding the reserved name")
	}
}
