package mcpsdk_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/mcpsdk"
)

// A POST that arrived on a loopback address with a foreign Host (DNS rebinding) is
// refused 403 before it is screened, whatever it holds: a denied or a granted
// tools/call reads no grant and runs nothing, as a rebound discover makes no page.
func TestReboundReadsNoGrants(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal, tool: "search_tools"})
	srv := httptest.NewServer(f.httpHandler()) // a loopback listener
	t.Cleanup(srv.Close)
	for _, c := range []struct{ name, body string }{
		{"denied call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_model","arguments":{"model":"x"}}}`},
		{"granted call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`},
		{"discovery tool", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather"}}}`},
		{"discover", `{"jsonrpc":"2.0","id":4,"method":"multillm.tools.discover","params":{"query":"weather"}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`},
	} {
		before := f.reads.n.Load()
		status, _, _ := send(t, "POST", srv.URL, c.body, func(req *http.Request) {
			req.Header.Set("Authorization", "Bearer tok-bob")
			req.Host = "evil.example"
		})
		if status != http.StatusForbidden {
			t.Errorf("rebound %s: status %d, want 403", c.name, status)
		}
		if n := f.reads.n.Load() - before; n != 0 {
			t.Errorf("rebound %s read grants %d times, want 0", c.name, n)
		}
	}
	if n := f.calls("weather_get"); n != 0 {
		t.Errorf("a rebound call ran weather_get %d times", n)
	}
}

// With Options.DisableLocalhostProtection, for a host whose SDK handler has its own
// protection off (a reverse proxy on a loopback address forwards a public Host),
// Handler refuses nothing for its Host either: discover, a denied call and a ping
// are answered as usual.
func TestReboundAllowedWhenProtectionOff(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	a := mcpsdk.New(f.d, &mcpsdk.Options{Principal: mcpsdk.TokenInfoPrincipal, DisableLocalhostProtection: true})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server }, &mcp.StreamableHTTPOptions{DisableLocalhostProtection: true})
	srv := httptest.NewServer(bearerAuth(a.Handler(sdk)))
	t.Cleanup(srv.Close)
	for _, c := range []struct{ name, body, want string }{
		{"discover", `{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather"}}`, `"result"`},
		{"denied call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy_model","arguments":{"model":"x"}}}`, `"tool_not_granted"`},
		{"initialize", `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, `"result"`},
	} {
		status, _, body := send(t, "POST", srv.URL, c.body, func(req *http.Request) {
			req.Header.Set("Authorization", "Bearer tok-bob")
			req.Host = "mcp.example.com"
		})
		if status != http.StatusOK || !strings.Contains(body, c.want) {
			t.Errorf("%s behind a proxy: %d %.200s, want 200 with %s", c.name, status, body, c.want)
		}
	}
}

// A host that turns the adapter's protection off but leaves the SDK's on gets the
// SDK's 403, whose text quotes the Host header, as the status text alone (SPEC ERR-2).
func TestSDKReboundTextReplaced(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	a := mcpsdk.New(f.d, &mcpsdk.Options{Principal: mcpsdk.TokenInfoPrincipal, DisableLocalhostProtection: true})
	srv := httptest.NewServer(bearerAuth(a.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server }, nil))))
	t.Cleanup(srv.Close)
	status, _, body := send(t, "POST", srv.URL, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, func(req *http.Request) {
		req.Header.Set("Authorization", "Bearer tok-bob")
		req.Host = canary + ".example"
	})
	if status != http.StatusForbidden || body != "Forbidden\n" {
		t.Errorf("the SDK's rebound refusal: %d %q, want 403 \"Forbidden\\n\"", status, body)
	}
}
