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

// inflight is a connection's share of pendingCalls: the decisions it attached to the
// requests it passed on, by request id, each dropped when the connection writes the
// request's response or closes, so a decision the middleware never took (the SDK
// refused the request first) is not kept.
type inflight struct {
	mu   sync.Mutex
	byID map[jsonrpc.ID]*mcp.RequestExtra
}

// attach keys call by req's extra, giving req an empty one when it has none. A request
// whose Extra is not an *mcp.RequestExtra, or whose id is already in flight, gets no
// decision.
func (f *inflight) attach(pc *pendingCalls, req *jsonrpc.Request, call callFunc) {
	extra, ok := req.Extra.(*mcp.RequestExtra)
	if call == nil || !req.ID.IsValid() || req.Extra != nil && !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.byID[req.ID]; dup {
		return
	}
	if extra == nil {
		extra = &mcp.RequestExtra{}
		req.Extra = extra
	}
	if f.byID == nil {
		f.byID = make(map[jsonrpc.ID]*mcp.RequestExtra)
	}
	f.byID[req.ID] = extra
	pc.m.Store(extra, call)
}

// done drops the decision of the request msg answers, if msg is a response.
func (f *inflight) done(pc *pendingCalls, msg jsonrpc.Message) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if extra, ok := f.byID[r.ID]; ok {
		delete(f.byID, r.ID)
		pc.m.Delete(extra)
	}
}

// close drops every decision of the connection.
func (f *inflight) close(pc *pendingCalls) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, extra := range f.byID {
		delete(f.byID, id)
		pc.m.Delete(extra)
	}
}
