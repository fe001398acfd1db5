package mcpsdk_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/mcpsdk"
)

type cityArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

func weatherNow(_ context.Context, _ *mcp.CallToolRequest, in cityArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + in.City}}}, nil, nil
}

// Tools are registered once, on the go-sdk server (typed ones included); the catalog
// is built from them and follows later changes (Refresh makes a change current at once).
func ExampleNewServerCatalog() {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "get_weather", Description: "Current weather of a city."}, weatherNow)

	catalog, err := mcpsdk.NewServerCatalog(ctx, server, nil) // before Adapter.Install
	if err != nil {
		log.Fatal(err)
	}
	defer catalog.Close()
	cat, _ := catalog.Catalog(ctx)
	fmt.Println(cat.Names())

	mcp.AddTool(server, &mcp.Tool{Name: "get_forecast", Description: "Forecast of a city."}, weatherNow)
	if err := catalog.Refresh(ctx); err != nil {
		log.Fatal(err)
	}
	cat, _ = catalog.Catalog(ctx)
	fmt.Println(cat.Names())
	// Output:
	// [get_weather]
	// [get_forecast get_weather]
}
