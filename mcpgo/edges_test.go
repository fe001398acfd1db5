package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// canary is planted in every message of the edge corpus: it must never come back
// (SPEC ERR-2).
const canary = "Cq7-CANARY-93f1"

// An edge is one hostile message (ID stands for its id). Its answer must be the
// adapter's error want, with the message's id when withID; want "" accepts any answer
// that is content-free (a result, or an error in the adapter's form). status is the
// HTTP status (0: 200). Then the session must answer the next request.
type edge struct {
	name   string
	msg    string
	want   discovery.Code
	withID bool
	status int
}

func nested(depth int) string {
	return strings.Repeat("[", depth) + `"` + canary + `"` + strings.Repeat("]", depth)
}

// edgeCorpus is the corpus for a principal who may call weather_get and not
// secrets_read. Besides malformed JSON it holds what mcp-go would read another way than
// a strict reader: encoding/json matches member names case-insensitively and keeps the
// last of repeated ones, so "Method", "Name" and "Arguments" twins must be refused, or
// a denied call could pass the front as a granted one (or as no call at all).
func edgeCorpus() []edge {
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":` + params + `}`
	}
	denied := func(args string) string { return call(`{"name":"secrets_read","arguments":` + args + `}`) }
	es := []edge{
		{name: "truncated", msg: `{"jsonrpc":"2.0","id":ID,"method":"tools/list","params":{"x":"` + canary, want: discovery.CodeParseError, status: 400},
		{name: "not JSON", msg: canary + ` {"jsonrpc":"2.0","id":ID}`, want: discovery.CodeParseError, status: 400},
		{name: "trailing data", msg: `{"jsonrpc":"2.0","id":ID,"method":"ping"}{"x":"` + canary + `"}`, want: discovery.CodeParseError, status: 400},
		{name: "invalid UTF-8", msg: "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"ping\",\"params\":{\"x\":\"" + canary + "\xff\"}}", want: discovery.CodeParseError, withID: true, status: 400},
		{name: "batch", msg: `[{"jsonrpc":"2.0","id":ID,"method":"` + canary + `"}]`, want: discovery.CodeInvalidRequest, status: 400},
		{name: "scalar", msg: `"` + canary + `"`, want: discovery.CodeInvalidRequest, status: 400},
		{name: "wrong version", msg: `{"jsonrpc":"1.0","id":ID,"method":"` + canary + `"}`, want: discovery.CodeInvalidRequest, withID: true, status: 400},
		{name: "id object", msg: `{"jsonrpc":"2.0","id":{"x":"` + canary + `"},"method":"ping"}`, want: discovery.CodeInvalidRequest, status: 400},
		{name: "method number", msg: `{"jsonrpc":"2.0","id":ID,"method":1,"params":{"x":"` + canary + `"}}`, want: discovery.CodeInvalidRequest, withID: true, status: 400},
		// Case twins, read one way by the front and another by encoding/json.
		{name: "Method twin", msg: `{"jsonrpc":"2.0","id":ID,"method":"tools/list","Method":"tools/call","params":{"name":"secrets_read","arguments":{"k":"` + canary + `"}}}`, want: discovery.CodeInvalidRequest, withID: true, status: 400},
		{name: "METHOD alone", msg: `{"jsonrpc":"2.0","id":ID,"METHOD":"tools/call","params":{"name":"secrets_read","arguments":{"k":"` + canary + `"}}}`, want: discovery.CodeInvalidRequest, withID: true, status: 400},
		{name: "Params twin", msg: `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}},"Params":{"name":"secrets_read"}}`, want: discovery.CodeInvalidRequest, withID: true, status: 400},
		{name: "escaped method twin", msg: `{"jsonrpc":"2.0","id":ID,"method":"ping","\u004dethod":"tools/call","params":{"name":"secrets_read"}}`, want: discovery.CodeInvalidRequest, withID: true, status: 400},
		{name: "Kelvin id twin", msg: `{"jsonrpc":"2.0","id":ID,"ıd":1,"method":"ping"}`, want: "", withID: true},
		{name: "Name twin", msg: call(`{"name":"weather_get","Name":"secrets_read","arguments":{"city":"` + canary + `"}}`), want: discovery.CodeInvalidParams, withID: true},
		{name: "NAME alone", msg: call(`{"NAME":"secrets_read","arguments":{"k":"` + canary + `"}}`), want: discovery.CodeInvalidParams, withID: true},
		{name: "Arguments twin", msg: call(`{"name":"weather_get","arguments":{"city":"Oslo"},"Arguments":{"city":"` + canary + `"}}`), want: discovery.CodeInvalidParams, withID: true},
		{name: "_META twin", msg: call(`{"name":"weather_get","arguments":{"city":"Oslo"},"_meta":{},"_META":{"x":"` + canary + `"}}`), want: discovery.CodeInvalidParams, withID: true},
		{name: "name twice", msg: call(`{"name":"weather_get","name":"secrets_read","arguments":{"k":"` + canary + `"}}`), want: discovery.CodeInvalidParams, withID: true},
		{name: "name number", msg: call(`{"name":123,"arguments":{"password":"` + canary + `"}}`), want: discovery.CodeInvalidParams, withID: true},
		{name: "name missing", msg: call(`{"arguments":{"password":"` + canary + `"}}`), want: discovery.CodeInvalidParams, withID: true},
		{name: "params string", msg: call(`"` + canary + `"`), want: discovery.CodeInvalidParams, withID: true},
		// The tool name decides first (SPEC CALL-1, VIS-2).
		{name: "unknown tool", msg: call(`{"name":"` + canary + `","arguments":{}}`), want: discovery.CodeToolNotGranted, withID: true},
		{name: "denied, {}", msg: denied(`{}`), want: discovery.CodeToolNotGranted, withID: true},
		{name: "denied, nested 5,000", msg: denied(`{"x":` + nested(5000) + `}`), want: discovery.CodeToolNotGranted, withID: true},
		{name: "denied, nested 20,000", msg: denied(`{"x":` + nested(20000) + `}`), want: discovery.CodeToolNotGranted, withID: true},
		{name: "denied, duplicate keys", msg: denied(`{"k":"a","k":"` + canary + `"}`), want: discovery.CodeToolNotGranted, withID: true},
		{name: "denied, mistyped", msg: denied(`"` + canary + `"`), want: discovery.CodeToolNotGranted, withID: true},
		{name: "denied, invalid UTF-8", msg: denied("{\"k\":\"" + canary + "\xff\"}"), want: discovery.CodeToolNotGranted, withID: true},
		{name: "denied, 2 MB", msg: denied(`{"k":"` + strings.Repeat(canary, 2<<20/len(canary)) + `"}`), want: discovery.CodeToolNotGranted, withID: true},
		// A granted call: its arguments are validated, never echoed.
		{name: "granted, mistyped", msg: call(`{"name":"weather_get","arguments":{"city":["` + canary + `"]}}`), want: "", withID: true},
		{name: "granted, extra member", msg: call(`{"name":"weather_get","arguments":{"city":"Oslo","` + canary + `":1}}`), want: "", withID: true},
		// A number the schema allows but float64 cannot hold: the library validates it
		// from its text (SPEC CALL-8), mcp-go's decoder then refuses the whole message.
		{name: "granted, 1e999", msg: call(`{"name":"weather_station_0","arguments":{"station":"` + canary + `","n":1e999}}`), want: discovery.CodeInvalidRequest, withID: true},
		{name: "pin differs", msg: call(`{"name":"weather_get","arguments":{"city":"Oslo"},"_meta":{"contract_digest":"` + canary + `"}}`), want: discovery.CodeContractChanged, withID: true},
		// mcp-go's own errors, which quote what they were sent, rewritten.
		{name: "unknown method", msg: `{"jsonrpc":"2.0","id":ID,"method":"` + canary + `/x","params":{}}`, want: discovery.CodeMethodNotFound, withID: true},
		{name: "tools/list params string", msg: `{"jsonrpc":"2.0","id":ID,"method":"tools/list","params":"` + canary + `"}`, want: "", withID: true},
		{name: "prompts/get unknown", msg: `{"jsonrpc":"2.0","id":ID,"method":"prompts/get","params":{"name":"` + canary + `"}}`, want: "", withID: true},
		{name: "resources/read unknown", msg: `{"jsonrpc":"2.0","id":ID,"method":"resources/read","params":{"uri":"file:///` + canary + `"}}`, want: "", withID: true},
		// The discover method: strict params (SPEC DISC-1), no echo.
		{name: "discover unknown member", msg: `{"jsonrpc":"2.0","id":ID,"method":"multillm.tools.discover","params":{"query":"weather","` + canary + `":1}}`, want: discovery.CodeInvalidParams, withID: true, status: 400},
		{name: "discover bad cursor", msg: `{"jsonrpc":"2.0","id":ID,"method":"multillm.tools.discover","params":{"query":"weather","cursor":"` + canary + `"}}`, want: discovery.CodeInvalidCursor, withID: true, status: 400},
		{name: "discover long query", msg: `{"jsonrpc":"2.0","id":ID,"method":"multillm.tools.discover","params":{"query":"` + strings.Repeat(canary, 40) + `"}}`, want: discovery.CodeInvalidParams, withID: true, status: 400},
	}
	// Repeated members and an ambiguous pin or token in _meta: answered as mcpsdk answers them.
	for _, e := range adaptertest.SharedEdges("weather_get", canary) {
		es = append(es, edge{name: e.Name, msg: e.Msg, want: e.Code, withID: e.WithID, status: e.Status})
	}
	return es
}

