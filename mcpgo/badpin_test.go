package mcpgo_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// SPEC CONTRACT-2, ERR-2: a contract pin that is no string (a number, object, array,
// bool or null) fails closed: invalid_params (-32602), content-free, decided after the
// grants (a denied tool answers tool_not_granted) and before the arguments; the tool
// never runs. Before, it was read as no pin and the call ran. Over stdio and HTTP.
func TestBadContractPin(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools", principal: mcpgo.StaticPrincipal(alice)})
	check := func(t *testing.T, what string, want discovery.Code, resp []byte) {
		t.Helper()
		wantError(t, resp, want)
		if strings.Contains(string(resp), "isError") || strings.Contains(string(resp), "Oslo") {
			t.Errorf("%s: %s, want the error alone", what, resp)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		c := f.listen(t, context.Background())
		c.initialize()
		for _, pin := range adaptertest.BadPins {
			for i, tc := range adaptertest.PinCases(pin) {
				id := fmt.Sprint(i + 2)
				check(t, tc.Msg, tc.Want, c.call(strings.Replace(tc.Msg, `"id":1`, `"id":`+id, 1), id))
			}
		}
	})
	t.Run("HTTP", func(t *testing.T) {
		stdio := f.a
		defer func() { f.a = stdio }()
		f.a = mcpgo.New(f.d, &mcpgo.Options{DiscoveryTool: "search_tools"}) // the principal from the bearer token
		h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-alice"}
		h.initialize()
		for _, pin := range adaptertest.BadPins {
			for _, tc := range adaptertest.PinCases(pin) {
				resp, body := h.post(tc.Msg, "")
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s: HTTP %d, want 200 as for every refused tools/call", tc.Msg, resp.StatusCode)
				}
				check(t, tc.Msg, tc.Want, httpAnswer(resp, body))
			}
		}
	})
	if n := f.calls("weather_get"); n != 0 {
		t.Errorf("weather_get ran %d times with a pin that is no string", n)
	}
	// A string pin is still a pin: the right one runs the call.
	c := f.listen(t, context.Background())
	c.initialize()
	list := c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "1")
	i := strings.Index(string(list), `"contract_digest":"`)
	digest := string(list[i+len(`"contract_digest":"`):][:71])
	resp := c.call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"},"_meta":{"contract_digest":"`+digest+`"}}}`, "2")
	if e := decodeError(t, resp); e != nil || f.calls("weather_get") != 1 {
		t.Errorf("weather_get with its digest as pin: %s, ran %d times", resp, f.calls("weather_get"))
	}
}
