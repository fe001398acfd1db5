package mcpgo_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// taskFixture serves the test tools and weather_task, a tool mcp-go may run as a task
// (taskSupport optional), granted to alice. Arming the returned flag makes mcp-go's
// tool filter delete weather_task from the server the next time a call of it is
// checked: the tool is removed between the lookup of handleToolCall and that of
// handleTaskAugmentedToolCall, as a concurrent DeleteTools would.
func taskFixture(t *testing.T) (*fixture, *atomic.Bool) {
	t.Helper()
	task := json.RawMessage(`{"name":"weather_task","description":"Weather report, as a task.","execution":{"taskSupport":"optional"},
		"inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}`)
	g := grants.NewMemory()
	for _, r := range append(testRows(), grants.Row{Principal: "*", Tool: "weather_task", Effect: grants.Allow, Revision: 1}) {
		if _, err := g.Put(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	var armed atomic.Bool
	var f *fixture
	filter := func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
		if len(tools) == 1 && tools[0].Name == "weather_task" && armed.CompareAndSwap(true, false) {
			f.server.DeleteTools("weather_task")
		}
		return tools
	}
	f = newFixture(t, fixtureOptions{enabled: true, principal: mcpgo.StaticPrincipal(alice), reader: g,
		tools:     append(testTools(), task),
		serverOpt: []server.ServerOption{server.WithTaskCapabilities(true, true, true), server.WithToolFilter(filter)}})
	return f, &armed
}

// SPEC CALL-1: a task-augmented tools/call (MCP's params.task) of a tool removed from
// mcp-go's server while the catalog still holds it answers tool_not_granted, as the
// same call without task does: an unknown name is indistinguishable from a denied one.
// Before, mcp-go's task path answered "tool '...' not found" (-32602) without
// wrapping server.ErrToolNotFound, and it went out as invalid_params. Over stdio and
// HTTP; a task-augmented call of a tool still there creates its task.
func TestTaskCallOfRemovedTool(t *testing.T) {
	call := func(id, name string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{"city":"Oslo"},"task":{"ttl":60000}}}`
	}
	t.Run("stdio", func(t *testing.T) {
		f, armed := taskFixture(t)
		c := f.listen(t, context.Background())
		c.initialize()
		if resp := c.call(call("1", "weather_task"), "1"); !strings.Contains(string(resp), `"taskId"`) {
			t.Fatalf("task-augmented call of weather_task: %s, want its task", resp)
		}
		armed.Store(true)
		wantError(t, c.call(call("2", "weather_task"), "2"), discovery.CodeToolNotGranted)
		if armed.Load() {
			t.Fatal("the call did not reach mcp-go's tool filter")
		}
		wantError(t, c.call(call("3", "weather_task"), "3"), discovery.CodeToolNotGranted)
		wantError(t, c.call(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather_task","arguments":{"city":"Oslo"}}}`, "4"), discovery.CodeToolNotGranted)
		wantError(t, c.call(call("5", "secrets_read"), "5"), discovery.CodeToolNotGranted)
	})
	t.Run("HTTP", func(t *testing.T) {
		f, armed := taskFixture(t)
		f.a = mcpgo.New(f.d, nil) // the principal from the bearer token
		h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-alice"}
		h.initialize()
		armed.Store(true)
		_, body := h.post(call("2", "weather_task"), "")
		wantError(t, eventWithID(body, `"id":2`), discovery.CodeToolNotGranted)
		if armed.Load() {
			t.Fatal("the call did not reach mcp-go's tool filter")
		}
	})
}

// eventWithID returns the data of the event-stream event (or the JSON body) holding
// id, or the whole body when none does.
func eventWithID(body []byte, id string) []byte {
	for _, ln := range strings.Split(string(body), "\n") {
		ln = strings.TrimPrefix(ln, "data: ")
		if strings.Contains(ln, id) {
			return []byte(ln)
		}
	}
	return body
}
