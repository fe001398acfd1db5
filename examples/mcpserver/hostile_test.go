package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/examples/internal/demo"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
)

// hostileCanary marks client bytes: no answer and no log line may carry it.
const hostileCanary = "Zq9-HOSTILE-51c7"

// lineSession is a raw newline-delimited session with the example over stdio.
type lineSession struct {
	t      *testing.T
	in     io.WriteCloser
	lines  chan []byte
	stderr *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startLines starts the example on stdio (switch on, demo principal alice unless args
// say otherwise) with the flags args and initializes a session.
func startLines(t *testing.T, args ...string) *lineSession {
	t.Helper()
	return procLines(t, command(t, true, args...), func(err error, stderr string) {
		if err != nil {
			t.Errorf("the server ended with %v at the end of its input, want status 0", err)
		}
		if strings.Contains(stderr, hostileCanary) {
			t.Errorf("stderr carries client bytes:\n%.2000s", stderr)
		}
	})
}

func (s *lineSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write: %v", err)
	}
}

// roundTrip sends one line and returns the one line answering it.
func (s *lineSession) roundTrip(line string) []byte {
	s.t.Helper()
	go io.WriteString(s.in, line+"\n") // a line over the pipe's buffer blocks until read
	select {
	case b, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("the server closed its output; stderr:\n%.2000s", s.stderr)
		}
		return b
	case <-time.After(20 * time.Second):
		s.t.Fatalf("no answer to %.200q", line)
		return nil
	}
}

// answer is a JSON-RPC response as the wire carries it.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError    bool              `json:"isError"`
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	} `json:"result"`
	Error *adaptertest.RPCError `json:"error"`
}

// decodeAnswer reads b as one JSON-RPC response carrying no client bytes, whose
// error, if any, is one of the library's code words with its own code and status.
func decodeAnswer(t *testing.T, what string, b []byte) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s: answer is not JSON: %.300s", what, b)
	}
	if strings.Contains(string(b), hostileCanary) {
		t.Errorf("%s: the answer carries client bytes: %.300s", what, b)
	}
	if e := a.Error; e != nil {
		c := discovery.Code(e.Message)
		if !slices.Contains(discovery.Codes(), c) || e.Data.Error != e.Message || e.Code != c.JSONRPCCode() || e.Data.Status != c.Status() {
			t.Errorf("%s: error %+v is not one of the library's typed errors", what, *e)
		}
	}
	return a
}

func repeat(s string, n int) string { return strings.Repeat(s, n) }

