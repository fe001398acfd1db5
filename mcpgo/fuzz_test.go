package mcpgo

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// fuzzAdapter serves bob, who may call weather_get only.
func fuzzAdapter(t testing.TB) *Adapter {
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"weather_get","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"secrets_read","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem := grants.NewMemory()
	mem.Put(context.Background(), grants.Row{Principal: "bob", Tool: "weather_get", Effect: grants.Allow, Revision: 1})
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: mem})
	return New(d, &Options{Principal: StaticPrincipal(grants.Principal{ID: "bob"}), DiscoveryTool: "search_tools"})
}

// SPEC CALL-1, VIS-2, ERR-2: whatever the message, the front never panics, and a
// message it passes on to mcp-go is read by mcp-go (encoding/json, as its
// HandleMessage and handleToolCall decode) as the same method, and, for a tools/call,
// as a call of a tool bob may call: no spelling lets a denied call through. Seeds:
// testdata/fuzz/FuzzFront.
func FuzzFront(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","Method":"tools/call","params":{"name":"secrets_read"}}`,
		`{"jsonrpc":"2.0","id":1,"METHOD":"tools/call","params":{"name":"secrets_read"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","Name":"secrets_read"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get"},"Params":{"name":"secrets_read"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"secrets_read"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","\u004dethod":"tools/call","params":{"name":"secrets_read"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"multillm.tools.discover","params":{"query":"weather"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	} {
		f.Add([]byte(s))
	}
	a := fuzzAdapter(f)
	f.Fuzz(func(t *testing.T, msg []byte) {
		ctx := context.Background()
		v := a.screen(ctx, msg, nil)
		if v.act != passOn {
			return
		}
		var base struct {
			Method mcp.MCPMethod `json:"method"`
		}
		if json.Unmarshal(msg, &base) != nil {
			return // mcp-go answers a parse error
		}
		if string(base.Method) != v.env.method {
			t.Fatalf("the front read method %q, mcp-go reads %q: %q", v.env.method, base.Method, msg)
		}
		if base.Method != mcp.MethodToolsCall {
			return
		}
		var call mcp.CallToolRequest
		if json.Unmarshal(msg, &call) != nil {
			return
		}
		if err := a.d.AuthorizeTool(ctx, grants.Principal{ID: "bob"}, call.Params.Name); err != nil {
			t.Fatalf("the front passed a call mcp-go reads as %q, which bob may not call: %q", call.Params.Name, msg)
		}
	})
}
