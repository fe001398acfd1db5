package mcpsdk

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

func pendingLen(pc *pendingCalls) int {
	n := 0
	pc.m.Range(func(any, any) bool { n++; return true })
	return n
}

func callRequest(t testing.TB, id int64) *jsonrpc.Request {
	jid, err := jsonrpc.MakeID(float64(id))
	if err != nil {
		t.Fatal(err)
	}
	return &jsonrpc.Request{ID: jid, Method: "tools/call"}
}

// A decision is taken once, by the request it was attached to; one no middleware takes
// (the SDK refused the request first) goes when the connection writes the request's
// response or closes; an id already in flight gets none.
func TestPendingCalls(t *testing.T) {
	var pc pendingCalls
	var f inflight
	call := func(context.Context, grants.Principal, discovery.Call) error { return nil }

	req := callRequest(t, 1)
	f.attach(&pc, req, call)
	extra, _ := req.Extra.(*mcp.RequestExtra)
	if extra == nil || pc.take(&mcp.RequestExtra{}) != nil {
		t.Fatal("attach gave the request no extra of its own, or another extra took its decision")
	}
	if pc.take(extra) == nil || pc.take(extra) != nil {
		t.Error("the request's extra did not take its decision exactly once")
	}
	f.done(&pc, &jsonrpc.Response{ID: req.ID})

	h := http.Header{}
	detach := pc.attachHeader(h, call)
	if pc.take(&mcp.RequestExtra{Header: http.Header{}}) != nil || pc.take(&mcp.RequestExtra{Header: h}) == nil {
		t.Error("the decision keyed by a header map went to another map, or not to its own")
	}
	pc.attachHeader(h, call)
	detach()
	if pc.take(&mcp.RequestExtra{Header: h}) != nil {
		t.Error("a detached decision was taken")
	}

	untaken := callRequest(t, 2)
	f.attach(&pc, untaken, call)
	twin := callRequest(t, 2)
	f.attach(&pc, twin, call)
	if twin.Extra != nil || pendingLen(&pc) != 1 {
		t.Errorf("a request whose id is in flight got a decision (%d held)", pendingLen(&pc))
	}
	f.done(&pc, &jsonrpc.Response{ID: untaken.ID})
	if n := pendingLen(&pc); n != 0 {
		t.Errorf("%d decisions held after the response was written, want none", n)
	}
	for i := range 5 {
		f.attach(&pc, callRequest(t, int64(10+i)), call)
	}
	f.close(&pc)
	if n := pendingLen(&pc); n != 0 {
		t.Errorf("%d decisions held after the connection closed, want none", n)
	}
}

// BenchmarkPendingCalls measures carrying one decision from the front to the
// middleware on a connection that gives its requests an extra.
func BenchmarkPendingCalls(b *testing.B) {
	var pc pendingCalls
	var f inflight
	call := func(context.Context, grants.Principal, discovery.Call) error { return nil }
	req := callRequest(b, 1)
	resp := &jsonrpc.Response{ID: req.ID}
	b.ReportAllocs()
	for b.Loop() {
		req.Extra = nil
		f.attach(&pc, req, call)
		if pc.take(req.Extra.(*mcp.RequestExtra)) == nil {
			b.Fatal("no decision")
		}
		f.done(&pc, resp)
	}
}
