package mcpsdk_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// canary is planted in every message of the edge corpus: it must never come back, in
// a response or in a log (SPEC ERR-2).
const canary = "Cq7-CANARY-93f1"

// An edge is one message of the corpus of bad and hostile messages. The answer must be
// one JSON-RPC error whose message is want (or, when want is "", any content-free
// answer: an error or a tool result with isError), carrying the message's id when
// withID; then the session must answer the next request.
type edge struct {
	name     string
	write    msgFunc // the message, without its newline
	want     string  // over stdio
	wantHTTP string  // over HTTP, when it differs from want
	withID   bool
	status   int  // HTTP status; 0 means 200
	noAnswer bool // a message that is answered by nothing (a JSON-RPC response)
}

// text is an edge's message given as text, ID standing for its id.
func text(s string) msgFunc {
	return func(w io.Writer, id string) error {
		_, err := io.WriteString(w, strings.Replace(s, "ID", id, 1))
		return err
	}
}

// huge writes prefix, n bytes of string content (the canary repeated) and suffix,
// streamed in chunks so the test never holds the message in memory.
func huge(prefix string, n int64, suffix string) msgFunc {
	chunk := []byte(strings.Repeat(canary+" ", 4096))
	return func(w io.Writer, id string) error {
		if _, err := io.WriteString(w, strings.Replace(prefix, "ID", id, 1)); err != nil {
			return err
		}
		for left := n; left > 0; {
			c := chunk[:min(int64(len(chunk)), left)]
			if _, err := w.Write(c); err != nil {
				return err
			}
			left -= int64(len(c))
		}
		_, err := io.WriteString(w, suffix)
		return err
	}
}

// nested is a value nested depth arrays deep around the canary.
func nested(depth int) string {
	return strings.Repeat("[", depth) + `"` + canary + `"` + strings.Repeat("]", depth)
}

