package adaptertest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// BigTools are 40 tools of about 2.5 KB each and their grant rows, all granted to
// everyone: one page of them fills the 64 KiB of a discovery tool response.
func BigTools(t testing.TB) ([]json.RawMessage, *grants.Memory) {
	t.Helper()
	mem := grants.NewMemory()
	var tools []json.RawMessage
	for i := range 40 {
		name := fmt.Sprintf("weather_%02d", i)
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":%q,"description":"weather %s","inputSchema":{"type":"object"}}`, name, strings.Repeat("w", 2500))))
		if _, err := mem.Put(t.Context(), grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow, Revision: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return tools, mem
}

// IDWriting says how an adapter writes a request's id back in a discovery tool
// response, which decides the id lengths whose page is served.
type IDWriting int

const (
	// IDAsSent: the id is written back byte for byte as sent (mcpgo's front).
	IDAsSent IDWriting = iota
	// IDReencoded: the id is decoded and encoded again, escapes decoded and U+2028
	// written as \u2028 (the go-sdk, which writes its responses itself).
	IDReencoded
)

// A ToolIDCase is the id of a discovery tool call, and whether the call is served a
// page: the id as the adapter writes it back is at most 64 bytes.
type ToolIDCase struct {
	Name, ID string
	Served   bool
	Null     bool // refused with a null id: no response under 64 KiB could echo it
}

// reply is the id the response to c carries.
func (c ToolIDCase) reply() string {
	if c.Null {
		return "null"
	}
	return c.ID
}

// ToolIDCases are the ids of the tests, the first the shortest (a number), for an
// adapter writing ids back as w says.
func ToolIDCases(w IDWriting) []ToolIDCase {
	cases := []ToolIDCase{{Name: "number", ID: "7", Served: true}}
	// The refusal is 123 bytes besides its id: it echoes ids of up to 65,413 bytes.
	echoed := discovery.MaxResponseBytes - (len(LongIDRefusal) - len("null"))
	for _, n := range []int{3, 32, 63, 64, 65, 66, 100, 1000, 3000, 8000, echoed, echoed + 1, 70_000} {
		cases = append(cases, ToolIDCase{Name: fmt.Sprint(n), ID: `"` + strings.Repeat("i", n-2) + `"`, Served: n <= 64, Null: n > echoed})
	}
	reencoded := w == IDReencoded
	return append(cases,
		ToolIDCase{Name: "HTML", ID: `"` + strings.Repeat("<", 62) + `"`, Served: true},              // written as sent: 64 bytes
		ToolIDCase{Name: "escapes", ID: `"` + strings.Repeat(`\u0069`, 20) + `"`, Served: reencoded}, // 122 bytes sent, "iii…" (22) re-encoded
		ToolIDCase{Name: "U+2028", ID: `"` + strings.Repeat("\u2028", 20) + `"`, Served: !reencoded}, // 62 bytes sent, \u2028… (122) re-encoded
	)
}

// ToolIDCall is the discovery tool call ("search_tools") of the tests, with id.
func ToolIDCall(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather","limit":16}}}`
}

// CheckToolIDAnswer checks the response to a discovery tool call of case c: at most
// discovery.MaxResponseBytes, carrying c's id (as sent, or decoded equal when w is
// IDReencoded), and a page of tools, the tools want unless want is nil (the page of
// the shortest id: no id of up to 64 bytes gets a smaller one), or the refusal
// invalid_request. It returns the page's tool names.
func CheckToolIDAnswer(t testing.TB, w IDWriting, c ToolIDCase, resp []byte, want []string) []string {
	t.Helper()
	if len(resp) > discovery.MaxResponseBytes {
		t.Errorf("id %s: discovery tool response %d bytes, over %d", c.Name, len(resp), discovery.MaxResponseBytes)
	}
	var msg struct {
		ID     json.RawMessage
		Result *struct {
			StructuredContent struct{ Tools []struct{ Name string } }
		}
		Error *RPCError
	}
	if err := json.Unmarshal(resp, &msg); err != nil {
		t.Fatalf("id %s: response %.200s: %v", c.Name, resp, err)
	}
	if w == IDReencoded {
		var got, sent any
		json.Unmarshal(msg.ID, &got)
		json.Unmarshal([]byte(c.reply()), &sent)
		if got != sent {
			t.Errorf("id %s: response id %.80s, want %.80s", c.Name, msg.ID, c.reply())
		}
	} else if string(msg.ID) != c.reply() {
		t.Errorf("id %s: response id %.80s, want %.80s", c.Name, msg.ID, c.reply())
	}
	if !c.Served {
		code := discovery.CodeInvalidRequest
		if e := msg.Error; e == nil || e.Code != code.JSONRPCCode() || e.Message != string(code) || e.Data.Error != string(code) || e.Data.Status != code.Status() {
			t.Errorf("id %s: response %.200s, want the error %s", c.Name, resp, code)
		}
		return nil
	}
	if msg.Result == nil || len(msg.Result.StructuredContent.Tools) == 0 {
		t.Fatalf("id %s: response %.200s, want a page", c.Name, resp)
	}
	var got []string
	for _, tl := range msg.Result.StructuredContent.Tools {
		got = append(got, tl.Name)
	}
	if want != nil && !slices.Equal(got, want) {
		t.Errorf("id %s: page %v, want %v", c.Name, got, want)
	}
	return got
}
