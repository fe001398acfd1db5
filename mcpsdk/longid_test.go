package mcpsdk_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

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
	for _, c := range adaptertest.CatalogLongIDs {
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
	for _, c := range adaptertest.CatalogLongIDs {
		adaptertest.CheckLongIDs(t, c, func(msg string) ([]byte, int) {
			resp, body := h.post(msg)
			return body, resp.StatusCode
		})
	}
}

// SPEC PAGE-1, ERR-1 over streamable HTTP when the SDK's handler refuses a body the
// front let through (its MaxRequestBodyBytes below the adapter's): its text/plain 413
// becomes message_too_large with the request's id and status 413, and an id that
// would push that error past 64 KiB answers adaptertest.LongIDRefusal with 400, as
// every error the adapters write (rpcwire.FitError), whoever refused.
func TestHTTPSDKTooLargeLongID(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools", principal2: mcpsdk.TokenInfoPrincipal})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server }, &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: 100 << 10})
	srv := httptest.NewServer(bearerAuth(f.a.Handler(sdk)))
	t.Cleanup(srv.Close)
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	pad := strings.Repeat("p", 200<<10)
	for _, c := range []struct {
		idLen  int
		want   string
		status int
	}{
		{64, "", http.StatusRequestEntityTooLarge},
		{70_000, adaptertest.LongIDRefusal, http.StatusBadRequest},
	} {
		id := `"` + strings.Repeat("i", c.idLen-2) + `"`
		resp, body := h.post(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping","params":{"pad":"` + pad + `"}}`)
		want := c.want
		if want == "" {
			want = string(discovery.AppendJSONRPCError(nil, []byte(id), discovery.CodeMessageTooLarge))
		}
		if resp.StatusCode != c.status || string(body) != want {
			t.Errorf("id of %d bytes: HTTP %d %.200s, want %d %.200s", c.idLen, resp.StatusCode, body, c.status, want)
		}
	}
}