// edgeCorpus is the corpus for a server where denied is a tool the principal may not
// call and granted one it may, whose schema has no property named after the canary.
func edgeCorpus(denied, granted string) []edge {
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":` + params + `}`
	}
	deniedArgs := func(args string) string {
		return call(`{"name":"` + denied + `","arguments":` + args + `}`)
	}
	const mb = 1 << 20
	es := []edge{
		{name: "truncated", write: text(`{"jsonrpc":"2.0","id":ID,"method":"tools/list","params":{"x":"` + canary), want: "parse_error", status: 400},
		{name: "not JSON", write: text(canary + ` {"jsonrpc":"2.0","id":ID}`), want: "parse_error", status: 400},
		{name: "trailing data", write: text(`{"jsonrpc":"2.0","id":ID,"method":"ping"}{"x":"` + canary + `"}`), want: "parse_error", status: 400},
		{name: "bad escape", write: text(`{"jsonrpc":"2.0","id":ID,"method":"ping","params":{"x":"\q` + canary + `"}}`), want: "parse_error", status: 400},
		{name: "invalid UTF-8", write: text("{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"ping\",\"params\":{\"x\":\"" + canary + "\xff\xfe\"}}"), want: "parse_error", withID: true, status: 400},
		{name: "depth 10,000", write: text(`{"jsonrpc":"2.0","id":ID,"method":"ping","params":{"x":` + nested(10000) + `}}`), want: "invalid_request", withID: true, status: 400},
		{name: "depth 1,001", write: text(`{"jsonrpc":"2.0","id":ID,"method":"tools/list","params":{"x":` + nested(999) + `}}`), want: "invalid_request", withID: true, status: 400},
		{name: "wrong version", write: text(`{"jsonrpc":"1.0","id":ID,"method":"` + canary + `"}`), want: "invalid_request", withID: true, status: 400},
		{name: "id object", write: text(`{"jsonrpc":"2.0","id":{"x":"` + canary + `"},"method":"ping"}`), want: "invalid_request", status: 400},
		{name: "id 1e400", write: text(`{"jsonrpc":"2.0","id":1e400,"method":"ping","params":{"x":"` + canary + `"}}`), want: "invalid_request", status: 400},
		{name: "method number", write: text(`{"jsonrpc":"2.0","id":ID,"method":1,"params":{"x":"` + canary + `"}}`), want: "invalid_request", withID: true, status: 400},
		{name: "batch", write: text(`[{"jsonrpc":"2.0","id":ID,"method":"` + canary + `"}]`), want: "invalid_request", status: 400},
		{name: "empty batch", write: text(`[]`), want: "invalid_request", status: 400},
		{name: "scalar", write: text(`"` + canary + `"`), want: "invalid_request", status: 400},
		{name: "response with bad error", write: text(`{"jsonrpc":"2.0","id":ID,"error":{"code":"` + canary + `"}}`), want: "invalid_request", status: 400},
		{name: "unknown method", write: text(`{"jsonrpc":"2.0","id":ID,"method":"` + canary + `/x","params":{}}`), want: "method_not_found", withID: true, status: 400},
		{name: "tools/list _meta 5", write: text(`{"jsonrpc":"2.0","id":ID,"method":"tools/list","params":{"_meta":5,"x":"` + canary + `"}}`), want: "invalid_params", withID: true},
		{name: "tools/list params string", write: text(`{"jsonrpc":"2.0","id":ID,"method":"tools/list","params":"` + canary + `"}`), want: "invalid_params", withID: true},
		{name: "logging/setLevel unknown level", write: text(`{"jsonrpc":"2.0","id":ID,"method":"logging/setLevel","params":{"level":"` + canary + `"}}`), want: "invalid_params", withID: true, status: 400},
		{name: "unanswered response", write: text(`{"jsonrpc":"2.0","id":ID,"result":{"x":"` + canary + `"}}`), noAnswer: true, status: 202},
		// tools/call: the name decides first (SPEC CALL-1, VIS-2).
		{name: "name number", write: text(call(`{"name":123,"arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "name null", write: text(call(`{"name":null,"arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "name bool", write: text(call(`{"name":true,"arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "name array", write: text(call(`{"name":["` + canary + `"],"arguments":{}}`)), want: "invalid_params", withID: true},
		{name: "name object", write: text(call(`{"name":{"x":"` + canary + `"},"arguments":{}}`)), want: "invalid_params", withID: true},
		{name: "name missing", write: text(call(`{"arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "name twice", write: text(call(`{"name":"` + granted + `","name":"` + denied + `","arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "params string", write: text(call(`"` + canary + `"`)), want: "invalid_params", withID: true},
		// Member-name case twins (and a lone member in another case) in what the library
		// decides on are refused as mcpgo refuses them (rpcwire.Members): the go-sdk reads
		// names exactly, mcp-go case-insensitively, and no decoder may read another message.
		{name: "Name twin", write: text(call(`{"name":"` + granted + `","Name":"` + denied + `","arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "Name twin first", write: text(call(`{"Name":"` + denied + `","name":"` + granted + `","arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "escaped Name twin", write: text(call(`{"name":"` + granted + `","\u004eame":"` + denied + `","arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "NAME alone", write: text(call(`{"NAME":"` + granted + `","arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "Arguments twin", write: text(call(`{"name":"` + granted + `","arguments":{},"Arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "arguments twice", write: text(call(`{"name":"` + granted + `","arguments":{},"arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "_Meta twin", write: text(call(`{"name":"` + granted + `","arguments":{},"_meta":{},"_Meta":{"x":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "denied, Name twin", write: text(call(`{"name":"` + denied + `","Name":"` + granted + `","arguments":{"password":"` + canary + `"}}`)), want: "invalid_params", withID: true},
		{name: "Method twin", write: text(`{"jsonrpc":"2.0","id":ID,"method":"ping","Method":"tools/call","params":{"name":"` + denied + `","arguments":{"x":"` + canary + `"}}}`), want: "invalid_request", withID: true, status: 400},
		{name: "escaped Method twin", write: text(`{"jsonrpc":"2.0","id":ID,"method":"ping","\u004dethod":"tools/call","params":{"name":"` + denied + `"}}`), want: "invalid_request", withID: true, status: 400},
		{name: "Params twin", write: text(`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"` + granted + `","arguments":{}},"Params":{"name":"` + denied + `","x":"` + canary + `"}}`), want: "invalid_request", withID: true, status: 400},
		{name: "Id twin", write: text(`{"jsonrpc":"2.0","id":ID,"Id":"` + canary + `","method":"ping"}`), want: "invalid_request", status: 400},
		{name: "JSONRPC twin", write: text(`{"jsonrpc":"2.0","JSONRPC":"1.0","id":ID,"method":"ping","params":{"x":"` + canary + `"}}`), want: "invalid_request", withID: true, status: 400},
		{name: "logging/setLevel Level twin", write: text(`{"jsonrpc":"2.0","id":ID,"method":"logging/setLevel","params":{"level":"info","Level":"` + canary + `"}}`), want: "invalid_params", withID: true, status: 400},
		{name: "unknown tool", write: text(call(`{"name":"` + canary + `","arguments":{}}`)), want: "tool_not_granted", withID: true},
		{name: "denied, {}", write: text(deniedArgs(`{}`)), want: "tool_not_granted", withID: true},
		{name: "denied, nested 5,000", write: text(deniedArgs(`{"x":` + nested(5000) + `}`)), want: "tool_not_granted", withID: true},
		{name: "denied, wrong type", write: text(deniedArgs(`"` + canary + `"`)), want: "tool_not_granted", withID: true},
		{name: "denied, duplicate keys", write: text(deniedArgs(`{"password":"` + canary + `","password":"x"}`)), want: "tool_not_granted", withID: true},
		{name: "denied, invalid UTF-8", write: text(deniedArgs("{\"password\":\"" + canary + "\xff\"}")), want: "tool_not_granted", withID: true},
		{name: "denied, 1e400", write: text(deniedArgs(`{"password":"` + canary + `","n":1e400}`)), want: "tool_not_granted", withID: true},
		{name: "denied, _meta 5", write: text(call(`{"name":"` + denied + `","arguments":{"password":"` + canary + `"},"_meta":5}`)), want: "tool_not_granted", withID: true},
		{name: "denied, 10 MB", write: huge(`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"`+denied+`","arguments":{"password":"`, 10*mb, `"}}}`),
			want: "tool_not_granted", withID: true, wantHTTP: "message_too_large", status: 413},
		// Granted calls go on to the SDK and the middleware: whatever they answer, no canary.
		{name: "granted, _meta 5", write: text(call(`{"name":"` + granted + `","arguments":{"password":"` + canary + `"},"_meta":5}`)), withID: true},
		{name: "granted, arguments string", write: text(call(`{"name":"` + granted + `","arguments":"` + canary + `"}`)), withID: true},
		{name: "granted, duplicate keys", write: text(call(`{"name":"` + granted + `","arguments":{"password":"` + canary + `","password":"x"}}`)), withID: true},
		{name: "granted, 1e400", write: text(call(`{"name":"` + granted + `","arguments":{"password":"` + canary + `","n":1e400}}`)), withID: true},
		{name: "granted, invalid UTF-8", write: text(call("{\"name\":\"" + granted + "\",\"arguments\":{\"password\":\"" + canary + "\xff\"}}")), want: "parse_error", withID: true, status: 400},
		{name: "granted, nested 5,000", write: text(call(`{"name":"` + granted + `","arguments":{"x":` + nested(5000) + `}}`)), want: "invalid_request", withID: true, status: 400},
		{name: "100 MB", write: huge(`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"`+granted+`","arguments":{"password":"`, 100*mb, `"}}}`),
			want: "message_too_large", status: 413},
	}
	// Repeated members and an ambiguous pin or token in _meta: answered as mcpgo answers them.
	for _, e := range adaptertest.SharedEdges(granted, canary) {
		es = append(es, edge{name: e.Name, write: text(e.Msg), want: string(e.Code), withID: e.WithID, status: e.Status})
	}
	return es
}

// readLines sends each line out writes, without its newline, on the channel it
// returns (of capacity n), and closes it when out ends.
func readLines(out io.Reader, n int) <-chan []byte {
	lines := make(chan []byte, n)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			b, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			lines <- bytes.TrimSuffix(b, []byte("\n"))
		}
	}()
	return lines
}

// stdioAnswers drives a newline-delimited JSON-RPC session through the corpus: after
// each edge it sends a ping, and checks the edge's answer, that the ping is answered
// (the session goes on), and that no line carries the canary.
func stdioAnswers(t *testing.T, in io.Writer, out io.Reader, corpus []edge) {
	t.Helper()
	lines := readLines(out, 16)
	next := func() []byte {
		select {
		case b, ok := <-lines:
			if !ok {
				t.Fatal("the server closed its output: the session ended")
			}
			if bytes.Contains(b, []byte(canary)) {
				t.Errorf("a response carries the canary: %.300s", b)
			}
			return b
		case <-time.After(60 * time.Second):
			t.Fatal("no response within 60 s")
		}
		return nil
	}
	send := func(write func(io.Writer) error) error {
		bw := bufio.NewWriterSize(in, 64<<10)
		if err := write(bw); err != nil {
			return err
		}
		bw.WriteString("\n")
		return bw.Flush()
	}
	send(func(w io.Writer) error {
		_, err := io.WriteString(w, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"edges","version":"0"}}}`)
		return err
	})
	next()
	send(func(w io.Writer) error {
		_, err := io.WriteString(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return err
	})
	for i, e := range corpus {
		id, pingID := fmt.Sprintf(`"e%d"`, i), fmt.Sprintf(`"p%d"`, i)
		done := make(chan error, 1)
		go func() {
			err := send(func(w io.Writer) error { return e.write(w, id) })
			if err == nil {
				err = send(func(w io.Writer) error {
					_, err := io.WriteString(w, `{"jsonrpc":"2.0","id":`+pingID+`,"method":"ping"}`)
					return err
				})
			}
			done <- err
		}()
		var answers [][]byte
		pinged := false
		want := 1
		if e.noAnswer {
			want = 0
		}
		for !pinged || len(answers) < want {
			b := next()
			var env struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(b, &env) == nil && string(env.ID) == pingID {
				if !bytes.Contains(b, []byte(`"result":{}`)) {
					t.Errorf("%s: ping after it answered %.200s", e.name, b)
				}
				pinged = true
				continue
			}
			answers = append(answers, b)
		}
		if err := <-done; err != nil {
			t.Fatalf("%s: write: %v", e.name, err)
		}
		if len(answers) != want {
			t.Errorf("%s: %d answers %q, want %d", e.name, len(answers), answers, want)
			continue
		}
		if want == 0 {
			continue
		}
		checkAnswer(t, e.name, answers[0], e.want, id, e.withID)
	}
}

// checkAnswer checks one answer: a JSON-RPC response with the id (or null), whose error
// message is want; with want empty, an error or a tool result with isError.
func checkAnswer(t *testing.T, name string, b []byte, want, id string, withID bool) {
	t.Helper()
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *rpcErr         `json:"error"`
		Result  *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.JSONRPC != "2.0" {
		t.Errorf("%s: answer %.300s is not a JSON-RPC response", name, b)
		return
	}
	wantID := "null"
	if withID {
		wantID = id
	}
	if string(r.ID) != wantID {
		t.Errorf("%s: answer id %s, want %s", name, r.ID, wantID)
	}
	switch {
	case want == "" && (r.Error != nil || r.Result != nil && r.Result.IsError):
	case want == "":
		t.Errorf("%s: answer %.300s, want an error or an isError result", name, b)
	case r.Error == nil || r.Error.Message != want || r.Error.Data.Error != want:
		t.Errorf("%s: answer %.300s, want the error %s", name, b, want)
	}
	if r.Error != nil && r.Error.Message != r.Error.Data.Error {
		t.Errorf("%s: error %.300s is not content-free (message = data.error = its code)", name, b)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// SPEC ERR-2, CALL-1, VIS-2: over an in-process IOTransport wrapped by Transport, every
// message of the corpus is answered by one content-free error (or, for a granted call,
// a content-free answer of the SDK and the middleware), the session answers the next
// request, and the canary appears in no response and no log line.
func TestStdioEdges(t *testing.T) {
	logs := &syncBuffer{}
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob, tool: "search_tools",
		logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	rc := f.pipeConnect(t)
	stdioAnswers(t, rc.in, rc.out, edgeCorpus("secrets_read", "weather_get"))
	if strings.Contains(logs.String(), canary) {
		t.Errorf("the server's log carries the canary:\n%.2000s", logs.String())
	}
}

// pipes is a server session over io.Pipes wrapped by the adapter's Transport.
type pipes struct {
	in  io.Writer
	out io.Reader
}

func (f *fixture) pipeConnect(t *testing.T) pipes {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := f.server.Connect(t.Context(), f.a.Transport(&mcp.IOTransport{Reader: inR, Writer: outW}), nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	t.Cleanup(func() { inW.Close(); outR.Close(); ss.Close() })
	return pipes{in: inW, out: outR}
}

// httpAnswer reads one HTTP answer: the JSON-RPC message of a JSON body or of the first
// data event of an event stream, or nil.
func httpAnswer(resp *http.Response, body []byte) []byte {
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, ln := range bytes.Split(body, []byte("\n")) {
			if d, ok := bytes.CutPrefix(ln, []byte("data: ")); ok && len(bytes.TrimSpace(d)) > 0 {
				return d
			}
		}
		return nil
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	return body
}

// httpEdges drives a streamable HTTP session through the corpus: each edge is POSTed
// (its body streamed), then a ping in the same session must be answered; no response
// body or header carries the canary.
func httpEdges(t *testing.T, url, token string, corpus []edge) {
	t.Helper()
	session := ""
	post := func(write func(io.Writer) error) (*http.Response, []byte) {
		t.Helper()
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(write(pw)) }()
		defer pr.Close()
		req, _ := http.NewRequest(http.MethodPost, url, pr)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST: %v", err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if bytes.Contains(body, []byte(canary)) || strings.Contains(fmt.Sprint(resp.Header), canary) {
			t.Errorf("a response carries the canary: %d %v %.300s", resp.StatusCode, resp.Header, body)
		}
		return resp, body
	}
	resp, _ := post(text(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"edges","version":"0"}}}`).bind("init"))
	session = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, session)
	}
	post(text(`{"jsonrpc":"2.0","method":"notifications/initialized"}`).bind(""))
	for i, e := range corpus {
		id := fmt.Sprintf(`"e%d"`, i)
		resp, body := post(func(w io.Writer) error { return e.write(w, id) })
		wantStatus := e.status
		if wantStatus == 0 {
			wantStatus = 200
		}
		if resp.StatusCode != wantStatus {
			t.Errorf("%s: HTTP %d %.200s, want %d", e.name, resp.StatusCode, body, wantStatus)
		}
		want := e.want
		if e.wantHTTP != "" {
			want = e.wantHTTP
		}
		switch answer := httpAnswer(resp, body); {
		case want == "-":
		case e.noAnswer:
			if answer != nil {
				t.Errorf("%s: answered %.200s, want nothing", e.name, answer)
			}
		default:
			checkAnswer(t, e.name, answer, want, id, e.withID && e.wantHTTP != "message_too_large")
		}
		resp, body = post(text(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`).bind(""))
		if a := httpAnswer(resp, body); resp.StatusCode != 200 || !bytes.Contains(a, []byte(`"result":{}`)) {
			t.Errorf("%s: the ping after it answered %d %.200s", e.name, resp.StatusCode, body)
		}
	}
}

// A msgFunc writes one message with the given id.
type msgFunc func(w io.Writer, id string) error

// bind fixes the id of a message.
func (f msgFunc) bind(id string) func(io.Writer) error {
	return func(w io.Writer) error { return f(w, id) }
}

// bearerAuth puts the tests' bearer authentication in front of h (testTokens).
func bearerAuth(h http.Handler) http.Handler {
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		p, ok := testTokens[token]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: p.ID, Scopes: p.Scopes}, nil
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

// SPEC ERR-2, CALL-1, VIS-2 over streamable HTTP: Handler in front of the SDK's
// handler answers each corpus message with one content-free error (malformed 400, over
// the cap 413, tools/call refusals 200), the session answers the next request, and the
// canary appears in no response and no log line.
func TestHTTPEdges(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} { // SSE answers, then JSON bodies
		t.Run(fmt.Sprintf("JSONResponse=%v", jsonResponse), func(t *testing.T) {
			logs := &syncBuffer{}
			logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			f := newFixture(t, fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal, tool: "search_tools", logger: logger})
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server },
				&mcp.StreamableHTTPOptions{Logger: logger, JSONResponse: jsonResponse})
			srv := httptest.NewServer(bearerAuth(f.a.Handler(h)))
			t.Cleanup(srv.Close)
			httpEdges(t, srv.URL, "tok-bob", edgeCorpus("secrets_read", "weather_get"))
			if strings.Contains(logs.String(), canary) {
				t.Errorf("the server's log carries the canary:\n%.2000s", logs.String())
			}
		})
	}
}

// A 100 MB message over stdio is skipped to its newline without being held: the bytes
// the process allocates while it streams through stay far below its size (the line
// cap, mcp.DefaultMaxLineLength, 16 MiB, bounds what is buffered), and the session goes
// on.
func TestStdioOversizeMemoryBounded(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob})
	rc := f.pipeConnect(t)
	const size = 100 << 20
	corpus := []edge{{name: "100 MB", want: "message_too_large",
		write: huge(`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"`, size, `"}}}`)}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stdioAnswers(t, rc.in, rc.out, corpus)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %.1f MiB while a %d MiB message streamed through", float64(allocated)/(1<<20), size>>20)
	if allocated > 48<<20 {
		t.Errorf("allocated %d bytes for a %d-byte message: the line is being held", allocated, size)
	}
}

