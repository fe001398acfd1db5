package mcpgo_test

import (
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// SPEC ERR-1, DISC-1: Handler answers the discover method itself, before mcp-go sees
// the request, yet as mcp-go's streamable HTTP server answers every other method for
// the same headers: for each Content-Type and Accept of adaptertest.HeaderCases, a
// discover request and a tools/list request (as notifications, discover and
// notifications/roots/list_changed) answer the same HTTP status, and a refusal the
// same media type and JSON-RPC error with the request's id. mcp-go v1.2.1 reads no
// Accept header on a POST (it answers JSON whatever Accept says) and refuses a
// Content-Type that is not application/json with 400, before the body is read.
func TestHTTPDiscoverHeadersAsSDK(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	f.a = mcpgo.New(f.d, &mcpgo.Options{DiscoveryTool: "search_tools"})
	url := f.httpServer(t).URL
	h := &httpSession{t: t, url: url, token: "tok-alice"}
	h.initialize()
	for _, hc := range adaptertest.HeaderCases {
		for _, id := range []string{`"id":7,`, `"id":"x",`, ``} {
			post := func(rest string) adaptertest.HTTPAnswer {
				return adaptertest.PostHeaders(t, url, "tok-alice", h.session, "2025-06-18", hc, `{"jsonrpc":"2.0",`+id+rest)
			}
			other := `"method":"tools/list"}`
			if id == "" { // a notification mcp-go takes
				other = `"method":"notifications/roots/list_changed"}`
			}
			l := post(other)
			d := post(`"method":"` + discovery.DefaultMethod + `","params":{"query":"weather"}}`)
			if !adaptertest.SameAnswer(l, d) {
				t.Errorf("%+v %s\ntools/list %+v\ndiscover   %+v", hc, id, l, d)
			}
		}
	}
}