// checkAnswer fails unless answer is content-free and, when want is set, the adapter's
// error want carrying id when withID.
func checkAnswer(t *testing.T, name string, answer []byte, want discovery.Code, id string, withID bool) {
	t.Helper()
	if bytes.Contains(answer, []byte(canary)) {
		t.Errorf("%s: the answer carries the canary: %.300s", name, answer)
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *rpcErr         `json:"error"`
	}
	if err := json.Unmarshal(answer, &env); err != nil {
		t.Errorf("%s: answer %.300q is not JSON-RPC: %v", name, answer, err)
		return
	}
	if withID && string(env.ID) != id {
		t.Errorf("%s: answer id %s, want %s", name, env.ID, id)
	}
	if e := env.Error; e != nil {
		code := discovery.Code(e.Message)
		if e.Data.Error != e.Message || (code.Status() == 500 && code != discovery.CodeInternal && code != discovery.CodeServerError) {
			t.Errorf("%s: error %+v is not the adapter's content-free form", name, e)
		}
	}
	if want != "" && (env.Error == nil || env.Error.Message != string(want) || env.Error.Code != want.JSONRPCCode()) {
		t.Errorf("%s: answered %.300s, want the error %s", name, answer, want)
	}
}

// SPEC ERR-2, CALL-1, VIS-2, DISC-1: over stdio, each message of the corpus gets one
// content-free answer, the session answers a ping after it (a bad line never ends
// it), no answer carries the canary, and no refused call reaches a handler.
func TestStdioEdges(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), bob))
	c.initialize()
	for i, e := range edgeCorpus() {
		id := fmt.Sprintf(`"e%d"`, i)
		c.send(strings.Replace(e.msg, "ID", id, 1))
		wantID := id
		if !e.withID {
			wantID = "null"
		}
		checkAnswer(t, e.name, c.await(wantID), e.want, id, e.withID)
		if pong := c.call(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`, `"ping"`); !bytes.Contains(pong, []byte(`"result":{}`)) {
			t.Errorf("%s: the ping after it answered %s", e.name, pong)
		}
	}
	if n := f.calls("secrets_read"); n != 0 {
		t.Errorf("secrets_read ran %d times", n)
	}
}

// SPEC ERR-2, CALL-1, VIS-2, DISC-1 over streamable HTTP: Handler in front of mcp-go's
// handler answers each message of the corpus content-free (malformed 400, tools/call
// refusals 200, discover refusals their status), the session answers a ping after
// it, and no response body or header carries the canary.
func TestHTTPEdges(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	srv := f.httpServer(t)
	h := &httpSession{t: t, url: srv.URL, token: "tok-bob"}
	h.initialize()
	for i, e := range edgeCorpus() {
		id := fmt.Sprintf(`"e%d"`, i)
		resp, body := h.post(strings.Replace(e.msg, "ID", id, 1), "")
		want := e.status
		if want == 0 {
			want = 200
		}
		if resp.StatusCode != want {
			t.Errorf("%s: HTTP %d %.200s, want %d", e.name, resp.StatusCode, body, want)
		}
		checkAnswer(t, e.name, httpAnswer(resp, body), e.want, id, e.withID)
		if resp, body := h.post(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`, ""); !bytes.Contains(body, []byte(`"result":{}`)) {
			t.Errorf("%s: the ping after it answered %d %s", e.name, resp.StatusCode, body)
		}
	}
	if n := f.calls("secrets_read"); n != 0 {
		t.Errorf("secrets_read ran %d times", n)
	}
}

