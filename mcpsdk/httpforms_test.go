package mcpsdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// send sends one request with a JSON body (Content-Type application/json, Accept both
// of MCP's forms unless set changes them) and returns the response's status,
// Content-Type and body.
func send(t *testing.T, method, url, body string, set func(*http.Request)) (status int, ctype, respBody string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if set != nil {
		set(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// SPEC CALL-1, ERR-1, ERR-2 over HTTP: a tools/call refusal is a JSON-RPC error in an
// HTTP 200, as application/json or, when the request accepts only an event stream, as
// one event; a request with a foreign Host on a loopback address is refused 403 by
// Handler itself, like the SDK does; the SDK's own plain-text errors (which
// quote the Host header, methods, bodies) come out as the status text alone.
func TestHTTPAnswerForms(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal, tool: "search_tools"})
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	const denied = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"deploy_model","arguments":{"model":"` + canary + `"}}}`
	const refusal = `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"tool_not_granted","data":{"error":"tool_not_granted","status":403}}}`
	for _, c := range []struct {
		name, method, accept, host, body string
		status                           int
		ctype, want                      string
	}{
		{"refusal as JSON", "POST", "application/json, text/event-stream", "", denied, 200, "application/json", refusal},
		{"refusal as an event", "POST", "text/event-stream", "", denied, 200, "text/event-stream", "event: message\ndata: " + refusal + "\n\n"},
		{"refusal, rebound Host", "POST", "application/json, text/event-stream", canary + ".example", denied, 403, "text/plain; charset=utf-8", "Forbidden: invalid Host header\n"},
		{"any POST, rebound Host", "POST", "application/json, text/event-stream", canary + ".example", `{"jsonrpc":"2.0","id":8,"method":"ping"}`, 403, "text/plain; charset=utf-8", "Forbidden: invalid Host header\n"},
		{"GET, rebound Host", "GET", "text/event-stream", canary + ".example", "", 403, "text/plain; charset=utf-8", "Forbidden: invalid Host header\n"},
		{"SDK: GET without a session", "GET", "text/event-stream", "", "", 400, "text/plain; charset=utf-8", "Bad Request\n"},
		{"SDK: unknown method", "POST", "application/json, text/event-stream", "", `{"jsonrpc":"2.0","id":9,"method":"` + canary + `"}`, 400, "application/json",
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"method_not_found","data":{"error":"method_not_found","status":400}}}`},
		{"SDK: wrong Accept", "POST", "text/html", "", `{"jsonrpc":"2.0","id":10,"method":"` + canary + `"}`, 400, "application/json",
			`{"jsonrpc":"2.0","id":10,"error":{"code":-32600,"message":"invalid_request","data":{"error":"invalid_request","status":400}}}`},
		{"SDK: notification of an unknown method", "POST", "application/json, text/event-stream", "", `{"jsonrpc":"2.0","method":"` + canary + `"}`, 400, "text/plain; charset=utf-8", "Bad Request\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, ctype, body := send(t, c.method, srv.URL, c.body, func(req *http.Request) {
				req.Header.Set("Accept", c.accept)
				req.Header.Set("Authorization", "Bearer tok-bob")
				if c.host != "" {
					req.Host = c.host
				}
			})
			if status != c.status || ctype != c.ctype || body != c.want {
				t.Errorf("%s: %d %q %q, want %d %q %q", c.name, status, ctype, body, c.status, c.ctype, c.want)
			}
		})
	}
}

// SPEC CALL-6: a host CheckCall error that is a *jsonrpc.Error crosses Handler's
// outgoing filter as the host wrote it; the SDK's own errors do not.
func TestHTTPHostErrorKept(t *testing.T) {
	check := func(_ context.Context, _ grants.Principal, tool string, _ json.RawMessage) error {
		return &jsonrpc.Error{Code: -32001, Message: "maintenance window", Data: json.RawMessage(`{"retry": 30}`)}
	}
	f := newFixture(t, fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal, checkCall: check})
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	cs := connectClient(t, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{"tok-alice", http.DefaultTransport}}})
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "weather_get", Arguments: map[string]any{"city": "Oslo"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32001 || je.Message != "maintenance window" || string(je.Data) != `{"retry":30}` {
		t.Errorf("host error over HTTP = %v, want it as the host wrote it", err)
	}
}

// The go-sdk client keeps its session over streamable HTTP after the SDK refuses a
// method it does not know: Handler turns the SDK's plain-text 400 into a content-free
// JSON-RPC error body, which the client reads as a rejected call, not a broken link.
func TestHTTPGoClientSurvivesUnknownMethod(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal})
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil)
	const unknown = "x.unknown." + canary
	if err := mcp.AddSendingCustomMethod[*discoverParams, *discoverResult](c, unknown); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{"tok-bob", http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = mcp.CallCustomMethod[*discoverParams, *discoverResult](t.Context(), cs, unknown, &discoverParams{Query: "x"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32601 || je.Message != "method_not_found" {
		t.Errorf("unknown method = %v, want the JSON-RPC error method_not_found", err)
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("ListTools after the refusal: %v (the session broke)", err)
	}
}

// SPEC ERR-2: an Mcp-Protocol-Version header the SDK does not speak is refused by
// Handler with a content-free 400 before the SDK, which logs the header's text when it
// refuses one; supported versions still reach the SDK.
func TestHTTPUnknownProtocolVersionHeader(t *testing.T) {
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := newFixture(t, fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal, logger: logger})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server }, &mcp.StreamableHTTPOptions{Logger: logger})
	srv := httptest.NewServer(bearerAuth(f.a.Handler(h))) // the SDK handler logs to logger
	t.Cleanup(srv.Close)
	post := func(version string) (int, string) {
		status, _, body := send(t, http.MethodPost, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
			func(req *http.Request) {
				req.Header.Set("Authorization", "Bearer tok-bob")
				req.Header.Set("Mcp-Protocol-Version", version)
			})
		return status, body
	}
	for _, version := range []string{"version-" + canary, "2099-01-01" + canary} {
		t.Run(version, func(t *testing.T) {
			status, body := post(version)
			if status != http.StatusBadRequest || strings.Contains(body, canary) || !strings.Contains(body, `"invalid_request"`) {
				t.Errorf("Mcp-Protocol-Version %q: status %d, body %s; want 400 invalid_request without the header's text", version, status, body)
			}
		})
	}
	if status, body := post("2025-06-18"); status != http.StatusOK {
		t.Errorf("a supported version: status %d, body %.300s; want 200", status, body)
	}
	if strings.Contains(logs.String(), canary) {
		t.Errorf("the server's log carries the canary:\n%.2000s", logs.String())
	}
}
