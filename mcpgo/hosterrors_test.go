package mcpgo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/deferredtools/deferredtools/mcpgo"
)

// hostErrorTools makes weather_get's handler fail as a host's tool may, and
// unregisters weather_station_5, so that a call to it meets mcp-go's own "tool not
// found" error.
func hostErrorTools(f *fixture) {
	f.server.AddTool(mcp.NewTool("weather_get"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("weather backend down: host text")
	})
	f.server.DeleteTools("weather_station_5")
}

// hostErrorCalls are the calls of hostErrorTools' tools and the answers the wire must
// carry: the host's own error as mcp-go writes it, mcp-go's own "tool not found" as the
// answer of any unknown tool (SPEC CALL-1).
var hostErrorCalls = []struct{ name, id, call, want string }{
	{"handler error", "1", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"weather backend down: host text"}}`},
	{"mcp-go: tool not found", "2", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_station_5","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"tool_not_granted","data":{"error":"tool_not_granted","status":403}}}`},
}

// SPEC ERR-2, CALL-6: an error of the host's own tool handler, for a call the front let
// through, reaches the client as mcp-go writes it, over stdio: the content-free
// rewrite is for mcp-go's own errors (which quote requests) and the library's.
func TestHostToolErrorsKept(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	hostErrorTools(f)
	rc := f.listen(t, mcpgo.WithPrincipal(context.Background(), alice))
	rc.initialize()
	for _, c := range hostErrorCalls {
		if got := string(rc.call(c.call, c.id)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestHostToolErrorsKept over streamable HTTP, through Handler's outgoing filter.
func TestHTTPHostToolErrorsKept(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	hostErrorTools(f)
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-alice"}
	h.initialize()
	for _, c := range hostErrorCalls {
		_, body := h.post(c.call, "")
		got := strings.TrimSpace(string(body))
		if data, ok := strings.CutPrefix(got, "event: message\ndata: "); ok {
			got = data
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
