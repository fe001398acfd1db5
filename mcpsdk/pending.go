package mcpsdk

import (
	"context"
	"net/http"
	"reflect"
	"sync"
	"time"
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

// inflight is a connection's record of what it still owes its client: every request it
// passed on to the SDK and whose response it has not written (with the extra keying
// the front's decision on a call, which pendingCalls holds until the response or the
// close), the front's own answers being written, and the calls the server sent that
// await the client's response. At the end of the input the connection drains it
// (wait) before reporting the end, since the SDK, once its read fails, cancels the
// requests in flight and writes nothing more: every request read before the end gets
// its answer. It also keeps request ids unique among those in flight: the SDK drops a
// request whose id is in flight without an answer.
type inflight struct {
	mu        sync.Mutex
	byID      map[jsonrpc.ID]*mcp.RequestExtra // requests passed on; extra nil when no decision
	answering int                              // the front's answers being written
	outgoing  map[jsonrpc.ID]bool              // the server's calls awaiting the client
	changed   rpcwire.Changes                  // wakes wait
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
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.byID[req.ID]; dup {
		return false
	}
	if f.byID == nil {
		f.byID = make(map[jsonrpc.ID]*mcp.RequestExtra)
	}
	extra, ok := req.Extra.(*mcp.RequestExtra)
	if call == nil || req.Extra != nil && !ok {
		f.byID[req.ID] = nil
		return true
	}
	if extra == nil {
		extra = &mcp.RequestExtra{}
		req.Extra = extra
	}
	f.byID[req.ID] = extra
	pc.m.Store(extra, call)
	return true
}

// done records a message the connection writes: a response settles its request (and
// drops the decision no middleware took), a call of the server's awaits the client.
func (f *inflight) done(pc *pendingCalls, msg jsonrpc.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		extra, ok := f.byID[m.ID]
		if !ok {
			return
		}
		delete(f.byID, m.ID)
		if extra != nil {
			pc.m.Delete(extra)
		}
	case *jsonrpc.Request:
		if !m.ID.IsValid() {
			return
		}
		if f.outgoing == nil {
			f.outgoing = make(map[jsonrpc.ID]bool)
		}
		f.outgoing[m.ID] = true
	}
	f.changed.Signal()
}

// replied records a response the client sent to one of the server's calls.
func (f *inflight) replied(id jsonrpc.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.outgoing, id)
	f.changed.Signal()
}

// begin counts one of the front's answers until end, called once it is written.
func (f *inflight) begin() (end func()) {
	f.mu.Lock()
	f.answering++
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.answering--
		f.changed.Signal()
		f.mu.Unlock()
	}
}

// wait returns once every request passed on has its response written and every answer
// of the front is written, or as soon as a call of the server's awaits the client
// (whose input has ended, so that call can never be answered and its request may
// never finish), or after limit (a handler that never returns: the SDK then cancels
// it), or when ctx is done or stop is closed.
func (f *inflight) wait(ctx context.Context, stop <-chan struct{}, limit time.Duration) {
	rpcwire.Drain(ctx, &f.mu, &f.changed, func() bool {
		return len(f.byID) == 0 && f.answering == 0 || len(f.outgoing) > 0
	}, stop, limit)
}

// close drops every decision of the connection.
func (f *inflight) close(pc *pendingCalls) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, extra := range f.byID {
		delete(f.byID, id)
		if extra != nil {
			pc.m.Delete(extra)
		}
	}
	f.changed.Signal()
}
