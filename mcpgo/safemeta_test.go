package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpgo"
	"github.com/deferredtools/deferredtools/metatool"
	"github.com/deferredtools/deferredtools/safemode"
)

// safeMetaFixture is an mcp-go server with a meta tool (keys: list is read-only,
// create mutating, revoke destructive) and two plain tools (notes_read read-only,
// notes_write mutating), in safe mode; alice is granted keys.list, keys.create and
// both notes tools, never keys.revoke.
func safeMetaFixture(t *testing.T) (*fixture, map[string]*atomic.Int64) {
	t.Helper()
	ran := map[string]*atomic.Int64{}
	s := server.NewMCPServer("safemeta", "v0")
	add := func(def string) {
		var tool mcp.Tool
		if err := json.Unmarshal([]byte(def), &tool); err != nil {
			t.Fatal(err)
		}
		var raw struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		json.Unmarshal([]byte(def), &raw)
		tool.InputSchema, tool.RawInputSchema = mcp.ToolInputSchema{}, raw.InputSchema
		n := new(atomic.Int64)
		ran[tool.Name] = n
		s.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.Add(1)
			return mcp.NewToolResultText("ran"), nil
		})
	}
	add(`{"name":"keys","description":"List, create or revoke API keys.","inputSchema":{"type":"object",` +
		`"properties":{"action":{"type":"string","enum":["list","create","revoke"]},"label":{"type":"string"}},"required":["action"]}}`)
	add(`{"name":"notes_read","description":"Read the notes.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object"}}`)
	add(`{"name":"notes_write","description":"Write a note. It replaces the old one.","inputSchema":{"type":"object",` +
		`"properties":{"text":{"type":"string"}},"required":["text"]}}`)
	yes := true
	cat, err := mcpgo.CatalogFromServer(s, &discovery.CatalogOptions{MetaTools: map[string]metatool.Tool{
		"keys": {Actions: []metatool.Action{{Name: "list", ReadOnlyHint: &yes}, {Name: "create"}, {Name: "revoke", DestructiveHint: &yes}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	mem := grants.NewMemory()
	for _, tool := range []string{"keys.list", "keys.create", "notes_read", "notes_write"} {
		mem.Put(context.Background(), grants.Row{Principal: alice.ID, Tool: tool, Effect: grants.Allow})
	}
	f := &fixture{cat: cat, server: s, reads: &countingReader{Reader: mem}}
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: f.reads, SafeMode: safemode.Options{Enabled: true}})
	f.a = mcpgo.New(f.d, nil)
	return f, ran
}

// SPEC CALL-1, VIS-1, ERR-1, ERR-2: through the mcp-go adapter, over stdio (the exact
// bytes) and streamable HTTP (mcp-go's client), a meta tool is listed with its served
// actions only and decided on its action, and safe mode holds mutating calls: a
// preview result (isError, the token in _meta only) that never reaches the handler,
// the same call with the token runs once, a token for other arguments is refused with
// invalid_confirmation, and read-only tools and actions run at once.
func TestSafeModeAndMetaToolsThroughAdapter(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		f, ran := safeMetaFixture(t)
		c := f.listen(t, mcpgo.WithPrincipal(context.Background(), alice))
		c.initialize()
		list := c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "1")
		if !strings.Contains(string(list), `"enum":["list","create"]`) || strings.Contains(string(list), `"revoke"`) {
			t.Errorf("tools/list does not serve keys with its granted actions only: %s", list)
		}
		callLine := func(id int, tool, args, token string) string {
			meta := ""
			if token != "" {
				meta = fmt.Sprintf(`,"_meta":{%q:%q}`, safemode.MetaKey, token)
			}
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s}}`, id, tool, args, meta)
		}
		held := func(resp []byte) string {
			var r struct {
				Result struct {
					Meta    map[string]string `json:"_meta"`
					IsError bool              `json:"isError"`
					Content []struct{ Text string }
				} `json:"result"`
			}
			if err := json.Unmarshal(resp, &r); err != nil || !r.Result.IsError || len(r.Result.Content) != 1 {
				t.Fatalf("not a preview result: %s", resp)
			}
			token := r.Result.Meta[safemode.MetaKey]
			if token == "" || strings.Contains(r.Result.Content[0].Text, token) {
				t.Fatalf("the preview's token is missing or in the text: %s", resp)
			}
			return token
		}
		if e := decodeError(t, c.call(callLine(2, "keys", `{"action":"revoke"}`, ""), "2")); e.Message != "tool_not_granted" {
			t.Errorf("keys revoke: %+v, want tool_not_granted", e)
		}
		c.call(callLine(3, "keys", `{"action":"list"}`, ""), "3")
		if ran["keys"].Load() != 1 {
			t.Fatalf("keys list (read-only action) ran %d times, want 1", ran["keys"].Load())
		}
		token := held(c.call(callLine(4, "keys", `{"action":"create","label":"ci"}`, ""), "4"))
		if ran["keys"].Load() != 1 {
			t.Fatal("a held keys create reached the handler")
		}
		if e := decodeError(t, c.call(callLine(5, "keys", `{"action":"create","label":"prod"}`, token), "5")); e.Message != "invalid_confirmation" || e.Data.Status != 400 {
			t.Errorf("a token for other arguments: %+v, want invalid_confirmation 400", e)
		}
		c.call(callLine(6, "keys", `{"action":"create","label":"ci"}`, token), "6")
		if ran["keys"].Load() != 2 {
			t.Errorf("the confirmed keys create ran %d times in all, want 2", ran["keys"].Load())
		}
		held(c.call(callLine(7, "notes_write", `{"text":"x"}`, ""), "7"))
		c.call(callLine(8, "notes_read", `{}`, ""), "8")
		if ran["notes_write"].Load() != 0 || ran["notes_read"].Load() != 1 {
			t.Errorf("notes_write ran %d, notes_read %d; want 0 and 1", ran["notes_write"].Load(), ran["notes_read"].Load())
		}
	})
	t.Run("http", func(t *testing.T) {
		f, ran := safeMetaFixture(t)
		srv := f.httpServer(t)
		c, err := client.NewStreamableHttpClient(srv.URL, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok-alice"}))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
			t.Fatal(err)
		}
		list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			if tool.Name == "keys" {
				b, _ := json.Marshal(tool.RawInputSchema)
				if len(tool.RawInputSchema) == 0 {
					b, _ = json.Marshal(tool.InputSchema)
				}
				if !strings.Contains(string(b), `["list","create"]`) {
					t.Errorf("keys served with %s, want the enum [list create]", b)
				}
			}
		}
		call := func(tool string, args map[string]any, token string) (*mcp.CallToolResult, error) {
			p := mcp.CallToolParams{Name: tool, Arguments: args}
			if token != "" {
				p.Meta = &mcp.Meta{AdditionalFields: map[string]any{safemode.MetaKey: token}}
			}
			return c.CallTool(ctx, mcp.CallToolRequest{Params: p})
		}
		if _, err := call("keys", map[string]any{"action": "revoke"}, ""); err == nil || !strings.Contains(err.Error(), "tool_not_granted") {
			t.Errorf("keys revoke: %v, want tool_not_granted", err)
		}
		res, err := call("notes_write", map[string]any{"text": "x"}, "")
		if err != nil || !res.IsError || res.Meta == nil {
			t.Fatalf("notes_write without a token: %+v, %v; want a preview", res, err)
		}
		token, _ := res.Meta.AdditionalFields[safemode.MetaKey].(string)
		if token == "" || ran["notes_write"].Load() != 0 {
			t.Fatalf("no token in the preview's _meta (%v), or the handler ran", res.Meta.AdditionalFields)
		}
		if _, err := call("notes_write", map[string]any{"text": "y"}, token); err == nil || !strings.Contains(err.Error(), "invalid_confirmation") {
			t.Errorf("a token for other arguments: %v, want invalid_confirmation", err)
		}
		if res, err := call("notes_write", map[string]any{"text": "x"}, token); err != nil || res.IsError || ran["notes_write"].Load() != 1 {
			t.Errorf("confirmed notes_write: %+v, %v, ran %d; want run once", res, err, ran["notes_write"].Load())
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		if !slices.Contains(names, "keys") {
			t.Errorf("keys not listed: %v", names)
		}
	})
}
