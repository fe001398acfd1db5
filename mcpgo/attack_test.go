package mcpgo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// Attacks on the mcp-go adapter through its real stdio front (Listen), beyond
// edges_test.go: each names the promise it checks and what would break it.

// aliceDigest returns alice's contract digest as tools/list serves it.
func aliceDigest(t *testing.T, c *rawStdio) string {
	t.Helper()
	var list struct {
		Result struct {
			Meta map[string]any `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal(c.call(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`, `"list"`), &list); err != nil {
		t.Fatal(err)
	}
	d, _ := list.Result.Meta[mcpgo.MetaContractDigest].(string)
	if d == "" {
		t.Fatal("tools/list carries no contract digest")
	}
	return d
}

// SPEC CONTRACT-2: a client's contract pin that differs answers contract_changed on
// every tools/call: the discovery tool's too (it served its page), and a pin whose
// member name is spelled with an escape ("contract\u005fdigest", which mcp-go's
// decoder reads as the pin) as well as one spelled plainly (the front compared the raw
// member name, so the escaped pin was ignored and the call ran). The right pin, in
// either spelling, passes.
func TestAttackContractPin(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), alice))
	c.initialize()
	digest := aliceDigest(t, c)
	stale := "sha256:" + strings.Repeat("0", 64)
	call := func(id, name, args, metaKey, pin string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,"_meta":{"` + metaKey + `":"` + pin + `"}}}`
	}
	for _, c2 := range []struct {
		name, msg string
		want      discovery.Code // "" a result
	}{
		{"discovery tool, stale pin", call("d1", "search_tools", `{"query":"weather"}`, "contract_digest", stale), discovery.CodeContractChanged},
		{"discovery tool, escaped stale pin", call("d2", "search_tools", `{"query":"weather"}`, `contract\u005fdigest`, stale), discovery.CodeContractChanged},
		{"discovery tool, right pin", call("d3", "search_tools", `{"query":"weather"}`, "contract_digest", digest), ""},
		{"tool, escaped stale pin", call("t1", "weather_get", `{"city":"Oslo"}`, `contract\u005fdigest`, stale), discovery.CodeContractChanged},
		{"tool, escaped right pin", call("t2", "weather_get", `{"city":"Oslo"}`, `\u0063ontract_digest`, digest), ""},
	} {
		id := `"` + c2.msg[strings.Index(c2.msg, `"id":"`)+6:][:2] + `"`
		resp := c.call(c2.msg, id)
		if c2.want != "" {
			wantError(t, resp, c2.want)
			continue
		}
		if e := decodeError(t, resp); e != nil || !strings.Contains(string(resp), `"result"`) {
			t.Errorf("%s: %s, want a result", c2.name, resp)
		}
	}
	if n := f.calls("weather_get"); n != 1 {
		t.Errorf("weather_get ran %d times, want once (the right pin only)", n)
	}
}

// SPEC CALL-1, CALL-2: a tools/call notification (no id) runs nothing, valid arguments
// or not, and is answered by nothing; the session goes on. Breaks when the front lets a
// notification through to mcp-go, which would run the handler with nobody to answer.
func TestAttackCallNotificationRunsNothing(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), alice))
	c.initialize()
	for _, n := range []string{
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"city":7}}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"secrets_read","arguments":{"key":"k"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather"}}}`,
		`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"weather"}}`,
	} {
		c.send(n)
	}
	if resp := c.next(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`); !strings.Contains(string(resp), `"id":"ping"`) {
		t.Errorf("a notification was answered: the next answer is %s", resp)
	}
	for _, tool := range []string{"weather_get", "secrets_read"} {
		if n := f.calls(tool); n != 0 {
			t.Errorf("%s ran %d times for notifications, want never", tool, n)
		}
	}
}

// boundTools returns two tools: fit, whose discover response to id 1 (its query the
// word "exactfit") is exactly discovery.MaxResponseBytes when its canonical form is
// grow bytes longer than its text, and over, one byte longer (query "oneover"); both
// granted to everyone by rows.
func boundTools(grow int) (tools []json.RawMessage, rows []grants.Row) {
	frame := len(`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttlMs":0,"cacheScope":"private","_meta":{"contract_digest":""}}}`) + len("sha256:") + 64
	tool := func(name, word string, extra int) json.RawMessage {
		def := func(n int) []byte {
			b, _ := json.Marshal(map[string]any{"name": name, "description": word + " " + strings.Repeat("x", n), "inputSchema": map[string]any{"type": "object"}})
			return b
		}
		return def(discovery.MaxResponseBytes - frame - len(def(0)) - grow + extra)
	}
	tools = []json.RawMessage{tool("fit_tool", "exactfit", 0), tool("over_tool", "oneover", 1)}
	for _, n := range []string{"fit_tool", "over_tool"} {
		rows = append(rows, grants.Row{Principal: grants.AnyPrincipal, Tool: n, Effect: grants.Allow, Revision: 1})
	}
	return tools, rows
}

// SPEC PAGE-1, PAGE-3 through mcp-go's front: a discover response of exactly 65,536
// bytes is served whole; a tool one byte longer answers tool_schema_too_large, never
// shortened. Breaks on an off-by-one in the page accounting or the front's framing.
func TestAttackPageExactlyAtTheBound(t *testing.T) {
	// mcp-go adds members to the definitions it lists ("annotations":{}): measure what
	// the catalog built from its server holds, then size the tools for it.
	tools, rows := boundTools(0)
	probe := newFixture(t, fixtureOptions{enabled: true, tools: tools})
	def, _ := probe.cat.Tool("fit_tool")
	tools, _ = boundTools(len(def) - len(tools[0]))
	mem := grants.NewMemory()
	for _, r := range rows {
		mem.Put(context.Background(), r)
	}
	f := newFixture(t, fixtureOptions{enabled: true, tools: tools, reader: mem})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), alice))
	c.initialize()
	resp := c.call(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"exactfit"}}`, "1")
	if len(resp) != discovery.MaxResponseBytes || !strings.Contains(string(resp), `"name":"fit_tool"`) {
		t.Errorf("exact fit: %d bytes %.200s, want fit_tool in exactly %d bytes", len(resp), resp, discovery.MaxResponseBytes)
	}
	wantError(t, c.call(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"oneover"}}`, "1"), discovery.CodeSchemaTooLarge)
}

// SPEC DISC-2 through mcp-go's front: limit 16 spelled 16.0, 1.6e1 or with 20,000 zeros
// and e-20000 is 16, served; 16.000000000000001 (16 as a float64) is not an integer.
func TestAttackLimitSpellings(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), alice))
	c.initialize()
	disc := func(id, limit string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"multillm.tools.discover","params":{"query":"weather","limit":` + limit + `}}`
	}
	for i, l := range []string{"16.0", "1.6e1", "16" + strings.Repeat("0", 20000) + "e-20000"} {
		id := `"ok` + string(rune('0'+i)) + `"`
		if resp := c.call(disc(id[1:len(id)-1], l), id); decodeError(t, resp) != nil {
			t.Errorf("limit %.12s: %s, want a page", l, resp)
		}
	}
	wantError(t, c.call(disc("bad", "16.000000000000001"), `"bad"`), discovery.CodeInvalidParams)
}
