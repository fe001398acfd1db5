package mcpsdk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// badPins are _meta.contract_digest values that are no string; null is one of them.
var badPins = []string{`5`, `0`, `{}`, `{"contract_digest":"x"}`, `[]`, `["sha256:0"]`, `true`, `false`, `null`}

// pinCases are the calls a pin that is no string must answer, by the order the
// adapters decide a call in (the grants, then the pin, then the arguments): a denied
// tool is refused as denied, a granted one invalid_params whatever its arguments, and
// the discovery tool invalid_params as an error, not an isError result.
func pinCases(pin string) []struct{ msg, want string } {
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,"_meta":{"contract_digest":` + pin + `}}}`
	}
	return []struct{ msg, want string }{
		{call("weather_get", `{"city":"Oslo"}`), string(discovery.CodeInvalidParams)},
		{call("weather_get", `{"city":5}`), string(discovery.CodeInvalidParams)},
		{call("secrets_read", `{"key":"k"}`), string(discovery.CodeToolNotGranted)},
		{call("search_tools", `{"query":"weather"}`), string(discovery.CodeInvalidParams)},
		{call("search_tools", `{"query":""}`), string(discovery.CodeInvalidParams)},
	}
}

// SPEC CONTRACT-2, ERR-2: a contract pin that is no string (a number, object, array,
// bool or null) fails closed: invalid_params (-32602), content-free, decided after the
// grants (a denied tool answers tool_not_granted) and before the arguments; the tool
// never runs. Before, it was read as no pin and the call ran. Over the IO front
// (stdio), streamable HTTP and an SDK transport (the middleware alone).
func TestBadContractPin(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice, tool: "search_tools"})
	check := func(t *testing.T, what, want string, resp []byte) {
		t.Helper()
		wantCode(t, what, resp, discovery.Code(want))
		if strings.Contains(string(resp), "isError") || strings.Contains(string(resp), "Oslo") {
			t.Errorf("%s: %s, want the error alone", what, resp)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		c := f.rawConnect(t)
		for _, pin := range badPins {
			for i, tc := range pinCases(pin) {
				id := fmt.Sprint(i + 2)
				check(t, tc.msg, tc.want, c.call(strings.Replace(tc.msg, `"id":1`, `"id":`+id, 1), id))
			}
		}
	})
	t.Run("HTTP", func(t *testing.T) {
		hf, err := buildFixture(fixtureOptions{enabled: true, tool: "search_tools", principal2: mcpsdk.TokenInfoPrincipal})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(hf.httpHandler())
		defer srv.Close()
		h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
		h.initialize()
		for _, pin := range badPins {
			for _, tc := range pinCases(pin) {
				resp, body := h.post(tc.msg)
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s: HTTP %d, want 200 as for every refused tools/call", tc.msg, resp.StatusCode)
				}
				check(t, tc.msg, tc.want, body)
			}
		}
		if n := hf.calls("weather_get"); n != 0 {
			t.Errorf("weather_get ran %d times over HTTP with a pin that is no string", n)
		}
	})
	t.Run("SDK transport", func(t *testing.T) {
		cs := f.connect(t)
		for _, pin := range []any{5, map[string]any{}, []any{}, true, nil} {
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weather_get", Arguments: map[string]any{"city": "Oslo"}, Meta: mcp.Meta{"contract_digest": pin}})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Message != string(discovery.CodeInvalidParams) {
				t.Errorf("pin %v: %v, want invalid_params", pin, err)
			}
		}
	})
	if n := f.calls("weather_get"); n != 0 {
		t.Errorf("weather_get ran %d times with a pin that is no string", n)
	}
	// A string pin is still a pin: the right one runs the call.
	c := f.rawConnect(t)
	list := c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "1")
	i := strings.Index(string(list), `"contract_digest":"`)
	digest := string(list[i+len(`"contract_digest":"`):][:71])
	resp := c.call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"},"_meta":{"contract_digest":"`+digest+`"}}}`, "2")
	if e := decodeError(t, resp); e != nil || f.calls("weather_get") != 1 {
		t.Errorf("weather_get with its digest as pin: %s, ran %d times", resp, f.calls("weather_get"))
	}
}
