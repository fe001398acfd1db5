package mcpsdk_test

import (
	"net/http/httptest"
	"testing"

	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// longIDCases are adaptertest's for the test catalog as alice: weather_get granted,
// secrets_read never.
var longIDCases = adaptertest.LongIDCases("weather_get", `{"city":"Oslo"}`, `{"city":"O"}`, "secrets_read")

// SPEC PAGE-1, ERR-1 over stdio (an io transport): every refusal (the front's, the
// Discoverer's, the SDK's) and every result the adapter decides answers an id of 8 KiB
// as an id of 64 bytes, carrying it, and one of 70,000 bytes within 64 KiB: an error
// response it would push past 64 KiB is invalid_request with a null id
// (adaptertest.CheckLongIDs, which also sends the ids at that bound, and on HTTP
// checks the status: the 64-byte id's, 400 in place of an error status for the null-id
// refusal).
func TestStdioLongIDs(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools", principal: adaptertest.Alice})
	rc := f.rawConnect(t)
	next := func(msg string) []byte { // the next response: one request at a time
		rc.send(msg)
		b, err := rc.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return b[:len(b)-1]
	}
	for _, c := range longIDCases {
		adaptertest.CheckLongIDs(t, c, func(msg string) ([]byte, int) { return next(msg), 0 })
	}
}

// TestStdioLongIDs over streamable HTTP, through Handler.
func TestHTTPLongIDs(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools", principal2: mcpsdk.TokenInfoPrincipal})
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	for _, c := range longIDCases {
		adaptertest.CheckLongIDs(t, c, func(msg string) ([]byte, int) {
			resp, body := h.post(msg)
			return body, resp.StatusCode
		})
	}
}
