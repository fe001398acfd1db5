package mcpsdk

import (
	"context"
	"net/http"
	"reflect"
	"sync"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// callFunc finishes the decision on a tools/call whose tool name the front granted
// (discovery.Discoverer.AuthorizeToolThen).
type callFunc = func(ctx context.Context, p grants.Principal, c discovery.Call) error

// pendingCalls carries the front's decisions on granted tools/call requests through the
// SDK to the middleware, so that a call reads grants once (SPEC CALL-1): the front's
// AuthorizeToolThen reads them and the middleware finishes the decision from that read.
// A decision is keyed by what the SDK hands the middleware unchanged: the
// *mcp.RequestExtra of the message a connection passes on (stdio and other transports;
// see inflight), or the header map of the HTTP request, dropped when Handler returns.
// The middleware takes a decision once; a call without one is decided by
// AuthorizeCall, which reads grants itself. A decision that reaches the wrong request
// (a host that shares header maps or extras between requests) is harmless: it serves
// only its own principal and tool, once, and anything else rereads. What it saves is
// one Reader call per granted call: little on grants.Memory, a query on a SQL store.
type pendingCalls struct{ m sync.Map }

// headerKey is the identity of an HTTP request's header map.
type headerKey struct{ p unsafe.Pointer }

// attachHeader keys call by the header map h of an HTTP request until detach is called.
func (pc *pendingCalls) attachHeader(h http.Header, call callFunc) (detach func()) {
	key := headerKey{reflect.ValueOf(h).UnsafePointer()}
	pc.m.Store(key, call)
	return func() { pc.m.Delete(key) }
}

// take returns and forgets the decision attached to the request of extra, or nil.
func (pc *pendingCalls) take(extra *mcp.RequestExtra) callFunc {
	if extra == nil {
		return nil
	}
	if v, ok := pc.m.LoadAndDelete(extra); ok {
		return v.(callFunc)
	}
	if extra.Header != nil {
		if v, ok := pc.m.LoadAndDelete(headerKey{reflect.ValueOf(extra.Header).UnsafePointer()}); ok {
			return v.(callFunc)
		}
	}
	return nil
}

// inflight is a connection's record of what it still owes its client
// (rpcwire.Owed): the requests it passed on to the SDK, by id, each with the extra
// keying the front's decision on a call (nil: none), which pendingCalls holds until
// the response or the close; the front's own answers being written; and the calls the
// server sent that await the client's response. At the end of the input the
// connection waits for it (Wait) before reporting the end, since the SDK, once its
// read fails, cancels the requests in flight and writes nothing more: every request
// read before the end gets its answer. It also keeps request ids unique among those
// in flight: the SDK drops a request whose id is in flight without an answer.
type inflight struct {
	rpcwire.Owed[jsonrpc.ID, *mcp.RequestExtra]
}

// attach records req as passed on to the SDK and keys call (nil: none) by req's
// extra, giving req an empty one when it has none. It reports false, recording
// nothing, for a request whose id is already in flight: the SDK would drop it
// silently, so the caller refuses it. A notification is not recorded; a request whose
// Extra is not an *mcp.RequestExtra is recorded without its decision.
func (f *inflight) attach(pc *pendingCalls, req *jsonrpc.Request, call callFunc) bool {
	if !req.ID.IsValid() {
		return true
	}
	extra, ok := req.Extra.(*mcp.RequestExtra)
	keyed := call != nil && (req.Extra == nil || ok)
	switch {
	case !keyed:
		extra = nil
	case extra == nil:
		extra = &mcp.RequestExtra{}
	}
	if !f.Track(req.ID, extra) {
		return false
	}
	if keyed {
		req.Extra = extra
		pc.m.Store(extra, call)
	}
	return true
}

// done records a message the connection writes: a response settles its request (and
// drops the decision no middleware took), a call of the server's awaits the client.
func (f *inflight) done(pc *pendingCalls, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if extra, ok := f.Settle(m.ID); ok && extra != nil {
			pc.m.Delete(extra)
		}
	case *jsonrpc.Request:
		if m.ID.IsValid() {
			f.Call(m.ID)
		}
	}
}

// close drops every decision of the connection.
func (f *inflight) close(pc *pendingCalls) {
	f.Clear(func(extra *mcp.RequestExtra) {
		if extra != nil {
			pc.m.Delete(extra)
		}
	})
}
