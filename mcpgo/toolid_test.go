package mcpgo_test

import (
	"context"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// bigToolFixture serves adaptertest.BigTools, all granted to everyone, and the
// discovery tool: one page of them fills the 64 KiB of a tools/call response.
func bigToolFixture(t *testing.T) *fixture {
	t.Helper()
	tools, mem := adaptertest.BigTools(t)
	return newFixture(t, fixtureOptions{enabled: true, tool: "search_tools", tools: tools, reader: mem})
}

// The front writes a response's id back as sent.
const idWriting = adaptertest.IDAsSent

// SPEC PAGE-1, PAGE-2 over stdio: a discovery tool call with an id of any length
// answers at most 64 KiB; an id of at most 64 bytes gets the page DiscoverTool sizes
// for it (the same page whatever its length), a longer one invalid_request with its id.
func TestDiscoveryToolLongIDWithinPage(t *testing.T) {
	f := bigToolFixture(t)
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), grants.Principal{ID: "x"}))
	c.initialize()
	cases := adaptertest.ToolIDCases(idWriting)
	want := adaptertest.CheckToolIDAnswer(t, idWriting, cases[0], c.next(adaptertest.ToolIDCall(cases[0].ID)), nil)
	for _, tc := range cases {
		adaptertest.CheckToolIDAnswer(t, idWriting, tc, c.next(adaptertest.ToolIDCall(tc.ID)), want)
	}
}

// TestDiscoveryToolLongIDWithinPage over streamable HTTP, through Handler.
func TestHTTPDiscoveryToolLongIDWithinPage(t *testing.T) {
	f := bigToolFixture(t)
	h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-alice"}
	h.initialize()
	cases := adaptertest.ToolIDCases(idWriting)
	post := func(id string) []byte {
		resp, body := h.post(adaptertest.ToolIDCall(id), "")
		if resp.StatusCode != 200 {
			t.Errorf("id %.20s: HTTP %d, want 200", id, resp.StatusCode)
		}
		return httpAnswer(resp, body)
	}
	want := adaptertest.CheckToolIDAnswer(t, idWriting, cases[0], post(cases[0].ID), nil)
	for _, tc := range cases {
		adaptertest.CheckToolIDAnswer(t, idWriting, tc, post(tc.ID), want)
	}
}
