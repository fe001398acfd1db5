package mcpsdk_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
	"github.com/deferredtools/deferredtools/mcpsdk/mcpclient"
)

// quickStart is the package doc's quick start, line for line (docs'
// TestPackageDocSnippets checks it): it serves server on stdio until the input ends.
func quickStart(ctx context.Context, impl *mcp.Implementation, tool *mcp.Tool, handler mcp.ToolHandlerFor[cityArgs, any],
	store grants.Reader, p grants.Principal, stdio mcp.Transport) error {
	server := mcp.NewServer(impl, nil)
	mcp.AddTool(server, tool, handler)                    // the host's tools, as before
	cat, err := mcpsdk.NewServerCatalog(ctx, server, nil) // the catalog from them, kept current
	if err != nil {
		return err
	}
	d := discovery.New(&discovery.Options{Enabled: discovery.SwitchFromEnv(nil, nil), Catalog: cat, Grants: store})
	a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(p), DiscoveryTool: "search_tools"})
	if err := a.Install(server); err != nil { // tools/list, tools/call, discovery tool
		return err // ErrDiscoveryToolClash
	}
	return server.Run(ctx, a.Transport(stdio)) // stdio: &mcp.StdioTransport{}; the discover method is answered on it
}

// The package doc's quick start, run with the switch on over a pipe in place of stdio:
// the client lists the granted tool and the discovery tool, discovers the tool, and is
// refused one the grants do not name.
func Example_quickStart() {
	os.Setenv(discovery.SwitchVariable, "true")
	defer os.Unsetenv(discovery.SwitchVariable)
	ctx := context.Background()
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: "ann", Tool: "get_weather", Effect: grants.Allow, Revision: 1})
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- quickStart(ctx, &mcp.Implementation{Name: "weather", Version: "v1"},
			&mcp.Tool{Name: "get_weather", Description: "Current weather of a city."}, weatherNow,
			store, grants.Principal{ID: "ann"}, &mcp.IOTransport{Reader: serverIn, Writer: serverOut})
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil)
	if err := mcpclient.Register(client); err != nil {
		log.Fatal(err)
	}
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		log.Fatal(err)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range list.Tools {
		fmt.Println("listed:", t.Name)
	}
	page, err := mcpclient.Discover(ctx, cs, &mcpclient.DiscoverParams{Query: "weather of a city"})
	fmt.Println("discovered:", len(page.Tools), err)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_city", Arguments: map[string]any{}})
	var je *jsonrpc.Error
	fmt.Println("delete_city:", errors.As(err, &je) && je.Message == "tool_not_granted")
	cs.Close()
	fmt.Println("served until the input ended:", <-done == nil)
	// Output:
	// listed: get_weather
	// listed: search_tools
	// discovered: 1 <nil>
	// delete_city: true
	// served until the input ended: true
}
