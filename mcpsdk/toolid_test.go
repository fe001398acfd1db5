package mcpsdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// bigToolFixture serves 40 tools of about 2.5 KB each, all granted to everyone, and
// the discovery tool: one page of them fills the 64 KiB of a tools/call response.
func bigToolFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	var names []string
	for i := range 40 {
		name := fmt.Sprintf("weather_%02d", i)
		names = append(names, name)
		o.tools = append(o.tools, json.RawMessage(fmt.Sprintf(`{"name":%q,"description":"weather %s","inputSchema":{"type":"object"}}`, name, strings.Repeat("w", 2500))))
	}
	o.enabled, o.tool, o.reader = true, "search_tools", allowAll(t, names...)
	return newFixture(t, o)
}

// A toolIDCase is the id of a discovery tool call, and whether the call is served a
// page: the id as the SDK writes it back (which decodes escapes, and writes U+2028 as
// \u2028) is at most 64 bytes.
type toolIDCase struct {
	name, id string
	served   bool
	null     bool // refused with a null id: no response under 64 KiB could echo it
}

func toolIDCases() []toolIDCase {
	cases := []toolIDCase{{name: "number", id: "7", served: true}}
	// The refusal is 123 bytes besides its id: it echoes ids of up to 65,413 bytes.
	for _, n := range []int{3, 32, 63, 64, 65, 66, 100, 1000, 3000, 8000, 65_413, 65_414, 70_000} {
		cases = append(cases, toolIDCase{name: fmt.Sprint(n), id: `"` + strings.Repeat("i", n-2) + `"`, served: n <= 64, null: n > 65_413})
	}
	return append(cases,
		toolIDCase{name: "HTML", id: `"` + strings.Repeat("<", 62) + `"`, served: true},         // written as sent: 64 bytes
		toolIDCase{name: "escapes", id: `"` + strings.Repeat(`\u0069`, 20) + `"`, served: true}, // 122 bytes sent, "iii…" (22) written
		toolIDCase{name: "U+2028", id: `"` + strings.Repeat("\u2028", 20) + `"`, served: false}, // 62 bytes sent, \u2028… (122) written
	)
}

// toolIDCall is the discovery tool call of the tests, with id.
func toolIDCall(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather","limit":16}}}`
}

// checkToolIDAnswer checks the response to a discovery tool call of case c: at most
// discovery.MaxResponseBytes, and a page holding the tools want (the page of the
// shortest id, so no id of up to 64 bytes gets a smaller one), or the refusal
// invalid_request.
func checkToolIDAnswer(t *testing.T, c toolIDCase, resp []byte, want []string) {
	t.Helper()
	if len(resp) > discovery.MaxResponseBytes {
		t.Errorf("id %s: discovery tool response %d bytes, over %d", c.name, len(resp), discovery.MaxResponseBytes)
	}
	var msg struct {
		ID     json.RawMessage
		Result *struct {
			StructuredContent struct{ Tools []struct{ Name string } }
		}
		Error *rpcErr
	}
	if err := json.Unmarshal(resp, &msg); err != nil {
		t.Fatalf("id %s: response %.200s: %v", c.name, resp, err)
	}
	wantID := c.id
	if c.null {
		wantID = "null"
	}
	var got, sent any // compared decoded: the SDK writes the id again
	json.Unmarshal(msg.ID, &got)
	json.Unmarshal([]byte(wantID), &sent)
	if got != sent {
		t.Errorf("id %s: response id %.80s, want %.80s", c.name, msg.ID, wantID)
	}
	if !c.served {
		code := discovery.CodeInvalidRequest
		if e := msg.Error; e == nil || e.Code != code.JSONRPCCode() || e.Message != string(code) || e.Data.Error != string(code) || e.Data.Status != code.Status() {
			t.Errorf("id %s: response %.200s, want the error %s", c.name, resp, code)
		}
		return
	}
	if msg.Result == nil {
		t.Fatalf("id %s: response %.200s, want a page", c.name, resp)
	}
	var names []string
	for _, tl := range msg.Result.StructuredContent.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("id %s: page %v, want %v", c.name, names, want)
	}
}

// pageNames is the tool names of a discovery tool response.
func pageNames(t *testing.T, resp []byte) []string {
	t.Helper()
	var msg struct {
		Result struct {
			StructuredContent struct{ Tools []struct{ Name string } }
		}
	}
	if err := json.Unmarshal(resp, &msg); err != nil || len(msg.Result.StructuredContent.Tools) == 0 {
		t.Fatalf("response %.200s: want a page (%v)", resp, err)
	}
	var names []string
	for _, tl := range msg.Result.StructuredContent.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// SPEC PAGE-1, PAGE-2 over stdio: a discovery tool call with an id of any length
// answers at most 64 KiB; an id the SDK writes in at most 64 bytes gets the page
// DiscoverTool sizes for it (the same page whatever its length), a longer one
// invalid_request with its id.
func TestDiscoveryToolLongIDWithinPage(t *testing.T) {
	f := bigToolFixture(t, fixtureOptions{principal: grants.Principal{ID: "x"}})
	rc := f.rawConnect(t)
	call := func(line string) []byte { // the next response: the session has one call at a time
		t.Helper()
		rc.send(line)
		b, err := rc.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return b[:len(b)-1]
	}
	want := pageNames(t, call(toolIDCall("7")))
	for _, c := range toolIDCases() {
		checkToolIDAnswer(t, c, call(toolIDCall(c.id)), want)
	}
}

// TestDiscoveryToolLongIDWithinPage over streamable HTTP, through Handler.
func TestHTTPDiscoveryToolLongIDWithinPage(t *testing.T) {
	f := bigToolFixture(t, fixtureOptions{principal2: mcpsdk.TokenInfoPrincipal})
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	_, first := h.post(toolIDCall("7"))
	want := pageNames(t, first)
	for _, c := range toolIDCases() {
		resp, body := h.post(toolIDCall(c.id))
		if resp.StatusCode != 200 {
			t.Errorf("id %s: HTTP %d, want 200", c.name, resp.StatusCode)
		}
		checkToolIDAnswer(t, c, body, want)
	}
}

// TestDiscoveryToolLongIDWithinPage over a transport whose messages the SDK decodes
// itself (the in-memory one): the front sees the decoded id, and the size is that of
// the response as the SDK encodes it.
func TestMemoryDiscoveryToolLongIDWithinPage(t *testing.T) {
	f := bigToolFixture(t, fixtureOptions{principal: grants.Principal{ID: "x"}})
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ss, err := f.server.Connect(ctx, f.a.Transport(st), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	call := func(line string) []byte {
		t.Helper()
		msg, err := jsonrpc.DecodeMessage([]byte(line))
		if err != nil {
			t.Fatalf("%.100s: %v", line, err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
		want := msg.(*jsonrpc.Request).ID
		for {
			in, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := in.(*jsonrpc.Response); ok && r.ID == want {
				b, err := jsonrpc.EncodeMessage(r)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
		}
	}
	call(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized"}); err != nil {
		t.Fatal(err)
	}
	want := pageNames(t, call(toolIDCall("7")))
	for _, c := range toolIDCases() {
		if c.null {
			continue // the SDK writes the id of this front's refusals: it cannot be null
		}
		checkToolIDAnswer(t, c, call(toolIDCall(c.id)), want)
	}
}
