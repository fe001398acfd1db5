package mcpsdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/mcpsdk"
)

// hostErrorTools replaces three of f's granted tools with handlers that fail as a host's
// tool may: a plain error (the SDK writes it as a JSON-RPC error of code 0), a typed
// tool's *jsonrpc.Error (written as the host chose) and a typed tool's own error that
// wraps a JSON decoding error of the host's (an isError result); it unregisters
// weather_station_5, so that a call to it meets the SDK's own "unknown tool" error.
func hostErrorTools(f *fixture) {
	f.server.AddTool(&mcp.Tool{Name: "weather_get", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("weather backend down: host text")
		})
	type forecastIn struct {
		City string `json:"city"`
		Days int    `json:"days,omitempty"`
	}
	mcp.AddTool(f.server, &mcp.Tool{Name: "weather_forecast"}, func(_ context.Context, _ *mcp.CallToolRequest, in forecastIn) (*mcp.CallToolResult, any, error) {
		if in.Days == 2 {
			var v struct{}
			return nil, nil, fmt.Errorf("reading the host's cache: %w", json.Unmarshal([]byte(`{"a":`), &v))
		}
		return nil, nil, &jsonrpc.Error{Code: -32001, Message: "quota exceeded", Data: json.RawMessage(`{"retry":30}`)}
	})
	f.server.RemoveTools("weather_station_5")
}

// hostErrorCalls are the calls of hostErrorTools' tools and the answers the wire must
// carry for them: the host's own errors as the host wrote them, the SDK's "unknown
// tool" as the answer of any unknown tool (SPEC CALL-1), content-free.
var hostErrorCalls = []struct{ name, call, want string }{
	{"plain error", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"weather backend down: host text"}}`},
	{"typed *jsonrpc.Error", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_forecast","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"quota exceeded","data":{"retry":30}}}`},
	{"typed error wrapping a JSON error", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather_forecast","arguments":{"city":"Oslo","days":2}}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"reading the host's cache: unexpected end of JSON input"}],"isError":true}}`},
	{"SDK: unknown tool", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather_station_5","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"tool_not_granted","data":{"error":"tool_not_granted","status":403}}}`},
}

// SPEC ERR-2, CALL-6: an error of the host's own tool handler, for a call the library
// let through, reaches the client as the host wrote it, over stdio: the content-free
// rewrite is for the SDK's errors (which quote requests) and the library's refusals,
// and a host's error that wraps a JSON decoding error is no "invalid arguments".
func TestHostToolErrorsKept(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice})
	hostErrorTools(f)
	rc := f.rawConnect(t)
	for _, c := range hostErrorCalls {
		var id struct{ ID json.RawMessage }
		json.Unmarshal([]byte(c.call), &id)
		if got := string(rc.call(c.call, string(id.ID))); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestHostToolErrorsKept over streamable HTTP, through Handler's outgoing filter.
func TestHTTPHostToolErrorsKept(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal})
	hostErrorTools(f)
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	for _, c := range hostErrorCalls {
		if _, got := h.post(c.call); string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