// SPEC CALL-3, CALL-5, DISC-2, CURSOR-2, ERR-1, ERR-2 from outside: hostile lines sent
// to the real example over stdio each get one typed, content-free answer (or, for a
// stray response, none), lengths count code points (not bytes, UTF-16 units or
// graphemes) while the CALL-5 string bound counts UTF-16 units, and the session keeps
// serving: a ping after them is answered.
func TestStdioHostileLines(t *testing.T) {
	s := startLines(t)
	call := func(id, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"models_search","arguments":` + args + `}}`
	}
	disc := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"multillm.tools.discover","params":` + params + `}`
	}
	const (
		emoji = "\U0001F600" // 1 code point, 2 UTF-16 units, 4 bytes
		acute = "e\u0301"    // 2 code points, 1 grapheme
	)
	for _, c := range []struct {
		name, line string
		want       string // an error code word; "" a result; "invalid_arguments" an isError result
		keyword    string // with invalid_arguments: the keyword the text names
	}{
		{"binary", "\x00\x01\xfe\xff" + hostileCanary, "parse_error", ""},
		{"NUL in a string", call("1", `{"query":"`+"\x00"+hostileCanary+`"}`), "parse_error", ""},
		{"invalid JSON", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":` + hostileCanary + `}}`, "parse_error", ""},
		{"id past 2^53", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping","params":{"x":"` + hostileCanary + `"}}`, "invalid_request", ""},
		{"id -1e400", `{"jsonrpc":"2.0","id":-1e400,"method":"ping"}`, "invalid_request", ""},
		{"id 100 KB", `{"jsonrpc":"2.0","id":"` + repeat("i", 100<<10) + `","method":"ping"}`, "", ""},
		// CALL-3: maxLength 200 counts code points.
		{"200 emoji", call("3", `{"query":"`+repeat(emoji, 200)+`"}`), "", ""},
		{"201 emoji", call("4", `{"query":"`+repeat(emoji, 200)+hostileCanary[:1]+`"}`), "invalid_arguments", "maxLength"},
		{"200 escaped surrogate pairs", call("5", `{"query":"`+repeat(`\ud83d\ude00`, 200)+`"}`), "", ""},
		{"100 e+combining acute", call("6", `{"query":"`+repeat(acute, 100)+`"}`), "", ""},
		{"100 e+combining acute and one", call("7", `{"query":"`+repeat(acute, 100)+`x"}`), "invalid_arguments", "maxLength"},
		// CALL-5: the bound on strings (262,144) counts UTF-16 units: 131,100 emoji are
		// 262,200 units (past it: 503) but only 131,100 code points; 65,000 emoji are
		// within it and fail maxLength alone.
		{"131,100 emoji", call("26", `{"query":"`+repeat(emoji, 131100)+`"}`), "tool_validation_unavailable", ""},
		{"65,000 emoji", call("27", `{"query":"`+repeat(emoji, 65000)+`"}`), "invalid_arguments", "maxLength"},
		{"minLength 1, empty", call("8", `{"query":""}`), "invalid_arguments", "minLength"},
		{"extra member", call("9", `{"query":"x","`+hostileCanary+`":1}`), "invalid_arguments", "additionalProperties"},
		{"wrong type", call("10", `{"query":"x","page_size":"`+hostileCanary+`"}`), "invalid_arguments", "type"},
		{"enum", call("11", `{"query":"x","task":"`+hostileCanary+`"}`), "invalid_arguments", "enum"},
		// DISC-2: the query is 1 to 500 code points, no control character.
		{"query 500 emoji", disc("12", `{"query":"`+repeat(emoji, 500)+`"}`), "", ""},
		{"query 501 emoji", disc("13", `{"query":"`+repeat(emoji, 500)+hostileCanary[:1]+`"}`), "invalid_params", ""},
		{"query control", disc("14", `{"query":"\u0007`+hostileCanary+`"}`), "invalid_params", ""},
		{"query empty", disc("15", `{"query":""}`), "invalid_params", ""},
		{"limit 17", disc("16", `{"query":"model","limit":17}`), "invalid_params", ""},
		{"limit 1.5", disc("17", `{"query":"model","limit":1.5}`), "invalid_params", ""},
		{"unknown member", disc("18", `{"query":"model","`+hostileCanary+`":1}`), "invalid_params", ""},
		// CURSOR-2: a cursor that is not one of this process's answers the same error
		// however it looks, and never comes back.
		{"junk cursor", disc("19", `{"query":"model","cursor":"`+hostileCanary+`"}`), "invalid_cursor", ""},
		{"long cursor", disc("20", `{"query":"model","cursor":"`+repeat("A", 100000)+hostileCanary+`"}`), "invalid_cursor", ""},
		{"unknown method", `{"jsonrpc":"2.0","id":21,"method":"` + hostileCanary + `"}`, "method_not_found", ""},
		{"tools/list cursor", `{"jsonrpc":"2.0","id":22,"method":"tools/list","params":{"cursor":"` + hostileCanary + `"}}`, "invalid_params", ""},
		{"denied tool", `{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"billing_set_budget","arguments":{"x":"` + hostileCanary + `"}}}`, "tool_not_granted", ""},
		{"stale pin", `{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"models_search","arguments":{"query":"x"},"_meta":{"contract_digest":"sha256:` + hostileCanary + `"}}}`, "contract_changed", ""},
		{"over the line cap", `{"jsonrpc":"2.0","id":25,"method":"ping","params":{"x":"` + repeat("a", 16<<20) + hostileCanary + `"}}`, "message_too_large", ""},
	} {
		b := s.roundTrip(c.line)
		a := decodeAnswer(t, c.name, b)
		switch {
		case c.want == "":
			if a.Error != nil || a.Result == nil || a.Result.IsError {
				t.Errorf("%s: %.300s, want a result", c.name, b)
			}
		case c.want == "invalid_arguments":
			if a.Result == nil || !a.Result.IsError || len(a.Result.Content) != 1 ||
				!strings.HasPrefix(a.Result.Content[0].Text, `invalid arguments: keyword "`+c.keyword+`" failed at schema location "`) {
				t.Errorf("%s: %.300s, want an isError result naming %s", c.name, b, c.keyword)
			}
		default:
			if a.Error == nil || a.Error.Message != c.want {
				t.Errorf("%s: %.300s, want the error %s", c.name, b, c.want)
			}
		}
	}
	// A response nobody asked for gets no answer; the next request is served.
	s.send(`{"jsonrpc":"2.0","id":999,"result":{"x":"` + hostileCanary + `"}}`)
	if a := decodeAnswer(t, "ping", s.roundTrip(`{"jsonrpc":"2.0","id":"last","method":"ping"}`)); string(a.ID) != `"last"` || a.Error != nil {
		t.Errorf("the session stopped serving: ping answered %+v", a)
	}
}

// httpPrincipals starts the example on streamable HTTP with two bearer tokens, alice's
// and bob's (demo scopes), and returns its URL.
func httpPrincipals(t *testing.T) string {
	t.Helper()
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	body := `{"tok-alice":{"principal":"alice","scopes":["` + strings.Join(demo.Alice.Scopes, `","`) + `"]},` +
		`"tok-bob":{"principal":"bob","scopes":["` + strings.Join(demo.Bob.Scopes, `","`) + `"]}}`
	if err := os.WriteFile(tokens, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return httpTokens(t, tokens)
}

// httpTokens starts the example on streamable HTTP with the bearer tokens of the file
// tokens and returns its URL; when the test ends it stops the server and checks that
// its stderr quotes no client bytes.
func httpTokens(t *testing.T, tokens string) string {
	t.Helper()
	url, _ := procHTTP(t, command(t, true, "-http", "127.0.0.1:0", "-tokens", tokens), func(stderr string) {
		if strings.Contains(stderr, hostileCanary) {
			t.Errorf("stderr carries client bytes:\n%.2000s", stderr)
		}
	})
	return url
}

// httpSession is one principal's MCP session with the example over HTTP.
type httpSession struct {
	t          *testing.T
	url, token string
	sessionID  string
	lastHeader http.Header
	lastStatus int
}

// post sends one JSON-RPC message and returns the JSON-RPC message answering it (the
// data of an event-stream answer).
func (h *httpSession) post(msg string) []byte {
	h.t.Helper()
	resp, b := adaptertest.MCPPost{URL: h.url, Token: h.token, Session: h.sessionID, Version: "2025-11-25"}.Do(h.t, msg)
	if h.sessionID == "" {
		h.sessionID = resp.Header.Get("Mcp-Session-Id")
	}
	h.lastHeader, h.lastStatus = resp.Header, resp.StatusCode
	for _, line := range strings.Split(string(b), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return []byte(data)
		}
	}
	return b
}

func (h *httpSession) initialize() {
	h.t.Helper()
	h.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}`)
	h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// privateCache fails unless the last response may be kept by no shared cache.
func (h *httpSession) privateCache(what string) {
	h.t.Helper()
	cc := strings.ToLower(strings.Join(h.lastHeader.Values("Cache-Control"), ", "))
	if !strings.Contains(cc, "private") || !strings.Contains(cc, "no-store") || strings.Contains(cc, "public") || strings.Contains(cc, "s-maxage") {
		h.t.Errorf("%s: Cache-Control %q, want private and no-store, never public", what, cc)
	}
}

// SPEC CURSOR-2, VIS-3, ERR-1, ERR-2 from outside, over streamable HTTP with two
// principals in one process: alice's cursor is refused for bob (and for alice with
// another query) with a content-free invalid_cursor 400 that never carries the
// cursor; each principal's tools/list and discover pages are marked private (cacheScope
// and Cache-Control) and differ; the sessions keep serving.
func TestHTTPHostilePrincipals(t *testing.T) {
	url := httpPrincipals(t)
	alice := &httpSession{t: t, url: url, token: "tok-alice"}
	bob := &httpSession{t: t, url: url, token: "tok-bob"}
	alice.initialize()
	bob.initialize()

	lists := map[string]string{}
	for _, h := range []*httpSession{alice, bob} {
		b := h.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		var res struct {
			Result struct {
				CacheScope string `json:"cacheScope"`
				Meta       struct {
					Digest string `json:"contract_digest"`
				} `json:"_meta"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &res); err != nil || h.lastStatus != http.StatusOK {
			t.Fatalf("%s tools/list: HTTP %d %.300s", h.token, h.lastStatus, b)
		}
		if res.Result.CacheScope != "private" {
			t.Errorf("%s tools/list: cacheScope %q, want private", h.token, res.Result.CacheScope)
		}
		h.privateCache(h.token + " tools/list")
		lists[h.token] = res.Result.Meta.Digest
	}
	if lists["tok-alice"] == lists["tok-bob"] {
		t.Errorf("alice and bob have one contract digest %s: the lists are not per principal", lists["tok-alice"])
	}

	const query = `"query":"model dataset deployment training","limit":1`
	page := decodeAnswer(t, "alice's first page", alice.post(`{"jsonrpc":"2.0","id":2,"method":"multillm.tools.discover","params":{`+query+`}}`))
	alice.privateCache("alice's discover page")
	if page.Result == nil || page.Result.NextCursor == "" {
		t.Fatalf("alice's first page has no next cursor: %+v", page)
	}
	cursor := page.Result.NextCursor
	for _, c := range []struct {
		name   string
		h      *httpSession
		params string
		want   string
	}{
		{"bob with alice's cursor", bob, `{` + query + `,"cursor":"` + cursor + `"}`, "invalid_cursor"},
		{"alice, another query", alice, `{"query":"billing","limit":1,"cursor":"` + cursor + `"}`, "invalid_cursor"},
		{"alice, another limit", alice, `{"query":"model dataset deployment training","limit":2,"cursor":"` + cursor + `"}`, "invalid_cursor"},
		{"alice, cursor tampered", alice, `{` + query + `,"cursor":"` + tamper(cursor) + `"}`, "invalid_cursor"},
		{"alice, her cursor", alice, `{` + query + `,"cursor":"` + cursor + `"}`, ""},
	} {
		b := c.h.post(`{"jsonrpc":"2.0","id":3,"method":"multillm.tools.discover","params":` + c.params + `}`)
		a := decodeAnswer(t, c.name, b)
		if c.want == "" {
			if a.Error != nil || a.Result == nil || len(a.Result.Tools) != 1 {
				t.Errorf("%s: HTTP %d %.300s, want the next page", c.name, c.h.lastStatus, b)
			}
			continue
		}
		if a.Error == nil || a.Error.Message != c.want || c.h.lastStatus != http.StatusBadRequest {
			t.Errorf("%s: HTTP %d %.300s, want 400 %s", c.name, c.h.lastStatus, b, c.want)
		}
		if strings.Contains(string(b), cursor[:16]) {
			t.Errorf("%s: the refusal carries the cursor: %.300s", c.name, b)
		}
	}
	for _, h := range []*httpSession{alice, bob} {
		if a := decodeAnswer(t, "ping", h.post(`{"jsonrpc":"2.0","id":"last","method":"ping"}`)); a.Error != nil || string(a.ID) != `"last"` {
			t.Errorf("%s: the session stopped serving: %+v", h.token, a)
		}
	}
}

// tamper returns s with its middle character changed.
func tamper(s string) string {
	b := []byte(s)
	if i := len(b) / 2; b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}
