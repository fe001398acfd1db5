package mcpsdk_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

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