// httpSession is a raw streamable HTTP client of one mcp-go session.
type httpSession struct {
	t       *testing.T
	url     string
	token   string
	session string
}

func (h *httpSession) initialize() {
	resp, body := h.post(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"edges","version":"0"}}}`, "")
	h.session = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || h.session == "" {
		h.t.Fatalf("initialize: %d %s, session %q", resp.StatusCode, body, h.session)
	}
	h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "")
}

// post sends msg (with Accept, when not empty) and returns the response and its body.
func (h *httpSession) post(msg, accept string) (*http.Response, []byte) {
	h.t.Helper()
	resp, body := adaptertest.MCPPost{URL: h.url, Token: h.token, Session: h.session, Version: "2025-06-18", Accept: accept}.Do(h.t, msg)
	if bytes.Contains(body, []byte(canary)) || strings.Contains(fmt.Sprint(resp.Header), canary) {
		h.t.Errorf("a response carries the canary: %d %v %.300s", resp.StatusCode, resp.Header, body)
	}
	return resp, body
}

// httpAnswer is the JSON-RPC message of a JSON body or of the first data event of an
// event stream, or nil.
func httpAnswer(resp *http.Response, body []byte) []byte {
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, ln := range bytes.Split(body, []byte("\n")) {
			if d, ok := bytes.CutPrefix(ln, []byte("data: ")); ok && len(bytes.TrimSpace(d)) > 0 {
				return d
			}
		}
		return nil
	}
	return bytes.TrimSpace(body)
}

// SPEC ERR-2, CALL-1: a line over the stdio cap and a body over the HTTP cap answer
// message_too_large (HTTP 413) and the session goes on.
func TestOverCap(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	f.a = mcpgo.New(f.d, &mcpgo.Options{MaxLineBytes: 1 << 20, MaxRequestBodyBytes: 1 << 20})
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"` + strings.Repeat(canary, 2<<20/len(canary)) + `"}}}`
	t.Run("stdio", func(t *testing.T) {
		c := f.listen(t, mcpgo.WithPrincipal(context.Background(), bob))
		c.initialize()
		c.send(big)
		wantError(t, c.await("null"), discovery.CodeMessageTooLarge)
		if pong := c.call(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`, `"ping"`); !bytes.Contains(pong, []byte(`"result":{}`)) {
			t.Errorf("the ping after it answered %s", pong)
		}
	})
	t.Run("http", func(t *testing.T) {
		h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-bob"}
		h.initialize()
		resp, body := h.post(big, "")
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("HTTP %d, want 413", resp.StatusCode)
		}
		wantError(t, body, discovery.CodeMessageTooLarge)
	})
	if f.calls("weather_get") != 0 {
		t.Error("an oversized call ran")
	}
}

// SPEC CALL-1, ERR-1: a tools/call refusal whose request's Accept takes only
// text/event-stream is one event in an HTTP 200 response.
func TestHTTPRefusalAsEvent(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-bob"}
	h.initialize()
	resp, body := h.post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"secrets_read","arguments":{}}}`, "text/event-stream")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("HTTP %d %s, want 200 text/event-stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	wantError(t, httpAnswer(resp, body), discovery.CodeToolNotGranted)
}

// SPEC VIS-3 (hardening: a per-principal answer is never marked shareable): a host
// that marks results public (WithCacheHints) still gets narrowed tools/list results
// marked "private", its ttlMs kept, for a client of protocol 2026-07-28 (which gets
// the hints) and for an older one (which gets cacheScope added); the discover result
// is "private" with ttlMs 0.
func TestCacheScopePrivate(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, serverOpt: []server.ServerOption{server.WithCacheHints(60000, mcp.CacheScopePublic)}})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), alice))
	modernMeta := `"_meta":{"` + mcp.MetaKeyProtocolVersion + `":"2026-07-28","` + mcp.MetaKeyClientCapabilities + `":{},"` +
		mcp.MetaKeyClientInfo + `":{"name":"raw","version":"0"}}`
	var r struct {
		Result struct {
			CacheScope *string `json:"cacheScope"`
			TTLMs      *int    `json:"ttlMs"`
		} `json:"result"`
	}
	modern := c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`, "1")
	if err := json.Unmarshal(modern, &r); err != nil || r.Result.CacheScope == nil || *r.Result.CacheScope != "private" || r.Result.TTLMs == nil || *r.Result.TTLMs != 60000 {
		t.Errorf("modern tools/list = %.400s, want cacheScope \"private\" and the host's ttlMs 60000", modern)
	}
	c.initialize()
	r.Result.CacheScope, r.Result.TTLMs = nil, nil
	legacy := c.call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "2")
	if err := json.Unmarshal(legacy, &r); err != nil || r.Result.CacheScope == nil || *r.Result.CacheScope != "private" {
		t.Errorf("legacy tools/list = %.400s, want cacheScope \"private\"", legacy)
	}
	r.Result.CacheScope, r.Result.TTLMs = nil, nil
	d := c.call(`{"jsonrpc":"2.0","id":3,"method":"multillm.tools.discover","params":{"query":"weather"}}`, "3")
	if err := json.Unmarshal(d, &r); err != nil || r.Result.CacheScope == nil || *r.Result.CacheScope != "private" || r.Result.TTLMs == nil || *r.Result.TTLMs != 0 {
		t.Errorf("discover = %.300s, want cacheScope \"private\", ttlMs 0", d)
	}
}

// SPEC ERR-2: mcp-go's plain-text error bodies, which quote what they were sent (an
// Mcp-Protocol-Version header it does not speak, a session id), are replaced: by a
// content-free JSON-RPC error with the request's id for a 400, else by the status text
// (mcp-go answers the unknown version with a JSON-RPC error of its own, rewritten).
func TestHTTPTextErrorsReplaced(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-bob"}
	h.initialize()
	for _, c := range []struct {
		header, value string
		status        int
	}{
		{"Mcp-Protocol-Version", canary, http.StatusBadRequest},
		{"Mcp-Session-Id", canary, http.StatusNotFound},
	} {
		req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer tok-bob")
		req.Header.Set("Mcp-Session-Id", h.session)
		req.Header.Set(c.header, c.value)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || bytes.Contains(body, []byte(canary)) {
			t.Errorf("%s: HTTP %d %q, want %d without the canary", c.header, resp.StatusCode, body, c.status)
		}
		if c.status == http.StatusBadRequest {
			checkAnswer(t, c.header, body, "", "5", true)
		}
	}
}

// SPEC VIS-3, DISC-3 (hardening) in HTTP terms: a narrowed tools/list, a discover
// answer and a discovery tool page say Cache-Control private and no-store, never
// public, even when the handler
// behind the adapter marks every response public: no shared cache may serve one
// principal's list to another.
func TestHTTPCacheControlPrivate(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools", serverOpt: []server.ServerOption{server.WithCacheHints(60000, mcp.CacheScopePublic)}})
	sdk := server.NewStreamableHTTPServer(f.server)
	public := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=600, s-maxage=600")
		sdk.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(bearer(f.a.Handler(public)))
	t.Cleanup(srv.Close)
	h := &httpSession{t: t, url: srv.URL, token: "tok-bob"}
	h.initialize()
	for _, msg := range adaptertest.PrivatePages(f.d.Method(), "search_tools") {
		resp, _ := h.post(msg, "")
		cc := strings.Join(resp.Header.Values("Cache-Control"), ", ")
		if resp.StatusCode != 200 || strings.Contains(cc, "public") || strings.Contains(cc, "s-maxage") ||
			!strings.Contains(cc, "private") || !strings.Contains(cc, "no-store") {
			t.Errorf("%s: HTTP %d, Cache-Control %q; want private, no-store, never public", msg, resp.StatusCode, cc)
		}
	}
}

// A response the client posts is answered by no JSON-RPC message: mcp-go refuses an
// error response with a plain-text 400, which the front replaces by the status text,
// never by a JSON-RPC error carrying the response's id (which names a call of the
// server's, not a request of the client's).
func TestHTTPStrayResponse(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-bob"}
	h.initialize()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"` + canary + `"}}`,
		`{"jsonrpc":"2.0","id":6,"result":{"x":"` + canary + `"}}`,
	} {
		resp, body := h.post(msg, "")
		if bytes.Contains(body, []byte(`"jsonrpc"`)) {
			t.Errorf("%s: HTTP %d %s, want no JSON-RPC answer", msg, resp.StatusCode, body)
		}
	}
}

