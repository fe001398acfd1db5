package mcpgo_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// quickStart is the package doc's quick start, line for line (docs'
// TestPackageDocSnippets checks it): it serves the tool over streamable HTTP on mux
// and on stdin and stdout until stdin ends.
func quickStart(ctx context.Context, tool mcp.Tool, handler server.ToolHandlerFunc, store grants.Reader, p grants.Principal,
	mux *http.ServeMux, auth func(http.Handler) http.Handler, stdin io.Reader, stdout io.Writer) error {
	s := server.NewMCPServer("weather", "v1") // the host's server and tools, as before
	s.AddTool(tool, handler)
	cat, err := mcpgo.CatalogFromServer(s, nil) // the catalog from the registered tools
	if err != nil {
		return err
	}
	d := discovery.New(&discovery.Options{Enabled: discovery.SwitchFromEnv(nil, nil), Catalog: cat, Grants: store})
	a := mcpgo.New(d, &mcpgo.Options{DiscoveryTool: "search_tools"})
	mux.Handle("/mcp", auth(a.Handler(server.NewStreamableHTTPServer(s)))) // auth calls mcpgo.WithPrincipal
	// or over stdio, for the principal the host authenticated at launch:
	a = mcpgo.New(d, &mcpgo.Options{Principal: mcpgo.StaticPrincipal(p), DiscoveryTool: "search_tools"})
	return a.Listen(ctx, server.NewStdioServer(s), stdin, stdout) // a.ServeStdio(s): on os.Stdin and os.Stdout
}

// The package doc's quick start, run with the switch on: over stdio (a pipe here) ann
// discovers the granted tool and is refused another; over HTTP, as the principal the
// authentication names, she lists the granted tool and the discovery tool.
func Example_quickStart() {
	os.Setenv(discovery.SwitchVariable, "true")
	defer os.Unsetenv(discovery.SwitchVariable)
	ctx := context.Background()
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: "ann", Tool: "weather_get", Effect: grants.Allow, Revision: 1})
	ann := grants.Principal{ID: "ann"}
	auth := func(next http.Handler) http.Handler { // the host's: here every request is ann's
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcpgo.WithPrincipal(r.Context(), ann)))
		})
	}
	ran := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ran " + req.Params.Name), nil
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	stdin, toServer := io.Pipe()
	fromServer, stdout := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- quickStart(ctx, mcp.NewTool("weather_get", mcp.WithDescription("Current weather of a city."),
			mcp.WithString("city", mcp.Required())), ran, store, ann, mux, auth, stdin, stdout)
	}()

	answers := bufio.NewScanner(fromServer)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"secrets_read","arguments":{}}}`,
	} {
		io.WriteString(toServer, line+"\n")
		answers.Scan()
		fmt.Println("stdio:", strings.Contains(answers.Text(), `"name":"weather_get"`), strings.Contains(answers.Text(), "tool_not_granted"))
	}
	toServer.Close()
	fmt.Println("served stdio until it ended:", <-done == nil)

	c, err := client.NewStreamableHttpClient(srv.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer t"}))
	if err != nil {
		panic(err)
	}
	defer c.Close()
	c.Start(ctx)
	c.Initialize(ctx, mcp.InitializeRequest{})
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		panic(err)
	}
	for _, t := range list.Tools {
		fmt.Println("http listed:", t.Name)
	}
	// Output:
	// stdio: true false
	// stdio: false true
	// served stdio until it ended: true
	// http listed: weather_get
	// http listed: search_tools
}
