package mcpsdk_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// bigToolFixture serves adaptertest.BigTools, all granted to everyone, and the
// discovery tool: one page of them fills the 64 KiB of a tools/call response.
func bigToolFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	o.tools, o.reader = adaptertest.BigTools(t)
	o.enabled, o.tool = true, "search_tools"
	return newFixture(t, o)
}

// The go-sdk writes a response's id itself, decoded and encoded again.
const idWriting = adaptertest.IDReencoded

// SPEC PAGE-1, PAGE-2 over stdio: a discovery tool call with an id of any length
// answers at most 64 KiB; an id the SDK writes in at most 64 bytes gets the page
// DiscoverTool sizes for it (the same page whatever its length), a longer one
// invalid_request with its id.
func TestDiscoveryToolLongIDWithinPage(t *testing.T) {
	f := bigToolFixture(t, fixtureOptions{principal: grants.Principal{ID: "x"}})
	rc := f.rawConnect(t)
	call := func(line string) []byte { // the next response: the session has one call at a time
		t.Helper()
		rc.send(line)
		b, err := rc.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return b[:len(b)-1]
	}
	cases := adaptertest.ToolIDCases(idWriting)
	want := adaptertest.CheckToolIDAnswer(t, idWriting, cases[0], call(adaptertest.ToolIDCall(cases[0].ID)), nil)
	for _, c := range cases {
		adaptertest.CheckToolIDAnswer(t, idWriting, c, call(adaptertest.ToolIDCall(c.ID)), want)
	}
}

// TestDiscoveryToolLongIDWithinPage over streamable HTTP, through Handler.
func TestHTTPDiscoveryToolLongIDWithinPage(t *testing.T) {
	f := bigToolFixture(t, fixtureOptions{principal2: mcpsdk.TokenInfoPrincipal})
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	cases := adaptertest.ToolIDCases(idWriting)
	_, first := h.post(adaptertest.ToolIDCall(cases[0].ID))
	want := adaptertest.CheckToolIDAnswer(t, idWriting, cases[0], first, nil)
	for _, c := range cases {
		resp, body := h.post(adaptertest.ToolIDCall(c.ID))
		if resp.StatusCode != 200 {
			t.Errorf("id %s: HTTP %d, want 200", c.Name, resp.StatusCode)
		}
		adaptertest.CheckToolIDAnswer(t, idWriting, c, body, want)
	}
}

// TestDiscoveryToolLongIDWithinPage over a transport whose messages the SDK decodes
// itself (the in-memory one): the front sees the decoded id, and the size is that of
// the response as the SDK encodes it.
func TestMemoryDiscoveryToolLongIDWithinPage(t *testing.T) {
	f := bigToolFixture(t, fixtureOptions{principal: grants.Principal{ID: "x"}})
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ss, err := f.server.Connect(ctx, f.a.Transport(st), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	call := func(line string) []byte {
		t.Helper()
		msg, err := jsonrpc.DecodeMessage([]byte(line))
		if err != nil {
			t.Fatalf("%.100s: %v", line, err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
		want := msg.(*jsonrpc.Request).ID
		for {
			in, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := in.(*jsonrpc.Response); ok && r.ID == want {
				b, err := jsonrpc.EncodeMessage(r)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
		}
	}
	call(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized"}); err != nil {
		t.Fatal(err)
	}
	cases := adaptertest.ToolIDCases(idWriting)
	want := adaptertest.CheckToolIDAnswer(t, idWriting, cases[0], call(adaptertest.ToolIDCall(cases[0].ID)), nil)
	for _, c := range cases {
		if c.Null {
			continue // the SDK writes the id of this front's refusals: it cannot be null
		}
		adaptertest.CheckToolIDAnswer(t, idWriting, c, call(adaptertest.ToolIDCall(c.ID)), want)
	}
}
