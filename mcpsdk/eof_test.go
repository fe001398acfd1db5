package mcpsdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/mcpsdk"
)

// stdioSession connects the fixture's server through the adapter's Transport over
// io.Pipes and returns the client's ends: in, which the test closes to end the input,
// and the lines the server writes, closed when the server closes its output.
func stdioSession(t *testing.T, f *fixture) (in io.WriteCloser, lines <-chan []byte) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := f.server.Connect(context.Background(), f.a.Transport(&mcp.IOTransport{Reader: inR, Writer: outW}), nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	t.Cleanup(func() { inW.Close(); outR.Close(); ss.Close() })
	ch := make(chan []byte, 1024)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			ch <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	return inW, ch
}

// answeredIDs collects the ids of the responses on lines until it closes.
func answeredIDs(t *testing.T, lines <-chan []byte) map[string]int {
	t.Helper()
	ids := map[string]int{}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case b, ok := <-lines:
			if !ok {
				return ids
			}
			var r struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(b, &r) == nil && r.Method == "" && r.ID != nil {
				ids[string(r.ID)]++
			}
		case <-timeout:
			t.Fatal("the server did not close its output within 30 s of the end of its input")
		}
	}
}

// Every request read before the input ends is answered before the session ends: the
// discover answers the front writes concurrently, and the SDK's own answers to
// requests still in flight, which the SDK cancels and never writes once its read
// fails. The input is closed right after the last request, many times over.
func TestStdioEOFAnswersEveryRequest(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob, tool: "search_tools"})
	for round := range 20 {
		in, lines := stdioSession(t, f)
		var b strings.Builder
		b.WriteString(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"eof","version":"0"}}}` + "\n")
		b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		var want []string
		for i := range 10 {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"d%d","method":"%s","params":{"query":"weather"}}`+"\n", i, f.d.Method())
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"l%d","method":"tools/list"}`+"\n", i)
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"c%d","method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`+"\n", i)
			want = append(want, fmt.Sprintf(`"d%d"`, i), fmt.Sprintf(`"l%d"`, i), fmt.Sprintf(`"c%d"`, i))
		}
		io.WriteString(in, b.String())
		in.Close()
		ids := answeredIDs(t, lines)
		var missing []string
		for _, id := range append(want, `"init"`) {
			if ids[id] != 1 {
				missing = append(missing, fmt.Sprintf("%s×%d", id, ids[id]))
			}
		}
		if len(missing) > 0 {
			t.Fatalf("round %d: answers lost or doubled at the end of input: %v", round, missing)
		}
	}
}

// blockingTool replaces weather_get's handler on the fixture's server by one that
// sends started when it runs and returns when release is closed, or calls roots/list
// on the client first when askClient is set.
func blockingTool(t *testing.T, f *fixture, askClient bool) (started chan struct{}, release chan struct{}) {
	t.Helper()
	def, _ := f.cat.Tool("weather_get")
	var tool mcp.Tool
	if err := json.Unmarshal(def, &tool); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	json.Unmarshal(def, &raw)
	tool.InputSchema = raw.InputSchema
	started, release = make(chan struct{}, 16), make(chan struct{})
	f.server.AddTool(&tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		if askClient {
			if _, err := req.Session.ListRoots(ctx, nil); err != nil {
				return nil, err
			}
		}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
	})
	return started, release
}

// next returns the next line, failing after 10 s.
func next(t *testing.T, lines <-chan []byte) []byte {
	t.Helper()
	select {
	case b, ok := <-lines:
		if !ok {
			t.Fatal("the server closed its output")
		}
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no line within 10 s")
	}
	return nil
}

// A request whose id is already in flight is refused with invalid_request and that id
// (the SDK alone drops it, answering nothing): JSON-RPC ids must be unique, and no
// request goes unanswered. The request in flight still gets its own answer, and once
// it is answered its id is free again.
func TestStdioDuplicateIDInFlight(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob})
	started, release := blockingTool(t, f, false)
	in, lines := stdioSession(t, f)
	io.WriteString(in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"dup","version":"0"}}}`+"\n")
	next(t, lines)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`+"\n")
	<-started
	for _, dup := range []struct{ msg, id string }{
		{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, "7"},
		{`{"jsonrpc":"2.0","id":7.0,"method":"tools/list"}`, "7.0"}, // the same id to the SDK
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Bergen"}}}`, "7"},
	} {
		io.WriteString(in, dup.msg+"\n")
		if got, want := string(next(t, lines)), `{"jsonrpc":"2.0","id":`+dup.id+`,"error":{"code":-32600,"message":"invalid_request","data":{"error":"invalid_request","status":400}}}`; got != want {
			t.Errorf("%s while id 7 is in flight: %s, want %s", dup, got, want)
		}
	}
	close(release)
	if got := next(t, lines); !strings.Contains(string(got), `"id":7,"result":{"content":[{"type":"text","text":"ran"}]`) {
		t.Errorf("the call in flight answered %s, want its result", got)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n")
	if got := string(next(t, lines)); got != `{"jsonrpc":"2.0","id":7,"result":{}}` {
		t.Errorf("ping 7 after the call was answered: %s", got)
	}
}

// The end of input waits for the answers owed, but not for a request whose handler
// waits on the client (a call of the server's, roots/list here, which can never be
// answered once the input has ended): the session ends, promptly.
func TestStdioEOFDoesNotWaitOnTheClient(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob})
	started, _ := blockingTool(t, f, true)
	in, lines := stdioSession(t, f)
	io.WriteString(in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"eof","version":"0"}}}`+"\n")
	next(t, lines)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`+"\n")
	<-started
	if got := next(t, lines); !strings.Contains(string(got), `"method":"roots/list"`) {
		t.Fatalf("the server wrote %s, want its roots/list call", got)
	}
	in.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range lines {
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end within 10 s of the end of input")
	}
}

// The end of input waits for the answers owed for a bounded time only: a handler that
// returns only when its context is cancelled (which the SDK does once it sees the end)
// must not keep the session, and the process, alive. The limit (Options.DrainLimit) is
// shortened here.
func TestStdioEOFDrainBounded(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob, drain: 300 * time.Millisecond})
	started, _ := blockingTool(t, f, false)
	in, lines := stdioSession(t, f)
	io.WriteString(in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"eof","version":"0"}}}`+"\n")
	next(t, lines)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`+"\n")
	<-started
	in.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range lines {
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second): // under the 10 s default: Options.DrainLimit is honoured
		t.Fatal("the session did not end within 5 s of the end of input: the drain waited on a handler that never returns")
	}
}

// Over streamable HTTP the SDK's handler refuses a request whose id is in flight in
// the session itself (400); the front turns its text into invalid_request with the
// id, and the request in flight still gets its answer.
func TestHTTPDuplicateIDInFlight(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal})
	started, release := blockingTool(t, f, false)
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	session := ""
	post := func(body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer tok-bob")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
			session = s
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"dup","version":"0"}}}`)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	first := make(chan string, 1)
	go func() {
		_, b := post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`)
		first <- b
	}()
	<-started
	status, body := post(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	if want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid_request","data":{"error":"invalid_request","status":400}}}`; status != 400 || strings.TrimSpace(body) != want {
		t.Errorf("ping 7 while call 7 is in flight: %d %s, want 400 %s", status, body, want)
	}
	close(release)
	if b := <-first; !strings.Contains(b, `"id":7,"result":{"content":[{"type":"text","text":"ran"}]`) {
		t.Errorf("the call in flight answered %s, want its result", b)
	}
}
