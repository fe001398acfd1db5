package mcpgo_test

import (
	"context"
	"testing"

	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// SPEC PAGE-1, ERR-1 over stdio: every refusal (the front's, the Discoverer's, mcp-
// go's) and every result the front decides answers an id of 8 KiB as an id of 64
// bytes, carrying it, and one of 70,000 bytes within 64 KiB: an error response it
// would push past 64 KiB is invalid_request with a null id (adaptertest.CheckLongIDs,
// which also sends the ids at that bound, and on HTTP checks the status: the 64-byte
// id's, 400 in place of an error status for the null-id refusal).
func TestStdioLongIDs(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), adaptertest.Alice))
	c.initialize()
	for _, tc := range adaptertest.CatalogLongIDs {
		adaptertest.CheckLongIDs(t, tc, func(msg string) ([]byte, int) { return c.next(msg), 0 })
	}
}

// TestStdioLongIDs over streamable HTTP, through Handler.
func TestHTTPLongIDs(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-alice"}
	h.initialize()
	for _, tc := range adaptertest.CatalogLongIDs {
		adaptertest.CheckLongIDs(t, tc, func(msg string) ([]byte, int) {
			resp, body := h.post(msg, "")
			return httpAnswer(resp, body), resp.StatusCode
		})
	}
}
