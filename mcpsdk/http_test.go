package mcpsdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// testTokens maps bearer tokens to principals for the HTTP tests.
var testTokens = map[string]grants.Principal{"tok-alice": alice, "tok-bob": bob}

// httpServer serves the fixture over streamable HTTP behind bearer authentication,
// the principal read from auth.TokenInfo (mcpsdk.TokenInfoPrincipal, the default).
func httpServer(t testing.TB, enabled bool) (*fixture, *httptest.Server) {
	t.Helper()
	f, err := buildFixture(fixtureOptions{enabled: enabled, principal2: mcpsdk.TokenInfoPrincipal, tool: "search_tools"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fixture) httpHandler() http.Handler {
	return bearerAuth(f.a.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server }, nil)))
}

// httpSession is a raw streamable HTTP session, token's, with the server at url:
// post sends one message with the session's id, taken from the first answer naming
// one, and returns the response and its body (the data of an event-stream answer).
type httpSession struct {
	t          testing.TB
	url, token string
	id         string
}

func (h *httpSession) post(msg string) (*http.Response, []byte) {
	h.t.Helper()
	resp, b := adaptertest.MCPPost{URL: h.url, Token: h.token, Session: h.id, Version: "2025-11-25"}.Do(h.t, msg)
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" && h.id == "" {
		h.id = s
	}
	b = bytes.TrimSpace(b)
	if data, ok := bytes.CutPrefix(b, []byte("event: message\ndata: ")); ok {
		b = data
	}
	return resp, b
}

// initialize opens the session.
func (h *httpSession) initialize() {
	h.t.Helper()
	h.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// SPEC VIS-3, DISC-1, DISC-3, CALL-1, CALL-2 over streamable HTTP with the go-sdk
// client: the principal comes from the bearer token's auth.TokenInfo.
func TestHTTPGoClient(t *testing.T) {
	ctx := context.Background()
	f, srv := httpServer(t, true)
	cs := connectClient(t, &mcp.StreamableClientTransport{
		Endpoint:   srv.URL,
		HTTPClient: &http.Client{Transport: bearer{"tok-bob", http.DefaultTransport}},
	})
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if slices.Contains(names, "deploy_model") || !slices.Contains(names, "weather_get") || names[len(names)-1] != "search_tools" {
		t.Errorf("bob's tools/list over HTTP = %v, want the weather tools and search_tools, no deploy_model", names)
	}
	want, _ := f.d.ListTools(ctx, bob)
	if list.Meta["contract_digest"] != want.ContractDigest {
		t.Errorf("contract_digest %v, want %s", list.Meta["contract_digest"], want.ContractDigest)
	}
	p := &discoverParams{Query: "weather", Limit: 3}
	seen := 0
	for {
		res, err := discover(ctx, cs, p)
		if err != nil {
			t.Fatalf("discover over HTTP: %v", err)
		}
		seen += len(res.Tools)
		if res.NextCursor == "" {
			break
		}
		p.Cursor = res.NextCursor
	}
	if seen != 8 {
		t.Errorf("discover over HTTP walked %d tools, want bob's 8 weather tools", seen)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather_get", Arguments: map[string]any{"city": "Oslo"}}); err != nil {
		t.Errorf("granted call: %v", err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy_model", Arguments: map[string]any{"model": "m"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != "tool_not_granted" || string(je.Data) != `{"error":"tool_not_granted","status":403}` {
		t.Errorf("denied call over HTTP = %v, want tool_not_granted 403", err)
	}
}

// SPEC ERR-1, FLAG-2: the discover method on HTTP answers refusals with their HTTP
// status and the JSON-RPC error body, a notification with 202; unauthenticated
// requests never reach it; with the switch off it is the SDK's answer.
func TestHTTPDiscoverStatus(t *testing.T) {
	post := func(url, token, body string) (int, string) {
		t.Helper()
		status, _, b := send(t, http.MethodPost, url, body, func(req *http.Request) {
			if tok, ok := strings.CutSuffix(token, " rebound"); ok {
				token, req.Host = tok, "evil.example:80" // DNS rebinding: a foreign name on a loopback address
			}
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
		})
		return status, b
	}
	_, srv := httpServer(t, true)
	for _, c := range []struct {
		body, token string
		status      int
		want        string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather","limit":1}}`, "tok-alice", 200, `"nextCursor":"`},
		{`{"jsonrpc":"2.0","id":2,"method":"multillm.tools.discover","params":{"query":"weather","bogus":1}}`, "tok-alice", 400,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid_params","data":{"error":"invalid_params","status":400}}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"multillm.tools.discover","params":{"query":"weather","cursor":"zz"}}`, "tok-alice", 400, `"invalid_cursor"`},
		{`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"weather"}}`, "tok-alice", 202, ``},
		{`{"jsonrpc":"2.0","id":4,"method":"multillm.tools.discover","params":{"query":"weather"}}`, "", 401, ``},
		{`{"jsonrpc":"2.0","id":5,"method":"multillm.tools.discover","params":{"query":"weather"}}`, "wrong", 401, ``},
		{`{"jsonrpc":"2.0","id":6,"method":"multillm.tools.discover","params":{"query":"weather"}}`, "tok-alice rebound", 403, `Host`},
	} {
		t.Run(c.token+" "+c.body, func(t *testing.T) {
			status, body := post(srv.URL, c.token, c.body)
			if status != c.status || !strings.Contains(body, c.want) {
				t.Errorf("POST %s (token %q) = %d %.200s, want %d with %s", c.body, c.token, status, body, c.status, c.want)
			}
		})
	}
	_, off := httpServer(t, false)
	status, body := post(off.URL, "tok-alice", `{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather"}}`)
	if status == 200 && strings.Contains(body, `"result"`) {
		t.Errorf("switch off: discover over HTTP answered %d %s, want the SDK's refusal", status, body)
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal([]byte(body), &env) == nil && env.Result != nil {
		t.Errorf("switch off: discover answered a result: %s", body)
	}
}

// Handler answers from pooled buffers: concurrent discover requests each get their own
// response, byte for byte what the same request gets alone.
func TestHandlerConcurrentResponses(t *testing.T) {
	fx, err := buildFixture(fixtureOptions{enabled: true, principal: alice})
	if err != nil {
		t.Fatal(err)
	}
	h := fx.a.Handler(http.NotFoundHandler())
	serve := func(body string) string {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream") // as the SDK requires
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		page, _, _ := strings.Cut(rec.Body.String(), `"nextCursor"`) // sealed anew each time
		return page
	}
	queries := []string{"model", "weather", "deploy", "forecast", "no such words", ""}
	bodies := make([]string, 40)
	want := make([]string, len(bodies))
	for i := range bodies {
		bodies[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"multillm.tools.discover","params":{"query":%q,"limit":2}}`, i, queries[i%len(queries)])
		want[i] = serve(bodies[i])
		if !strings.HasPrefix(want[i], fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,`, i)) {
			t.Fatalf("request %d answered %.100s", i, want[i])
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		for i := range bodies {
			wg.Go(func() {
				if got := serve(bodies[i]); got != want[i] {
					t.Errorf("request %d answered %.100s concurrently, %.100s alone", i, got, want[i])
				}
			})
		}
	}
	wg.Wait()
}
