package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// readmeWiring is the README's "Wiring it in" snippet: the catalog, the grants, the
// Discoverer, then one discover, one tools/list, two calls and one JSON-RPC message for
// a principal.
func readmeWiring(ctx context.Context, tools []json.RawMessage, logger *slog.Logger) error {
	catalog, err := discovery.NewCatalog(tools, nil) // once per catalog version
	if err != nil {
		return err // a *discovery.CatalogError says which tool and why
	}
	store := grants.NewMemory() // or sqlstore.New(db, sqlstore.Postgres): see Grants in a database
	store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: "model_search", Scopes: []string{"registry:read"}, Effect: grants.Allow})
	d := discovery.New(&discovery.Options{
		Enabled: discovery.SwitchFromEnv(nil, logger), // DEFERRED_TOOLS_ENABLED=true turns it on; off by default
		Catalog: catalog,
		Grants:  store,
	})

	p := grants.Principal{ID: "alice", Scopes: []string{"registry:read"}} // your authentication
	page, err := d.Discover(ctx, p, discovery.Request{Query: "model search"})
	if err != nil {
		return err // a *discovery.Error: errors.As gives e.Code, e.Code.Status()
	}
	list, err := d.ListTools(ctx, p) // tools/list: the authorised set and its contract digest
	if err != nil {
		return err
	}
	fmt.Println("discovered", len(page.Tools), "listed", len(list.Tools), page.ContractDigest == list.ContractDigest)

	err = d.AuthorizeCall(ctx, p, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"query":"bert"}`)})
	fmt.Println("model_search:", err) // nil: execute the call
	err = d.AuthorizeCall(ctx, p, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{}`)})
	fmt.Println("model_delete:", errors.Is(err, discovery.CodeToolNotGranted), discovery.CodeToolNotGranted.Status())

	// Or bytes in, bytes out at your JSON-RPC layer (AppendJSONRPC reuses your buffer):
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model search"}}`)
	resp, status := d.HandleJSONRPC(ctx, p, msg) // status 0: not discovery's, leave it to your server
	fmt.Println("HandleJSONRPC:", status, len(resp) > 0)
	return nil
}

// The README's "Wiring it in", run with the switch on.
func Example_readme() {
	os.Setenv(discovery.SwitchVariable, "true")
	defer os.Unsetenv(discovery.SwitchVariable)
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"model_search","description":"Search the model registry.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}`),
		json.RawMessage(`{"name":"model_delete","description":"Delete a model.","inputSchema":{"type":"object"}}`),
	}
	if err := readmeWiring(context.Background(), tools, slog.Default()); err != nil {
		fmt.Println(err)
	}
	// Output:
	// discovered 1 listed 1 true
	// model_search: <nil>
	// model_delete: true 403
	// HandleJSONRPC: 200 true
}