// SPEC ERR-2: over stdio, a call before initialize (an unknown method named by the
// client, say) is refused with one content-free error without reaching the SDK, which
// would log the method name; the session then initializes and works.
func TestStdioBeforeInitialize(t *testing.T) {
	logs := &syncBuffer{}
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob,
		logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	rc := f.pipeConnect(t)
	r := bufio.NewReader(rc.out)
	exchange := func(line string) []byte {
		t.Helper()
		go io.WriteString(rc.in, line+"\n")
		b, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"` + canary + `","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"x":"` + canary + `"}}`,
	} {
		t.Run(fmt.Sprintf("%.30s", line), func(t *testing.T) {
			resp := exchange(line)
			if e := decodeError(t, resp); e == nil || e.Message != "internal_error" || bytes.Contains(resp, []byte(canary)) {
				t.Errorf("%s before initialize: %s, want a content-free error", line, resp)
			}
		})
	}
	if resp := exchange(`{"jsonrpc":"2.0","id":3,"method":"ping"}`); !bytes.Contains(resp, []byte(`"result":{}`)) {
		t.Errorf("ping before initialize: %s", resp)
	}
	if resp := exchange(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`); !bytes.Contains(resp, []byte(`"serverInfo"`)) {
		t.Errorf("initialize: %s", resp)
	}
	io.WriteString(rc.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if resp := exchange(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`); !bytes.Contains(resp, []byte(`"weather_get"`)) {
		t.Errorf("tools/list after initialize: %.300s", resp)
	}
	if strings.Contains(logs.String(), canary) {
		t.Errorf("the server's log carries the canary:\n%s", logs.String())
	}
}
