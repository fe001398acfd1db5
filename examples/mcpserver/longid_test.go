package main

import (
	"testing"

	"github.com/deferredtools/deferredtools/internal/adaptertest"
)

// longIDCases are adaptertest's for the demo catalog as alice: models_search granted,
// billing_set_budget denied.
var longIDCases = adaptertest.LongIDCases("models_search", `{"query":"bert"}`, `{"query":""}`, "billing_set_budget")

// SPEC PAGE-1, ERR-1 from outside, over stdio: every refusal (the front's, the
// Discoverer's, the SDK's) and every result the adapter decides answers an id of 8 KiB
// as an id of 64 bytes, carrying it, and one of 70,000 bytes within 64 KiB: an error
// response it would push past 64 KiB is invalid_request with a null id
// (adaptertest.CheckLongIDs, which also sends the ids at that bound, and on HTTP
// checks the status: the 64-byte id's, 400 in place of an error status for the null-id
// refusal).
func TestStdioLongIDs(t *testing.T) {
	s := startLines(t)
	for _, c := range longIDCases {
		adaptertest.CheckLongIDs(t, c, func(msg string) ([]byte, int) { return s.roundTrip(msg), 0 })
	}
}

// TestStdioLongIDs over streamable HTTP.
func TestHTTPLongIDs(t *testing.T) {
	h := &httpSession{t: t, url: httpPrincipals(t) + "/mcp", token: "tok-alice"}
	h.initialize()
	for _, c := range longIDCases {
		adaptertest.CheckLongIDs(t, c, func(msg string) ([]byte, int) { b := h.post(msg); return b, h.lastStatus })
	}
}
