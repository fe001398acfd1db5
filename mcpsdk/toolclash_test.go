package mcpsdk_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
	"github.com/deferredtools/deferredtools/mcpsdk/mcpclient"
)

// clashClient serves s through an adapter whose discovery tool is named tool, on the
// adapter's Transport, and returns a go-sdk client that can send the discover method.
func clashClient(t *testing.T, s *mcp.Server, d *discovery.Discoverer, tool string) *mcp.ClientSession {
	t.Helper()
	a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(grants.Principal{ID: "ann"}), DiscoveryTool: tool})
	a.Install(s) // the clash comes later: nothing to refuse yet
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), a.Transport(st), nil); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
	if err := mcpclient.Register(c); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// wantRefusal fails unless err is the adapter's JSON-RPC error of code.
func wantRefusal(t *testing.T, what string, err error, code discovery.Code) {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != string(code) {
		t.Errorf("%s: error %v, want the JSON-RPC error %s", what, err, code)
	}
}

// A discovery tool named like a catalog tool is refused where it can be seen: Install
// returns ErrDiscoveryToolClash when the catalog holds the name already.
func TestInstallRefusesDiscoveryToolClash(t *testing.T) {
	s := typedServer()
	sc := newServerCatalog(t, s, nil)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: sc, Grants: allowAll(t, "add", "echo", "simple_text")})
	a := mcpsdk.New(d, &mcpsdk.Options{DiscoveryTool: "echo"})
	if err := a.Install(s); !errors.Is(err, mcpsdk.ErrDiscoveryToolClash) {
		t.Fatalf("Install with DiscoveryTool naming a catalog tool = %v, want ErrDiscoveryToolClash", err)
	}
	if err := mcpsdk.New(d, &mcpsdk.Options{DiscoveryTool: "search_tools"}).Install(typedServer()); err != nil {
		t.Fatalf("Install with a free DiscoveryTool name = %v, want nil", err)
	}
	if err := mcpsdk.New(d, nil).Install(typedServer()); err != nil {
		t.Fatalf("Install without a discovery tool = %v, want nil", err)
	}
	off := discovery.New(&discovery.Options{Catalog: sc})
	if err := mcpsdk.New(off, &mcpsdk.Options{DiscoveryTool: "echo"}).Install(typedServer()); err != nil {
		t.Fatalf("Install while the switch is off = %v, want nil (nothing is served)", err)
	}
}

// A catalog tool added later under the discovery tool's name never gets two schemas
// under one name: while the catalog version holds it, tools/list, the discover method
// and calls to that name answer catalog_unavailable (503), so neither the catalog's
// schema nor the discovery tool's is served under it; other calls go on. Before, tools/list
// served the discovery tool while discover served the catalog tool under the same
// name, and the contract digest covered a tool tools/list never listed.
func TestDiscoveryToolClashAfterChange(t *testing.T) {
	ctx := context.Background()
	s := typedServer()
	sc := newServerCatalog(t, s, nil)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: sc, Grants: allowAll(t, "add", "echo", "simple_text", "get_weather")})
	cs := clashClient(t, s, d, "get_weather")

	if names := listed(t, cs); len(names) != 4 {
		t.Fatalf("tools/list before the clash = %v, want the three tools and the discovery tool", names)
	}
	addEmptyTool(s, "get_weather", "Weather of a city.")
	if err := sc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := cs.ListTools(ctx, nil)
	wantRefusal(t, "tools/list", err, discovery.CodeCatalogUnavailable)
	_, err = mcpclient.Discover(ctx, cs, &mcpclient.DiscoverParams{Query: "weather city"})
	wantRefusal(t, "discover", err, discovery.CodeCatalogUnavailable)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"query": "weather"}})
	wantRefusal(t, "tools/call get_weather", err, discovery.CodeCatalogUnavailable)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"text": "Oslo"}})
	wantRefusal(t, "tools/call get_weather with the catalog tool's arguments", err, discovery.CodeCatalogUnavailable)
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil || res.IsError {
		t.Errorf("tools/call echo during the clash: %v %+v, want its result", err, res)
	}

	s.RemoveTools("get_weather")
	if err := sc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if names := listed(t, cs); len(names) != 4 {
		t.Fatalf("tools/list once the clash is gone = %v, want four tools", names)
	}
	res, err := mcpclient.Discover(ctx, cs, &mcpclient.DiscoverParams{Query: "echo"})
	if err != nil || len(res.Tools) == 0 {
		t.Fatalf("discover once the clash is gone: %v", err)
	}
}

// TestDiscoveryToolClashAfterChange's discover method over streamable HTTP, which
// Handler's byte front answers itself: while the catalog version holds the discovery
// tool's name, a discover request answers catalog_unavailable (503) and serves no
// page; a discover notification is accepted (202) and answered with nothing.
func TestHTTPDiscoveryToolClashAfterChange(t *testing.T) {
	ctx := context.Background()
	s := typedServer()
	sc := newServerCatalog(t, s, nil)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: sc, Grants: allowAll(t, "add", "echo", "simple_text", "get_weather")})
	a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(grants.Principal{ID: "ann"}), DiscoveryTool: "get_weather"})
	if err := a.Install(s); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	t.Cleanup(srv.Close)
	h := &httpSession{t: t, url: srv.URL, token: "any"}
	h.initialize()
	discover := `{"jsonrpc":"2.0","id":7,"method":"` + discovery.DefaultMethod + `","params":{"query":"weather city"}}`
	if resp, body := h.post(discover); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"tools":[`) {
		t.Fatalf("discover before the clash: %d %s, want a page", resp.StatusCode, body)
	}

	addEmptyTool(s, "get_weather", "Weather of a city.")
	if err := sc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	resp, body := h.post(discover)
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"catalog_unavailable","data":{"error":"catalog_unavailable","status":503}}}`
	if resp.StatusCode != http.StatusServiceUnavailable || string(body) != want {
		t.Errorf("discover during the clash: %d %s\nwant 503 %s", resp.StatusCode, body, want)
	}
	resp, body = h.post(`{"jsonrpc":"2.0","method":"` + discovery.DefaultMethod + `","params":{"query":"weather city"}}`)
	if resp.StatusCode != http.StatusAccepted || len(body) != 0 {
		t.Errorf("discover notification during the clash: %d %s, want 202 and no body", resp.StatusCode, body)
	}
}
