package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// ReserveToolName's doc: "d is unchanged (a name d reserves is not carried over: one
// name per Discoverer); an empty name returns d."
func TestReserveToolNameOneNameEmptyIsSelf(t *testing.T) {
	ctx := context.Background()
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"get_weather","description":"Weather of a city.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"search_tools","description":"A host tool of the reserved name.","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := grants.NewMemory()
	for _, tool := range []string{"get_weather", "search_tools"} {
		if _, err := g.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: tool, Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	base := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: g})
	if base.ReserveToolName("") != base {
		t.Error(`ReserveToolName("") is not the Discoverer itself`)
	}
	reserving := base.ReserveToolName("search_tools")
	if _, err := reserving.ListTools(ctx, grants.Principal{ID: "ann"}); !errors.Is(err, discovery.CodeCatalogUnavailable) {
		t.Fatalf("reserving search_tools over a catalog holding it: ListTools error %v, want catalog_unavailable", err)
	}
	if reserving.ReserveToolName("") != reserving {
		t.Error(`ReserveToolName("") of a reserving Discoverer is not itself`)
	}
	// Reserving another name replaces the first: search_tools is served again.
	other := reserving.ReserveToolName("find_tools")
	list, err := other.ListTools(ctx, grants.Principal{ID: "ann"})
	if err != nil {
		t.Fatalf("ReserveToolName(search_tools).ReserveToolName(find_tools).ListTools: %v, want the catalog (one name per Discoverer)", err)
	}
	if _, ok := list.Tool("search_tools"); !ok {
		t.Error("the second reservation's Discoverer does not serve search_tools")
	}
	if err := other.AuthorizeTool(ctx, grants.Principal{ID: "ann"}, "search_tools"); err != nil {
		t.Errorf("AuthorizeTool(search_tools) under the second reservation: %v, want nil", err)
	}
}
