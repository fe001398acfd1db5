package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// stdioServerEnv makes the test binary a stdio MCP server of the test catalog, for the
// tests that start it as a subprocess (mcp-go's client, the TypeScript client).
const stdioServerEnv = "MCPGO_TEST_STDIO_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(stdioServerEnv) == "1" {
		f, err := buildFixture(fixtureOptions{enabled: true, principal: mcpgo.StaticPrincipal(alice), tool: "search_tools"})
		if err == nil {
			err = f.a.ServeStdio(f.server)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "stdio server failed")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// bearer is the test's authentication: a bearer token names the principal, put in the
// request's context with WithPrincipal before the adapter's Handler.
func bearer(next http.Handler) http.Handler {
	tokens := map[string]grants.Principal{"tok-alice": alice, "tok-bob": bob}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]; ok {
			r = r.WithContext(mcpgo.WithPrincipal(r.Context(), p))
		}
		next.ServeHTTP(w, r)
	})
}

// httpServer serves the fixture over streamable HTTP behind bearer and the adapter.
func (f *fixture) httpServer(t testing.TB, opts ...server.StreamableHTTPOption) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(bearer(f.a.Handler(server.NewStreamableHTTPServer(f.server, opts...))))
	t.Cleanup(srv.Close)
	return srv
}

// clientFlow is what mcp-go's client saw of one session.
type clientFlow struct {
	listed      []string
	listDigest  any
	discovered  []string
	pages       int
	discoDigest any
	granted     string
	denied      *mcp.JSONRPCErrorDetails
	deniedErr   error
	invalid     *mcp.CallToolResult
	tool        *mcp.CallToolResult
}

// runClient drives c, started: initialize, list, walk discover through the
// transport, call a granted, a denied and an invalid tool and the discovery tool.
func runClient(t *testing.T, c *client.Client) clientFlow {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "mcpgo-test", Version: "v0"}}}); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	var out clientFlow
	lr, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	for _, tool := range lr.Tools {
		out.listed = append(out.listed, tool.Name)
	}
	if lr.Meta != nil {
		out.listDigest = lr.Meta.AdditionalFields[mcpgo.MetaContractDigest]
	}
	cursor := ""
	for id := int64(1000); ; id++ {
		params := map[string]any{"query": "weather", "limit": 3}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id),
			Method: discovery.DefaultMethod, Params: params})
		if err != nil || resp.Error != nil {
			t.Fatalf("discover: %v %+v", err, resp)
		}
		var page struct {
			Tools      []struct{ Name string } `json:"tools"`
			NextCursor string                  `json:"nextCursor"`
			Meta       map[string]any          `json:"_meta"`
		}
		if err := json.Unmarshal(resp.Result, &page); err != nil {
			t.Fatalf("discover result %s: %v", resp.Result, err)
		}
		out.pages++
		for _, tool := range page.Tools {
			out.discovered = append(out.discovered, tool.Name)
		}
		out.discoDigest = page.Meta[mcpgo.MetaContractDigest]
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	call := func(name string, args map[string]any) (*mcp.CallToolResult, error) {
		return c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	}
	res, err := call("weather_get", map[string]any{"city": "Oslo"})
	if err != nil {
		t.Fatalf("granted CallTool: %v", err)
	}
	out.granted = res.Content[0].(mcp.TextContent).Text
	_, out.deniedErr = call("secrets_read", map[string]any{"key": "k"})
	resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(2000)),
		Method: "tools/call", Params: map[string]any{"name": "secrets_read", "arguments": map[string]any{"key": "k"}}})
	if err != nil {
		t.Fatalf("denied call through the transport: %v", err)
	}
	out.denied = resp.Error
	if out.invalid, err = call("weather_get", map[string]any{"city": "x"}); err != nil {
		t.Fatalf("invalid CallTool: %v", err)
	}
	if out.tool, err = call("search_tools", map[string]any{"query": "forecast"}); err != nil {
		t.Fatalf("discovery tool CallTool: %v", err)
	}
	return out
}

// check compares a session with alice's expectations.
func (f *fixture) check(t *testing.T, out clientFlow) {
	t.Helper()
	list, _ := f.d.ListTools(context.Background(), alice)
	if want := append(slices.Clone(wantAliceTools), "search_tools"); !slices.Equal(out.listed, want) {
		t.Errorf("ListTools = %v, want %v", out.listed, want)
	}
	if out.listDigest != list.ContractDigest || out.discoDigest != list.ContractDigest {
		t.Errorf("digests: tools/list %v, discover %v, want %s", out.listDigest, out.discoDigest, list.ContractDigest)
	}
	got := slices.Sorted(slices.Values(out.discovered))
	want := []string{"weather_forecast", "weather_get", "weather_station_0", "weather_station_1",
		"weather_station_2", "weather_station_3", "weather_station_4", "weather_station_5"}
	if !slices.Equal(got, want) || out.pages != 3 {
		t.Errorf("discover walked %v in %d pages, want %v in 3", out.discovered, out.pages, want)
	}
	if out.granted != "ran weather_get" {
		t.Errorf("granted call = %q", out.granted)
	}
	if out.deniedErr == nil || out.deniedErr.Error() != "tool_not_granted" || errors.Is(out.deniedErr, mcp.ErrInvalidParams) {
		t.Errorf("denied CallTool error = %v, want tool_not_granted", out.deniedErr)
	}
	if d := out.denied; d == nil || d.Code != -32000 || d.Message != "tool_not_granted" {
		t.Errorf("denied call = %+v, want -32000 tool_not_granted", d)
	} else if data, _ := json.Marshal(d.Data); string(data) != `{"error":"tool_not_granted","status":403}` {
		t.Errorf("denied call data = %s", data)
	}
	if out.invalid == nil || !out.invalid.IsError || !strings.Contains(out.invalid.Content[0].(mcp.TextContent).Text, `"minLength"`) {
		t.Errorf("invalid call = %+v, want isError naming minLength", out.invalid)
	}
	if out.tool == nil || out.tool.IsError || out.tool.StructuredContent == nil {
		t.Errorf("discovery tool = %+v, want a page as structuredContent", out.tool)
	}
}

// SPEC VIS-3, DISC-1, DISC-3, PAGE-4, CALL-1, CALL-2, ERR-1: mcp-go's own client,
// over stdio to this test binary started as a subprocess (ServeStdio), lists alice's
// tools with her digest, walks the discover method's pages, and gets a granted call
// run, a denied one refused with tool_not_granted (not "tool not found"), an invalid
// one as an isError result, and the discovery tool's page.
func TestMCPGoClientStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewStdioMCPClient(exe, append(os.Environ(), stdioServerEnv+"=1"), "-test.run=^$")
	if err != nil {
		t.Fatalf("NewStdioMCPClient: %v", err)
	}
	defer c.Close()
	f := newFixture(t, fixtureOptions{enabled: true})
	f.check(t, runClient(t, c))
}

// SPEC VIS-3, DISC-1, DISC-3, PAGE-4, CALL-1, CALL-2, ERR-1: the same over streamable
// HTTP, to a real HTTP server, the principal from the bearer token through the
// request's context; in mcp-go's default (stateful) mode and stateless.
func TestMCPGoClientHTTP(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []server.StreamableHTTPOption
	}{{"stateful", nil}, {"stateless", []server.StreamableHTTPOption{server.WithStateLess(true)}}} {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
			srv := f.httpServer(t, mode.opts...)
			c, err := client.NewStreamableHttpClient(srv.URL, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok-alice"}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			f.check(t, runClient(t, c))
		})
	}
}
