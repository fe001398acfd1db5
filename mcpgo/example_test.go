package mcpgo_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// An mcp-go server with discovery over streamable HTTP: the host's server and tools as
// they were, then the glue (catalog from the server, grants, Discoverer, adapter,
// authentication), then mcp-go's own client as a caller sees it.
func Example() {
	ran := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ran " + req.Params.Name), nil
	}
	s := server.NewMCPServer("weather", "v1")
	s.AddTool(mcp.NewTool("weather_get", mcp.WithDescription("Current weather of a city."),
		mcp.WithString("city", mcp.Required())), ran)
	s.AddTool(mcp.NewTool("secrets_read", mcp.WithDescription("Read a secret."),
		mcp.WithString("key", mcp.Required())), ran)

	// The glue.
	cat, err := mcpgo.CatalogFromServer(s, nil) // tools registered once, with mcp-go
	if err != nil {
		panic(err)
	}
	store := grants.NewMemory() // or grants/sqlstore
	store.Put(context.Background(), grants.Row{Principal: "*", Tool: "weather_get",
		Scopes: []string{"weather:read"}, Effect: grants.Allow, Revision: 1})
	d := discovery.New(&discovery.Options{
		Enabled: true, // discovery.SwitchFromEnv(nil, nil) in production
		Catalog: cat,
		Grants:  store,
	})
	a := mcpgo.New(d, &mcpgo.Options{DiscoveryTool: "search_tools"})
	authenticate := func(next http.Handler) http.Handler { // the host's: here any bearer is alice
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := grants.Principal{ID: "alice", Scopes: []string{"weather:read"}}
			next.ServeHTTP(w, r.WithContext(mcpgo.WithPrincipal(r.Context(), p)))
		})
	}
	srv := httptest.NewServer(authenticate(a.Handler(server.NewStreamableHTTPServer(s))))
	defer srv.Close()
	// Over stdio instead: mcpgo.New(d, &mcpgo.Options{Principal: mcpgo.StaticPrincipal(p)}).ServeStdio(s)

	// A caller, with mcp-go's client.
	ctx := context.Background()
	c, _ := client.NewStreamableHttpClient(srv.URL, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer t"}))
	defer c.Close()
	c.Start(ctx)
	c.Initialize(ctx, mcp.InitializeRequest{})
	list, _ := c.ListTools(ctx, mcp.ListToolsRequest{})
	for _, t := range list.Tools {
		fmt.Println("listed:", t.Name)
	}
	res, _ := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "weather_get", Arguments: map[string]any{"city": "Oslo"}}})
	fmt.Println("weather_get:", res.Content[0].(mcp.TextContent).Text)
	_, err = c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "secrets_read", Arguments: map[string]any{"key": "k"}}})
	fmt.Println("secrets_read:", err)
	// Output:
	// listed: weather_get
	// listed: search_tools
	// weather_get: ran weather_get
	// secrets_read: tool_not_granted
}
