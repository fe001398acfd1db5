package mcpgo_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

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

// A session of another principal over streamable HTTP: mcp-go ties no session to the
// principal that opened it, so bob, naming alice's session id, could post into it,
// listen on its event stream (alice's notifications, sampling and elicitation
// requests) and end it. Through Handler each such request, and one naming alice's id
// altered or without its tag, answers 404 with the bare status text, reading nothing;
// alice's own session keeps serving, its event stream included. Failed before
// Handler bound session ids (bob's GET got alice's stream, 200).
func TestAttackHTTPForeignSession(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	srv := f.httpServer(t)
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	raw, _, _ := strings.Cut(h.session, ".")
	altered := h.session[:len(h.session)-1] + "A"
	if altered == h.session {
		altered = h.session[:len(h.session)-1] + "B"
	}
	bobSession := &httpSession{t: t, url: srv.URL, token: "tok-bob"}
	bobSession.initialize()
	do := func(method, token, session, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		resp, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		defer resp.Body.Close()
		if method == http.MethodGet && resp.StatusCode == http.StatusOK {
			return resp.StatusCode, resp.Header.Get("Content-Type"), "" // an open event stream
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	for _, c := range []struct{ name, method, token, session, body string }{
		{"bob lists", http.MethodPost, "tok-bob", h.session, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"bob pings", http.MethodPost, "tok-bob", h.session, `{"jsonrpc":"2.0","id":2,"method":"ping"}`},
		{"bob listens", http.MethodGet, "tok-bob", h.session, ""},
		{"bob ends it", http.MethodDelete, "tok-bob", h.session, ""},
		{"no principal", http.MethodPost, "", h.session, `{"jsonrpc":"2.0","id":3,"method":"ping"}`},
		{"alice, the id untagged", http.MethodPost, "tok-alice", raw, `{"jsonrpc":"2.0","id":4,"method":"ping"}`},
		{"alice, the tag altered", http.MethodPost, "tok-alice", altered, `{"jsonrpc":"2.0","id":5,"method":"ping"}`},
		{"alice, bob's session id", http.MethodPost, "tok-alice", bobSession.session, `{"jsonrpc":"2.0","id":6,"method":"ping"}`},
	} {
		if status, _, body := do(c.method, c.token, c.session, c.body); status != http.StatusNotFound || body != "Not Found\n" {
			t.Errorf("%s: %d %q, want 404 Not Found", c.name, status, body)
		}
	}
	if status, _, body := do(http.MethodPost, "tok-alice", h.session, `{"jsonrpc":"2.0","id":7,"method":"ping"}`); status != http.StatusOK || !strings.Contains(body, `"result":{}`) {
		t.Errorf("alice's ping after bob's attempts: %d %s", status, body)
	}
	if status, ct, _ := do(http.MethodGet, "tok-alice", h.session, ""); status != http.StatusOK || ct != "text/event-stream" {
		t.Errorf("alice's event stream: %d %q, want 200 text/event-stream", status, ct)
	}
	if n := f.calls("weather_get"); n != 0 {
		t.Errorf("a tool ran %d times", n)
	}
}

// SPEC CALL-1: mcp-go has no middleware behind the front, so the front must read a
// message as mcp-go will. A tools/call of a tool bob is not granted that also carries
// "result" or "error" (before or after its method) is a request to mcp-go and is
// refused tool_not_granted; one whose method is "" with a result is a response (mcp-go
// answers none) and one whose method is null is invalid_request; none runs the tool,
// and the session goes on. Breaks when the front takes a message with a result for a
// response and passes it unchecked.
func TestAttackHybridMessages(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), bob))
	c.initialize()
	const call = `"method":"tools/call","params":{"name":"secrets_read","arguments":{"key":"k"}}`
	for _, m := range []struct {
		msg, id string
		want    discovery.Code // "": no answer
	}{
		{`{"jsonrpc":"2.0","id":"h1",` + call + `,"result":{}}`, `"h1"`, discovery.CodeToolNotGranted},
		{`{"jsonrpc":"2.0","id":"h2","result":{},` + call + `}`, `"h2"`, discovery.CodeToolNotGranted},
		{`{"jsonrpc":"2.0","id":"h3",` + call + `,"error":{"code":1,"message":"x"}}`, `"h3"`, discovery.CodeToolNotGranted},
		{`{"jsonrpc":"2.0","id":"h4","method":"","params":{"name":"secrets_read","arguments":{"key":"k"}},"result":{}}`, `"h4"`, ""},
		{`{"jsonrpc":"2.0","id":"h5","method":null,"params":{"name":"secrets_read","arguments":{"key":"k"}}}`, `"h5"`, discovery.CodeInvalidRequest},
	} {
		c.send(m.msg) // read by the front before the ping is written
		if pong := c.call(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`, `"ping"`); !strings.Contains(string(pong), `"result":{}`) {
			t.Errorf("%s: the ping after it answered %s", m.id, pong)
		}
		c.mu.Lock()
		resp, answered := c.got[m.id]
		delete(c.got, m.id)
		c.mu.Unlock()
		switch {
		case m.want == "" && answered:
			t.Errorf("%s: answered %s, want nothing", m.id, resp)
		case m.want != "" && !answered:
			t.Errorf("%s: no answer before the ping's, want %s", m.id, m.want)
		case m.want != "":
			wantError(t, resp, m.want)
		}
	}
	if n := f.calls("secrets_read"); n != 0 {
		t.Errorf("secrets_read ran %d times", n)
	}
}
