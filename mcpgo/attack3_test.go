package mcpgo_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// SPEC FLAG-3, ERR-1, ERR-2 over streamable HTTP: with grant storage failing (its table
// missing, as the driver says), a tools/call of a tool, of the discovery tool and the
// discover method each answer HTTP 503 with an application/json body holding the
// content-free grants_unavailable error, never the storage's text, and no handler
// runs; a refusal that is no 503 (tool_not_granted, with storage up) stays a JSON-RPC
// error in an HTTP 200. Failed before the front answered a call's 503 refusals with
// the error's status (they rode in an HTTP 200).
func TestAttack3StorageDownHTTP503(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools",
		reader: &grantstest.ErrReader{Err: fmt.Errorf("%w: no such table: tool_grants", grants.ErrUnavailable)}})
	srv := f.httpServer(t)
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"` + canary + `"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"` + canary + `"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"` + discovery.DefaultMethod + `","params":{"query":"` + canary + `"}}`,
	} {
		resp, body := h.post(msg, "")
		e := decodeError(t, body)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Content-Type") != "application/json" ||
			e == nil || e.Message != string(discovery.CodeGrantsUnavailable) || strings.Contains(string(body), "tool_grants") {
			t.Errorf("%.60s: %d %q %s, want 503 with the JSON grants_unavailable error", msg, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	if n := f.calls("weather_get"); n != 0 {
		t.Errorf("the handler ran %d times with storage down", n)
	}
	up := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	h = &httpSession{t: t, url: up.httpServer(t).URL, token: "tok-bob"}
	h.initialize()
	resp, body := h.post(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"secrets_read","arguments":{}}}`, "")
	if e := decodeError(t, body); resp.StatusCode != http.StatusOK || e == nil || e.Message != string(discovery.CodeToolNotGranted) {
		t.Errorf("a denied call: %d %s, want tool_not_granted in an HTTP 200", resp.StatusCode, body)
	}
}
