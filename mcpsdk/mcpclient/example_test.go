package mcpclient_test

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

type cityIn struct {
	City string `json:"city"`
}

// weatherServer returns a go-sdk server with five weather tools behind the adapter,
// every tool granted to everyone, connected to the returned client transport.
func weatherServer(ctx context.Context) mcp.Transport {
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	for _, name := range []string{"weather_now", "weather_tomorrow", "weather_week", "weather_alerts", "weather_history"} {
		mcp.AddTool(server, &mcp.Tool{Name: name, Description: "Weather of a city: " + name[len("weather_"):] + "."},
			func(context.Context, *mcp.CallToolRequest, cityIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil, nil
			})
	}
	catalog, err := mcpsdk.NewServerCatalog(ctx, server, nil)
	if err != nil {
		log.Fatal(err)
	}
	store := grants.NewMemory()
	for _, name := range []string{"weather_now", "weather_tomorrow", "weather_week", "weather_alerts", "weather_history"} {
		store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow})
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: catalog, Grants: store})
	a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(grants.Principal{ID: "ann"})})
	a.Install(server)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, a.Transport(st), nil); err != nil {
		log.Fatal(err)
	}
	return ct
}

// A go-sdk client pages through a server's discover results, two tools a page,
// following nextCursor; All does the same in one loop.
func ExampleDiscover() {
	ctx := context.Background()
	transport := weatherServer(ctx)
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil)
	if err := mcpclient.Register(client); err != nil {
		log.Fatal(err)
	}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	params := &mcpclient.DiscoverParams{Query: "weather of a city", Limit: 2}
	for n := 1; ; n++ {
		page, err := mcpclient.Discover(ctx, cs, params)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("page %d: %d tools, more: %t, digest %.7s\n", n, len(page.Tools), page.NextCursor != "", page.ContractDigest())
		if page.NextCursor == "" {
			break
		}
		params.Cursor = page.NextCursor
	}

	var names []string
	for tool, err := range mcpclient.All(ctx, cs, &mcpclient.DiscoverParams{Query: "weather of a city", Limit: 2}) {
		if err != nil {
			log.Fatal(err)
		}
		var t struct{ Name string }
		json.Unmarshal(tool, &t)
		names = append(names, t.Name)
	}
	fmt.Println("all:", names[0], "first of", len(names))

	_, err = mcpclient.Discover(ctx, cs, &mcpclient.DiscoverParams{Query: "weather", Cursor: "forged"})
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		fmt.Println("forged cursor:", je.Code, je.Message)
	}
	// Output:
	// page 1: 2 tools, more: true, digest sha256:
	// page 2: 2 tools, more: true, digest sha256:
	// page 3: 1 tools, more: false, digest sha256:
	// all: weather_now first of 5
	// forged cursor: -32602 invalid_cursor
}
