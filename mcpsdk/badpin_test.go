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
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// SPEC CONTRACT-2, ERR-2: a contract pin that is no string (a number, object, array,
// bool or null) fails closed: invalid_params (-32602), content-free, decided after the
// grants (a denied tool answers tool_not_granted) and before the arguments; the tool
// never runs. Before, it was read as no pin and the call ran. Over the IO front
// (stdio), streamable HTTP and an SDK transport (the middleware alone).
func TestBadContractPin(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice, tool: "search_tools"})
	check := func(t *testing.T, what string, want discovery.Code, resp []byte) {
		t.Helper()
		wantCode(t, what, resp, want)
		if strings.Contains(string(resp), "isError") || strings.Contains(string(resp), "Oslo") {
			t.Errorf("%s: %s, want the error alone", what, resp)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		c := f.rawConnect(t)
		for _, pin := range adaptertest.BadPins {
			for i, tc := range adaptertest.PinCases(pin) {
				id := fmt.Sprint(i + 2)
				check(t, tc.Msg, tc.Want, c.call(strings.Replace(tc.Msg, `"id":1`, `"id":`+id, 1), id))
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
		for _, pin := range adaptertest.BadPins {
			for _, tc := range adaptertest.PinCases(pin) {
				resp, body := h.post(tc.Msg)
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s: HTTP %d, want 200 as for every refused tools/call", tc.Msg, resp.StatusCode)
				}
				check(t, tc.Msg, tc.Want, body)
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
