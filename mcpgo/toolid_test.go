package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// bigToolFixture serves 40 tools of about 2.5 KB each, all granted to everyone, and
// the discovery tool: one page of them fills the 64 KiB of a tools/call response.
func bigToolFixture(t *testing.T) *fixture {
	t.Helper()
	mem := grants.NewMemory()
	var tools []json.RawMessage
	for i := range 40 {
		name := fmt.Sprintf("weather_%02d", i)
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":%q,"description":"weather %s","inputSchema":{"type":"object"}}`, name, strings.Repeat("w", 2500))))
		if _, err := mem.Put(context.Background(), grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow, Revision: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return newFixture(t, fixtureOptions{enabled: true, tool: "search_tools", tools: tools, reader: mem})
}

// A toolIDCase is the id of a discovery tool call, and whether it is served a page:
// the front writes the id back as sent, so its length as sent is at most 64 bytes.
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
		toolIDCase{name: "HTML", id: `"` + strings.Repeat("<", 62) + `"`, served: true},          // written as sent: 64 bytes
		toolIDCase{name: "escapes", id: `"` + strings.Repeat(`\u0069`, 20) + `"`, served: false}, // 122 bytes
		toolIDCase{name: "U+2028", id: `"` + strings.Repeat("\u2028", 20) + `"`, served: true},   // 62 bytes
	)
}

// reply is the id the response carries.
func (c toolIDCase) reply() string {
	if c.null {
		return "null"
	}
	return c.id
}

// toolIDCall is the discovery tool call of the tests, with id.
func toolIDCall(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather","limit":16}}}`
}

// toolIDAnswer checks the response to a discovery tool call of case c: at most
// discovery.MaxResponseBytes, carrying c's id, and a page holding the tools want (the
// page of the shortest id: no id of up to 64 bytes gets a smaller one), or the refusal
// invalid_request. It returns the page's tool names.
func toolIDAnswer(t *testing.T, c toolIDCase, resp []byte, want []string) []string {
	t.Helper()
	if len(resp) > discovery.MaxResponseBytes {
		t.Errorf("id %s: discovery tool response %d bytes, over %d", c.name, len(resp), discovery.MaxResponseBytes)
	}
	var msg struct {
		ID     json.RawMessage
		Result *struct {
			StructuredContent struct{ Tools []struct{ Name string } }
		}
	}
	if err := json.Unmarshal(resp, &msg); err != nil {
		t.Fatalf("id %s: response %.200s: %v", c.name, resp, err)
	}
	if string(msg.ID) != c.reply() {
		t.Errorf("id %s: response id %.80s, want %.80s", c.name, msg.ID, c.reply())
	}
	if !c.served {
		wantError(t, resp, discovery.CodeInvalidRequest)
		return nil
	}
	if msg.Result == nil || len(msg.Result.StructuredContent.Tools) == 0 {
		t.Fatalf("id %s: response %.200s, want a page", c.name, resp)
	}
	var got []string
	for _, tl := range msg.Result.StructuredContent.Tools {
		got = append(got, tl.Name)
	}
	if want != nil && !slices.Equal(got, want) {
		t.Errorf("id %s: page %v, want %v", c.name, got, want)
	}
	return got
}

// SPEC PAGE-1, PAGE-2 over stdio: a discovery tool call with an id of any length
// answers at most 64 KiB; an id of at most 64 bytes gets the page DiscoverTool sizes
// for it (the same page whatever its length), a longer one invalid_request with its id.
func TestDiscoveryToolLongIDWithinPage(t *testing.T) {
	f := bigToolFixture(t)
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), grants.Principal{ID: "x"}))
	c.initialize()
	call := func(line string) []byte { // the next response: the session has one call at a time
		t.Helper()
		c.send(line)
		for {
			b, err := c.r.ReadBytes('\n')
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			var env struct{ Method string }
			if json.Unmarshal(b, &env) == nil && env.Method == "" {
				return b[:len(b)-1]
			}
		}
	}
	cases := toolIDCases()
	want := toolIDAnswer(t, cases[0], call(toolIDCall(cases[0].id)), nil)
	for _, tc := range cases {
		toolIDAnswer(t, tc, call(toolIDCall(tc.id)), want)
	}
}

// TestDiscoveryToolLongIDWithinPage over streamable HTTP, through Handler.
func TestHTTPDiscoveryToolLongIDWithinPage(t *testing.T) {
	f := bigToolFixture(t)
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-alice"}
	h.initialize()
	cases := toolIDCases()
	post := func(id string) []byte {
		resp, body := h.post(toolIDCall(id), "")
		if resp.StatusCode != 200 {
			t.Errorf("id %.20s: HTTP %d, want 200", id, resp.StatusCode)
		}
		return httpAnswer(resp, body)
	}
	want := toolIDAnswer(t, cases[0], post(cases[0].id), nil)
	for _, tc := range cases {
		toolIDAnswer(t, tc, post(tc.id), want)
	}
}
