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

// exampleDiscoverer returns a Discoverer over three tools, where "*" may search models,
// ana (with the scope models:write) may also delete them, and nobody sees invoices.
func exampleDiscoverer() *discovery.Discoverer {
	ctx := context.Background()
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"model_search","description":"Search the model registry by name or tag.",
			"inputSchema":{"type":"object","properties":{"query":{"type":"string","minLength":1}},"required":["query"],"additionalProperties":false}}`),
		json.RawMessage(`{"name":"model_delete","description":"Delete a model from the model registry.",
			"inputSchema":{"type":"object","properties":{"model":{"type":"string"}},"required":["model"]}}`),
		json.RawMessage(`{"name":"invoice_get","description":"Get an invoice of the billing account.",
			"inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`),
	}, nil)
	if err != nil {
		panic(err)
	}
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: "model_search", Effect: grants.Allow, Revision: 1})
	store.Put(ctx, grants.Row{Principal: "ana", Tool: "model_delete", Scopes: []string{"models:write"}, Effect: grants.Allow, Revision: 1})
	return discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
}

// refusal prints an error as its code and HTTP status.
func refusal(err error) string {
	var e *discovery.Error
	if errors.As(err, &e) {
		return fmt.Sprintf("%s (%d)", string(e.Code), e.Code.Status())
	}
	return fmt.Sprint(err)
}

// Two principals discover tools for the same words and see only what they are granted;
// calls are decided by the grant first, then validated.
func Example() {
	ctx := context.Background()
	d := exampleDiscoverer()
	ana := grants.Principal{ID: "ana", Scopes: []string{"models:write"}}
	ben := grants.Principal{ID: "ben"}

	for _, p := range []grants.Principal{ana, ben} {
		res, err := d.Discover(ctx, p, discovery.Request{Query: "model registry"})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s discovers", p.ID)
		for _, tool := range res.Tools {
			var t struct{ Name string }
			json.Unmarshal(tool, &t)
			fmt.Printf(" %s", t.Name)
		}
		fmt.Printf(" (more: %v)\n", res.NextCursor != "")
	}

	calls := []struct {
		who  grants.Principal
		call discovery.Call
	}{
		{ana, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"model":"acme/old"}`)}},
		{ben, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"model":"acme/old"}`)}},
		{ben, discovery.Call{Tool: "invoice_get", Arguments: json.RawMessage(`{"id":"INV-1"}`)}},
		{ben, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"query":""}`)}},
		{ben, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"query":"llama"}`)}},
	}
	for _, c := range calls {
		if err := d.AuthorizeCall(ctx, c.who, c.call); err != nil {
			fmt.Printf("%s calls %s: %s\n", c.who.ID, c.call.Tool, refusal(err))
			continue
		}
		fmt.Printf("%s calls %s: allowed\n", c.who.ID, c.call.Tool)
	}
	// Output:
	// ana discovers model_delete model_search (more: false)
	// ben discovers model_search (more: false)
	// ana calls model_delete: allowed
	// ben calls model_delete: tool_not_granted (403)
	// ben calls invoice_get: tool_not_granted (403)
	// ben calls model_search: invalid_arguments (400)
	// ben calls model_search: allowed
}

// HandleJSONRPC answers the discover method as bytes in, bytes out, with the HTTP
// status of its answer, and leaves every other message to the host (status 0).
func ExampleDiscoverer_HandleJSONRPC() {
	ctx := context.Background()
	d := exampleDiscoverer()
	ben := grants.Principal{ID: "ben"}

	resp, status := d.HandleJSONRPC(ctx, ben, []byte(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model","limit":17}}`))
	fmt.Println(status, string(resp))
	_, status = d.HandleJSONRPC(ctx, ben, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	fmt.Println(status)
	// Output:
	// 400 {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid_params","data":{"error":"invalid_params","status":400}}}
	// 0
}

// AuthorizeCall reports why an invalid call is refused by the keyword and schema
// location, never by the value.
func ExampleDiscoverer_AuthorizeCall() {
	d := exampleDiscoverer()
	err := d.AuthorizeCall(context.Background(), grants.Principal{ID: "ben"},
		discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"query":""}`)})
	var e *discovery.Error
	if errors.As(err, &e) {
		fmt.Println(string(e.Code), e.Code.Status(), e.Code.JSONRPCCode(), e.Keyword, e.Path)
	}
	// Output:
	// invalid_arguments 400 -32602 minLength /query
}

// SwitchFromEnv turns discovery on from DEFERRED_TOOLS_ENABLED; a value that is not a
// boolean leaves it off with one warning that never repeats the value.
func ExampleSwitchFromEnv() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	for _, v := range []string{"true", "", "yes please"} {
		on := discovery.SwitchFromEnv(func(string) (string, bool) { return v, true }, logger)
		fmt.Printf("%q: %v\n", v, on)
	}
	// Output:
	// "true": true
	// "": false
	// level=WARN msg="deferred tool discovery is off: the setting is not a boolean" setting=DEFERRED_TOOLS_ENABLED
	// "yes please": false
}

// Discover pages through the best matches: each page's NextCursor asks for the next,
// with the same principal, Query and Limit; a cursor sent with another query or limit,
// or after a grant change, answers invalid_cursor, and discovery restarts from page 1.
func ExampleDiscoverer_Discover() {
	ctx := context.Background()
	d := exampleDiscoverer()
	ana := grants.Principal{ID: "ana", Scopes: []string{"models:write"}}

	req := discovery.Request{Query: "model registry", Limit: 1}
	var first string
	for n := 1; ; n++ {
		page, err := d.Discover(ctx, ana, req)
		if err != nil {
			fmt.Println(refusal(err))
			return
		}
		var t struct{ Name string }
		json.Unmarshal(page.Tools[0], &t)
		fmt.Printf("page %d: %s (more: %v)\n", n, t.Name, page.NextCursor != "")
		if n == 1 {
			first = page.NextCursor
		}
		if page.NextCursor == "" {
			break
		}
		req.Cursor = page.NextCursor
	}
	_, err := d.Discover(ctx, ana, discovery.Request{Query: "model", Limit: 1, Cursor: first})
	fmt.Println("another query:", refusal(err))
	_, err = d.Discover(ctx, ana, discovery.Request{Query: "model registry", Limit: 2, Cursor: first})
	fmt.Println("another limit:", refusal(err))
	// Output:
	// page 1: model_delete (more: true)
	// page 2: model_search (more: false)
	// another query: invalid_cursor (400)
	// another limit: invalid_cursor (400)
}
