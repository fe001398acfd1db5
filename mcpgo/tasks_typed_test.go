package mcpgo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/mcpgo"
)

// SPEC ERR-2: a typed tool run as a task (MCP's params.task) whose arguments the
// schema allows but its Go type cannot hold fails mcp-go's binding inside the task;
// tasks/result then carries mcp-go's text, which quotes the value. It answers the
// "invalid arguments" result a tools/call gets (TestTypedToolBindErrorContentFree),
// with the result's _meta (the related task) kept. Before, the text went out.
func TestTaskResultBindErrorContentFree(t *testing.T) {
	f := noteFixture(t, []mcp.ToolOption{mcp.WithTaskSupport(mcp.TaskSupportOptional)}, server.WithTaskCapabilities(true, true, true))
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), bob))
	c.initialize()
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-bob"}
	h.initialize()
	taskOf := func(resp []byte) string {
		var r struct {
			Result struct {
				Task struct {
					TaskID string `json:"taskId"`
				} `json:"task"`
			} `json:"result"`
		}
		if json.Unmarshal(resp, &r) != nil || r.Result.Task.TaskID == "" {
			t.Fatalf("task-augmented call: %s, want its task", resp)
		}
		return r.Result.Task.TaskID
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"f":1e300,"t":"x"},"task":{"ttl":60000}}}`
	result := func(task string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"` + task + `"}}`
	}
	resp, body := h.post(call, "application/json")
	_, hb := h.post(result(taskOf(httpAnswer(resp, body))), "application/json") // tasks/result waits for the task
	for what, got := range map[string][]byte{
		"stdio": c.call(result(taskOf(c.call(call, "1"))), "2"),
		"HTTP":  eventWithID(hb, `"id":2`),
	} {
		var r struct {
			Result *struct {
				IsError bool              `json:"isError"`
				Content []mcp.TextContent `json:"content"`
				Meta    map[string]any    `json:"_meta"`
			} `json:"result"`
		}
		if err := json.Unmarshal(got, &r); err != nil || r.Result == nil || !r.Result.IsError || len(r.Result.Content) != 1 ||
			r.Result.Content[0].Text != "invalid arguments" || strings.Contains(string(got), "e300") || r.Result.Meta[mcp.RelatedTaskMetaKey] == nil {
			t.Errorf("%s: tasks/result %s, want the isError result \"invalid arguments\" with the related task", what, got)
		}
	}
}
