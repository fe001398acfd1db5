package mcpsdk_test

import (
	"net/http/httptest"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// SPEC ERR-1, DISC-1: Handler answers the discover method itself, before the SDK sees
// the request, yet as the go-sdk's streamable HTTP handler answers every other method
// for the same headers: for each Content-Type and Accept of adaptertest.HeaderCases,
// a discover request and a tools/list request (as notifications, discover and
// notifications/roots/list_changed) answer
// the same HTTP status, and a refusal the same media type and JSON-RPC error with the
// request's id. The SDK refuses a POST whose Accept lacks application/json or
// text/event-stream (400 invalid_request once Handler has made its text content-free),
// and so does discover now; before, it answered its page.
func TestHTTPDiscoverHeadersAsSDK(t *testing.T) {
	f, err := buildFixture(fixtureOptions{enabled: true, tool: "search_tools", principal2: mcpsdk.TokenInfoPrincipal})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f.httpHandler())
	defer srv.Close()
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	for _, hc := range adaptertest.HeaderCases {
		for _, id := range []string{`"id":7,`, `"id":"x",`, ``} {
			post := func(rest string) adaptertest.HTTPAnswer {
				return adaptertest.PostHeaders(t, srv.URL, "tok-alice", h.id, "2025-11-25", hc, `{"jsonrpc":"2.0",`+id+rest)
			}
			other := `"method":"tools/list"}`
			if id == "" { // a notification the SDK takes
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
