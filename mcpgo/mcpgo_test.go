package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// listResult is a tools/list or discover result as the wire carries it.
type listResult struct {
	Result struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
		CacheScope *string           `json:"cacheScope"`
		Meta       map[string]any    `json:"_meta"`
	} `json:"result"`
}

func decodeList(t testing.TB, resp []byte) listResult {
	t.Helper()
	var r listResult
	if err := json.Unmarshal(resp, &r); err != nil || r.Result.Tools == nil {
		t.Fatalf("response %s is not a tool list (%v)", resp, err)
	}
	return r
}

func names(t testing.TB, tools []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, def := range tools {
		var v struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(def, &v); err != nil {
			t.Fatalf("tool %s: %v", def, err)
		}
		out = append(out, v.Name)
	}
	return out
}

// SPEC VIS-3, PAGE-5, CONTRACT-2, DISC-3: over stdio, tools/list is narrowed to alice's
// authorised set plus the discovery tool, each tool byte for byte the catalog's
// canonical definition (the same bytes discover serves, "<b>" unescaped), with her
// contract digest and cacheScope "private"; discover reports the same digest.
func TestStdioList(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), alice))
	c.initialize()
	resp := c.call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "2")
	l := decodeList(t, resp)
	want := append(slices.Clone(wantAliceTools), "search_tools")
	if got := names(t, l.Result.Tools); !slices.Equal(got, want) {
		t.Errorf("tools/list = %v, want %v", got, want)
	}
	for _, def := range l.Result.Tools[:len(l.Result.Tools)-1] {
		name := names(t, []json.RawMessage{def})[0]
		canon, _ := f.cat.Tool(name)
		if !bytes.Equal(def, canon) {
			t.Errorf("tools/list served %s, want the canonical %s", def, canon)
		}
	}
	if !bytes.Contains(resp, []byte("<b>now</b> & here")) {
		t.Errorf("tools/list escaped HTML: %s", resp)
	}
	list, _ := f.d.ListTools(context.Background(), alice)
	if l.Result.Meta[mcpgo.MetaContractDigest] != list.ContractDigest {
		t.Errorf("tools/list _meta = %v, want contract_digest %s", l.Result.Meta, list.ContractDigest)
	}
	if l.Result.CacheScope == nil || *l.Result.CacheScope != "private" {
		t.Errorf("tools/list cacheScope = %v, want \"private\"", l.Result.CacheScope)
	}
	d := decodeList(t, c.call(`{"jsonrpc":"2.0","id":3,"method":"multillm.tools.discover","params":{"query":"current weather city","limit":1}}`, "3"))
	if d.Result.Meta[mcpgo.MetaContractDigest] != list.ContractDigest || len(d.Result.Tools) != 1 {
		t.Fatalf("discover = %+v, want one tool and digest %s", d, list.ContractDigest)
	}
	if canon, _ := f.cat.Tool("weather_get"); !bytes.Equal(d.Result.Tools[0], canon) {
		t.Errorf("discover served %s, want %s", d.Result.Tools[0], canon)
	}
}

// SPEC CALL-1, CALL-2, ERR-1: over stdio, a granted call runs, a call of a tool alice
// may not call and of a tool that does not exist are the same tool_not_granted 403
// (never mcp-go's -32602 "tool not found"), and invalid arguments are an isError
// result naming the keyword; only the granted call reaches a handler.
func TestStdioCall(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), bob))
	c.initialize()
	ok := c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`, "1")
	if !bytes.Contains(ok, []byte(`"ran weather_get"`)) {
		t.Errorf("granted call = %s", ok)
	}
	for i, name := range []string{"deploy_model", "secrets_read", "no_such_tool"} {
		id := 10 + i
		resp := c.call(`{"jsonrpc":"2.0","id":`+itoa(id)+`,"method":"tools/call","params":{"name":"`+name+`","arguments":{"model":"x"}}}`, itoa(id))
		wantError(t, resp, discovery.CodeToolNotGranted)
	}
	inv := c.call(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"x"}}}`, "20")
	if !bytes.Contains(inv, []byte(`"isError":true`)) || !bytes.Contains(inv, []byte(`\"minLength\"`)) || bytes.Contains(inv, []byte(`"x"`)) {
		t.Errorf("invalid call = %s, want isError naming minLength and not the value", inv)
	}
	if f.calls("weather_get") != 1 || f.calls("deploy_model") != 0 || f.calls("secrets_read") != 0 {
		t.Errorf("handlers ran: weather_get %d, deploy_model %d, secrets_read %d; want 1, 0, 0",
			f.calls("weather_get"), f.calls("deploy_model"), f.calls("secrets_read"))
	}
	// The discovery tool: the page as structuredContent.
	dt := c.call(`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather forecast"}}}`, "30")
	var r struct {
		Result struct {
			StructuredContent struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"structuredContent"`
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(dt, &r); err != nil || len(r.Result.StructuredContent.Tools) == 0 || !strings.Contains(r.Result.Content[0].Text, "weather_forecast") {
		t.Errorf("discovery tool = %s (%v)", dt, err)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
