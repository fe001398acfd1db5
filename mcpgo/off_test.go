package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// SPEC FLAG-2: while the switch is off the adapter is the identity: Handler returns
// mcp-go's handler itself, Listen answers byte for byte what mcp-go's stdio server
// answers alone (tools/list whole, every tool callable, the discover method -32601 like
// any unknown method), and no grant is read.
func TestSwitchOff(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: false, tool: "search_tools"})
	h := server.NewStreamableHTTPServer(f.server)
	if got := f.a.Handler(h); got != http.Handler(h) {
		t.Errorf("Handler while off = %T, want mcp-go's handler itself", got)
	}
	script := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"multillm.tools.discover","params":{"query":"weather"}}`,
	}, "\n") + "\n"
	run := func(listen func(ctx context.Context, in io.Reader, out io.Writer) error) string {
		var out bytes.Buffer
		if err := listen(context.Background(), strings.NewReader(script), &out); err != nil {
			t.Fatalf("Listen: %v", err)
		}
		return out.String()
	}
	plain := run(func(ctx context.Context, in io.Reader, out io.Writer) error {
		return server.NewStdioServer(f.server).Listen(ctx, in, out)
	})
	adapted := run(func(ctx context.Context, in io.Reader, out io.Writer) error {
		return f.a.Listen(mcpgo.WithPrincipal(ctx, bob), server.NewStdioServer(f.server), in, out)
	})
	if !sameLines(plain, adapted) {
		t.Errorf("while off, Listen answered\n%s\nwant mcp-go's own\n%s", adapted, plain)
	}
	if !strings.Contains(adapted, `"secrets_read"`) || !strings.Contains(adapted, `"code":-32601`) {
		t.Errorf("while off: want every tool listed and discover -32601, got\n%s", adapted)
	}
	if n := f.reads.n.Load(); n != 0 {
		t.Errorf("%d grant reads while off, want 0", n)
	}
}

// sameLines reports whether a and b hold the same lines, in any order (mcp-go answers
// requests concurrently).
func sameLines(a, b string) bool {
	la, lb := strings.Split(strings.TrimSpace(a), "\n"), strings.Split(strings.TrimSpace(b), "\n")
	if len(la) != len(lb) {
		return false
	}
	seen := map[string]int{}
	for _, l := range la {
		seen[l]++
	}
	for _, l := range lb {
		if seen[l]--; seen[l] < 0 {
			return false
		}
	}
	return true
}

// SPEC ERR-1, ERR-2: a request without a principal (no WithPrincipal on its context)
// is refused with unauthenticated (401 on the discover method, a JSON-RPC error in a
// 200 for tools/call) and tools/list lists nothing; nothing runs.
func TestNoPrincipal(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "no-such-token"}
	h.initialize()
	resp, body := h.post(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather"}}`, "")
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("discover: HTTP %d, want 401", resp.StatusCode)
	}
	wantError(t, body, discovery.CodeUnauthenticated)
	resp, body = h.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`, "")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("tools/call: HTTP %d, want 200", resp.StatusCode)
	}
	wantError(t, body, discovery.CodeUnauthenticated)
	_, body = h.post(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "")
	wantError(t, httpAnswer(resp, body), discovery.CodeUnauthenticated)
	if f.calls("weather_get") != 0 {
		t.Error("a call without a principal ran")
	}
}

// SPEC FLAG-3, GRANT-5, ERR-2: grant storage that fails refuses tools/list and every
// call with grants_unavailable, listing nothing and running nothing.
func TestGrantsUnavailable(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: f.cat}) // no grant store
	f.a = mcpgo.New(f.d, nil)
	srv := httptest.NewServer(bearer(f.a.Handler(server.NewStreamableHTTPServer(f.server))))
	t.Cleanup(srv.Close)
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	resp, body := h.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "")
	wantError(t, httpAnswer(resp, body), discovery.CodeGrantsUnavailable)
	resp, body = h.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`, "")
	wantError(t, httpAnswer(resp, body), discovery.CodeGrantsUnavailable)
	if f.calls("weather_get") != 0 {
		t.Error("a call ran without grants")
	}
}

// SPEC CALL-1, CALL-6, GRANT-6: a granted call reads grants once (the front's tool-name
// decision is finished from the same read), and the host's CheckCall runs after it: an
// error of its own is tool_call_refused, without its text, and the tool never runs.
func TestCallOneGrantReadAndCheckCall(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), bob))
	c.initialize()
	before := f.reads.n.Load()
	if ok := c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`, "1"); !bytes.Contains(ok, []byte("ran weather_get")) {
		t.Fatalf("granted call = %s", ok)
	}
	if n := f.reads.n.Load() - before; n != 1 {
		t.Errorf("a granted call read grants %d times, want 1", n)
	}
	checked := discovery.New(&discovery.Options{Enabled: true, Catalog: f.cat, Grants: f.reads,
		CheckCall: func(context.Context, grants.Principal, string, json.RawMessage) error {
			return errors.New("host refusal " + canary)
		}})
	f.a = mcpgo.New(checked, nil)
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-bob"}
	h.initialize()
	_, body := h.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`, "")
	wantError(t, httpAnswer(&http.Response{Header: http.Header{}}, body), discovery.CodeCallRefused)
	if n := f.calls("weather_get"); n != 1 {
		t.Errorf("weather_get ran %d times, want 1 (the refused call never)", n)
	}
}

// SPEC DISC-1: on HTTP the discover method needs no MCP session: it is answered
// before initialize, without an Mcp-Session-Id.
func TestHTTPDiscoverWithoutSession(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-alice"}
	resp, body := h.post(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather","limit":2}}`, "")
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"nextCursor"`)) {
		t.Errorf("discover without a session: HTTP %d %.300s", resp.StatusCode, body)
	}
}
