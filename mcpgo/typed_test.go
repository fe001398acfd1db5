package mcpgo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpgo"
)

type noteArgs struct {
	F float32 `json:"f"`
	N int8    `json:"n"`
	T string  `json:"t"`
}

// SPEC ERR-2: arguments the schema allows ("number", "integer") that a typed handler's
// Go type cannot hold fail mcp-go's binding after the adapter validated them; mcp-go's
// text ("failed to bind arguments: json: cannot unmarshal number 1e300 ...") quotes
// the value and must not reach the result, over stdio or HTTP: the result says
// "invalid arguments" and nothing else. A call it can hold runs.
func TestTypedToolBindErrorContentFree(t *testing.T) {
	f := noteFixture(t, nil)
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), bob))
	c.initialize()
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-bob"}
	h.initialize()
	for i, args := range []string{`{"f":1e300,"t":"x"}`, `{"n":1000,"t":"x"}`, `{"n":1.5e3}`} {
		msg := `{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"tools/call","params":{"name":"note","arguments":` + args + `}}`
		resp, body := h.post(msg, "application/json")
		for _, got := range [][]byte{c.call(msg, string(rune('1'+i))), httpAnswer(resp, body)} {
			var r struct {
				Result *mcp.CallToolResult `json:"result"`
			}
			if err := json.Unmarshal(got, &r); err != nil || r.Result == nil || !r.Result.IsError || len(r.Result.Content) != 1 ||
				r.Result.Content[0].(mcp.TextContent).Text != "invalid arguments" || strings.Contains(string(got), "e300") || strings.Contains(string(got), "1000") {
				t.Errorf("%s: answered %s, want an isError result with the text \"invalid arguments\" only", args, got)
			}
		}
	}
	if got := c.call(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"note","arguments":{"f":1.5,"n":3,"t":"x"}}}`, "9"); !strings.Contains(string(got), `"kept"`) {
		t.Errorf("a call it can hold: %s", got)
	}
}

// noteFixture serves "note", a typed tool of noteArgs (answering "kept") with the
// tool options extra, granted to every principal, the principal from the context.
func noteFixture(t *testing.T, extra []mcp.ToolOption, opts ...server.ServerOption) *fixture {
	t.Helper()
	s := server.NewMCPServer("typed", "v0", opts...)
	s.AddTool(mcp.NewTool("note", append([]mcp.ToolOption{mcp.WithNumber("f"), mcp.WithNumber("n"), mcp.WithString("t")}, extra...)...),
		mcp.NewTypedToolHandler(func(_ context.Context, _ mcp.CallToolRequest, in noteArgs) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("kept"), nil
		}))
	cat, err := mcpgo.CatalogFromServer(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem := grants.NewMemory()
	mem.Put(context.Background(), grants.Row{Principal: grants.AnyPrincipal, Tool: "note", Effect: grants.Allow, Revision: 1})
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: mem})
	return &fixture{server: s, cat: cat, d: d, a: mcpgo.New(d, nil)}
}
