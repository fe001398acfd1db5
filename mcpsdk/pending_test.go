package mcpsdk

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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

// pendingAdapter is an Adapter, switch on, whose principal alice is granted "echo" and
// not "secret".
func pendingAdapter(t *testing.T) *Adapter {
	t.Helper()
	ctx := context.Background()
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"echo","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"secret","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	if _, err := store.Put(ctx, grants.Row{Principal: "alice", Tool: "echo", Effect: grants.Allow, Revision: 1}); err != nil {
		t.Fatal(err)
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	return New(d, &Options{Principal: StaticPrincipal(grants.Principal{ID: "alice"})})
}

const grantedCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`

// SPEC CALL-1: each wrapper drops the front's decision on a granted call that no
// middleware took (the SDK refused the request first): stdio and other connections when
// they write the request's response or close, Handler when it returns. Each decision
// is held while its request is on its way, so the hand-off is there to drop.
func TestPendingDropped(t *testing.T) {
	ctx := context.Background()
	id7, _ := jsonrpc.MakeID(float64(7))
	resp := &jsonrpc.Response{ID: id7, Error: wireError(discovery.CodeInvalidParams)}
	// passOn reads one granted call through c, which holds its decision.
	passOn := func(t *testing.T, a *Adapter, c mcp.Connection, send func()) {
		t.Helper()
		send()
		msg, err := c.Read(ctx)
		if req, ok := msg.(*jsonrpc.Request); err != nil || !ok || req.Method != "tools/call" {
			t.Fatalf("Read = %v, %v; want the tools/call", msg, err)
		}
		if n := pendingLen(&a.pending); n != 1 {
			t.Fatalf("%d decisions held for the call on its way, want 1", n)
		}
	}
	for _, tc := range []struct {
		name    string
		connect func(t *testing.T, a *Adapter) (mcp.Connection, func())
	}{
		{"io", func(t *testing.T, a *Adapter) (mcp.Connection, func()) {
			in, client := io.Pipe()
			out, sink := io.Pipe()
			go io.Copy(io.Discard, out)
			t.Cleanup(func() { client.Close(); out.Close() })
			c, err := a.Transport(&mcp.IOTransport{Reader: in, Writer: sink}).Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Over stdio the front refuses a call before initialize itself.
			go io.WriteString(client, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`+"\n")
			if _, err := c.Read(ctx); err != nil {
				t.Fatal(err)
			}
			return c, func() { go io.WriteString(client, grantedCall+"\n") }
		}},
		{"in-memory", func(t *testing.T, a *Adapter) (mcp.Connection, func()) {
			st, ct := mcp.NewInMemoryTransports()
			cc, err := ct.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cc.Close() })
			c, err := a.Transport(st).Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			go func() { // the client side reads what the server writes
				for {
					if _, err := cc.Read(ctx); err != nil {
						return
					}
				}
			}()
			msg, err := jsonrpc.DecodeMessage([]byte(grantedCall))
			if err != nil {
				t.Fatal(err)
			}
			return c, func() { go cc.Write(ctx, msg) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := pendingAdapter(t)
			c, send := tc.connect(t, a)
			passOn(t, a, c, send)
			if err := c.Write(ctx, resp); err != nil {
				t.Fatal(err)
			}
			if n := pendingLen(&a.pending); n != 0 {
				t.Errorf("%d decisions held after the response was written, want none", n)
			}
			passOn(t, a, c, send)
			c.Close()
			if n := pendingLen(&a.pending); n != 0 {
				t.Errorf("%d decisions held after the connection closed, want none", n)
			}
		})
	}
	t.Run("http", func(t *testing.T) {
		a := pendingAdapter(t)
		held := -1
		h := a.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			held = pendingLen(&a.pending) // a handler that refuses the call without the middleware
			http.Error(w, "refused", http.StatusBadRequest)
		}))
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(grantedCall))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(httptest.NewRecorder(), req)
		if held != 1 {
			t.Errorf("%d decisions held while the SDK had the call, want 1", held)
		}
		if n := pendingLen(&a.pending); n != 0 {
			t.Errorf("%d decisions held after Handler returned, want none", n)
		}
	})
}

// SPEC CALL-1: a decision that reaches another request (a host sharing one header map
// between requests) grants nothing beyond its own tool: the middleware refuses a call
// of an ungranted tool that finds the decision on "echo", and runs nothing.
func TestPendingMisrouted(t *testing.T) {
	ctx := context.Background()
	a := pendingAdapter(t)
	alice := grants.Principal{ID: "alice"}
	call, err := a.d.AuthorizeToolThen(ctx, alice, "echo")
	if err != nil || call == nil {
		t.Fatalf("AuthorizeToolThen(echo) = %v, no call", err)
	}
	h := http.Header{}
	defer a.pending.attachHeader(h, call)()
	ran := false
	mw := a.Middleware()(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		ran = true
		return &mcp.CallToolResult{}, nil
	})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "secret", Arguments: json.RawMessage(`{}`)}, Extra: &mcp.RequestExtra{Header: h}}
	_, err = mw(ctx, "tools/call", req)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != string(discovery.CodeToolNotGranted) || ran {
		t.Errorf("a call of secret holding echo's decision = %v (ran %v), want tool_not_granted", err, ran)
	}
}