// A POST that arrived on a loopback address with a foreign Host (DNS rebinding) is
// refused 403 before it is screened, whatever it holds: a discover request makes no
// page, and a denied or granted tools/call, or the discovery tool, reads no grant and
// runs nothing.
func TestReboundReadsNoGrants(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: mcpgo.StaticPrincipal(alice), tool: "search_tools"})
	h := f.a.Handler(server.NewStreamableHTTPServer(f.server))
	for _, c := range []struct{ name, body string }{
		{"discover", `{"jsonrpc":"2.0","id":6,"method":"multillm.tools.discover","params":{"query":"weather"}}`},
		{"denied call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secrets_read","arguments":{"key":"x"}}}`},
		{"granted call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`},
		{"discovery tool", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather"}}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`},
	} {
		r := httptest.NewRequest("POST", "http://evil.example/mcp", strings.NewReader(c.body))
		r.Header.Set("Content-Type", "application/json")
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
		before := f.reads.n.Load()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusForbidden {
			t.Errorf("rebound %s: status %d, want 403", c.name, w.Code)
		}
		if n := f.reads.n.Load() - before; n != 0 {
			t.Errorf("rebound %s read grants %d times, want 0", c.name, n)
		}
	}
	if n := f.calls("weather_get"); n != 0 {
		t.Errorf("a rebound call ran weather_get %d times", n)
	}
}

// With Options.DisableLocalhostProtection, for a host whose mcp-go handler has its own
// protection off (a reverse proxy on a loopback address forwards a public Host),
// Handler refuses nothing for its Host either: discover, a denied call and
// initialize are answered as usual.
func TestReboundAllowedWhenProtectionOff(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: mcpgo.StaticPrincipal(alice)})
	a := mcpgo.New(f.d, &mcpgo.Options{Principal: mcpgo.StaticPrincipal(alice), DisableLocalhostProtection: true})
	h := a.Handler(server.NewStreamableHTTPServer(f.server, server.WithDisableLocalhostProtection(true)))
	for _, c := range []struct{ name, body, want string }{
		{"discover", `{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather"}}`, `"result"`},
		{"denied call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"secrets_read","arguments":{"key":"x"}}}`, `"tool_not_granted"`},
		{"initialize", `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, `"result"`},
	} {
		r := httptest.NewRequest("POST", "http://mcp.example.com/mcp", strings.NewReader(c.body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), c.want) {
			t.Errorf("%s behind a proxy: %d %.200s, want 200 with %s", c.name, w.Code, w.Body.String(), c.want)
		}
	}
}
