package mcpsdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
	"github.com/deferredtools/deferredtools/mcpsdk/mcpclient"
)

// The adapter on a go-sdk server: the client lists only its granted tool, finds it with
// the discover method, and is refused the other one before its arguments are read.
func Example() {
	ctx := context.Background()
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"get_weather","description":"Current weather of a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`),
		json.RawMessage(`{"name":"delete_city","description":"Delete a city.","inputSchema":{"type":"object"}}`),
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		log.Fatal(err)
	}
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: "*", Tool: "get_weather", Scopes: []string{"weather"}, Effect: grants.Allow, Revision: 1})
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(grants.Principal{ID: "ann", Scopes: []string{"weather"}})})

	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	for _, name := range cat.Names() {
		server.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil
			})
	}
	if err := a.Install(server); err != nil {
		log.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, a.Transport(st), nil); err != nil {
		log.Fatal(err)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil)
	if err := mcpclient.Register(client); err != nil { // lets the client send the discover method
		log.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	list, _ := cs.ListTools(ctx, nil)
	for _, t := range list.Tools {
		fmt.Println("listed:", t.Name)
	}
	page, _ := mcpclient.Discover(ctx, cs, &mcpclient.DiscoverParams{Query: "weather"})
	fmt.Println("discovered:", len(page.Tools), "tool(s)")
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
	fmt.Println("get_weather:", res.Content[0].(*mcp.TextContent).Text)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_city", Arguments: map[string]any{}})
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		fmt.Println("delete_city:", je.Message, string(je.Data))
	}
	// Output:
	// listed: get_weather
	// discovered: 1 tool(s)
	// get_weather: sunny
	// delete_city: tool_not_granted {"error":"tool_not_granted","status":403}
}
