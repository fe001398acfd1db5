package mcpsdk

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// maxInFlight bounds the discover requests one connection answers concurrently; past
// it, the connection answers the next one before reading further (backpressure).
const maxInFlight = 16

// Transport returns t with the adapter's front on every connection it makes (see the
// package doc): each discover request is answered with the bytes of
// Discoverer.AppendJSONRPC and never reaches the SDK; a tools/call the principal may
// not call is refused on its tool name before the SDK decodes the arguments; every
// other message passes through; and an error response of the SDK that is not the
// adapter's is rewritten content-free. The principal is the PrincipalFunc's, called
// with a nil extra. While the switch is off Transport returns t itself (SPEC FLAG-2).
//
// For an *mcp.StdioTransport or *mcp.IOTransport, the returned transport reads the
// newline-delimited messages itself, through the front, before the SDK's decoder sees
// them: a malformed message (not JSON, truncated, invalid UTF-8, nested deeper than
// 1,000, not a JSON-RPC message, a batch) or a line longer than the transport's
// MaxLineLength (mcp.DefaultMaxLineLength, 16 MiB, when zero or negative; skipped to
// its newline without being kept) is answered with one content-free JSON-RPC error and
// the session goes on. Other transports (in-memory, custom) get the message-level part
// of the front: the SDK decodes their bytes itself, and a discover request is answered
// from the decoded request with Discoverer.DiscoverFramed, nothing encoded again.
//
// For streamable HTTP use Handler, because the SDK makes those connections itself.
func (a *Adapter) Transport(t mcp.Transport) mcp.Transport {
	if !a.d.Enabled() {
		return t
	}
	switch t := t.(type) {
	case *mcp.StdioTransport:
		r, w := stdio()
		return &ioTransport{a: a, r: r, w: w, maxLine: t.MaxLineLength}
	case *mcp.IOTransport:
		return &ioTransport{a: a, r: t.Reader, w: t.Writer, maxLine: t.MaxLineLength}
	}
	w := &transport{a: a, inner: t}
	if pvs, ok := t.(mcp.ProtocolVersionSupporter); ok {
		return &versionedTransport{w, pvs}
	}
	return w
}

// transport puts the message-level front on connections of any other transport.
type transport struct {
	a     *Adapter
	inner mcp.Transport
}

func (t *transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Connection: c, a: t.a, sem: make(chan struct{}, maxInFlight), closed: make(chan struct{})}, nil
}

// versionedTransport keeps the inner transport's mcp.ProtocolVersionSupporter.
type versionedTransport struct {
	*transport
	pvs mcp.ProtocolVersionSupporter
}

func (t *versionedTransport) SupportsProtocolVersion(v string) bool {
	return t.pvs.SupportsProtocolVersion(v)
}

// conn runs the front on the discover and tools/call requests of a connection whose
// bytes the SDK decodes itself, and cleans the errors it writes.
type conn struct {
	mcp.Connection
	a         *Adapter
	sem       chan struct{}
	calls     inflight // what the connection owes its client, the front's decisions
	closed    chan struct{}
	closeOnce sync.Once
}

// Read returns the next message the front passes on; discover requests and refused
// calls are answered on the way, from the decoded request: nothing is encoded again.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	method := c.a.d.Method()
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			c.calls.Wait(ctx, c.closed, c.a.opts.DrainLimit) // every request read gets its answer first
			return nil, err
		}
		if r, ok := msg.(*jsonrpc.Response); ok {
			c.calls.Replied(r.ID)
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			return msg, nil
		}
		if req.Method != method {
			var call callFunc
			if req.Method == "tools/call" && req.ID.IsValid() {
				// The SDK decoded the envelope; the front reads the raw params.
				var tool bool
				call, tool, err = c.a.precall(ctx, nil, req.Params)
				if err == nil && tool && len(encodeID(req.ID)) > rpcwire.MaxToolIDBytes {
					err = discovery.CodeInvalidRequest // the SDK writes the id back as it is
				}
				if err != nil {
					c.writeError(ctx, req.ID, err)
					continue
				}
			}
			if !c.calls.attach(&c.a.pending, req, call) {
				// Its id is in flight: the SDK would drop it without an answer.
				c.writeError(ctx, req.ID, discovery.CodeInvalidRequest)
				continue
			}
			return msg, nil
		}
		if fault, ok := paramsFault(req.Params); !ok {
			return msg, nil
		} else if fault != "" {
			c.writeError(ctx, req.ID, fault)
			continue
		}
		if !req.ID.IsValid() {
			continue // a discover notification: discovery answers nothing
		}
		end := c.calls.Begin()
		rpcwire.GoBounded(c.sem, func() {
			defer end()
			_ = c.Connection.Write(ctx, c.a.discoverResponse(ctx, req))
		})
	}
}

// paramsFault is the refusal the byte front gives a discover request for its params:
// parse_error for text that is not UTF-8, invalid_request for nesting deeper than the
// SDK takes. ok is false for params that are not JSON, which the SDK answers.
func paramsFault(params []byte) (fault discovery.Code, ok bool) {
	if len(params) == 0 {
		return "", true
	}
	depth, ok := jsonlex.Valid(params)
	switch {
	case !ok:
		return "", false
	case !utf8.Valid(params):
		return discovery.CodeParseError, true
	case depth >= maxDepth: // the message nests one deeper
		return discovery.CodeInvalidRequest, true
	}
	return "", true
}

// discoverResponse answers a discover request the SDK decoded with
// Discoverer.DiscoverFramed, the page sized for the id as the SDK writes it (SPEC
// PAGE-1) and kept as raw bytes.
func (a *Adapter) discoverResponse(ctx context.Context, req *jsonrpc.Request) *jsonrpc.Response {
	p, err := a.principal(ctx, nil)
	var res *discovery.Result
	if err == nil {
		res, err = a.d.DiscoverFramed(ctx, p, req.Params, len(encodeID(req.ID)))
	}
	if err != nil {
		return &jsonrpc.Response{ID: req.ID, Error: wireError(rpcwire.CodeOf(err, discovery.CodeInternal))}
	}
	return &jsonrpc.Response{ID: req.ID, Result: res.AppendJSON(nil)}
}

// writeError answers a request with the content-free error of err's code; nothing
// for a notification.
func (c *conn) writeError(ctx context.Context, id jsonrpc.ID, err error) {
	if id.IsValid() {
		_ = c.Connection.Write(ctx, &jsonrpc.Response{ID: id, Error: wireError(rpcwire.CodeOf(err, discovery.CodeInternal))})
	}
}

// Write cleans a response's error (SPEC ERR-2) and writes the message.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.calls.done(&c.a.pending, msg)
	msg = cleanMessage(msg)
	return c.Connection.Write(ctx, msg)
}

// Close drops the front's decisions no call took and closes the connection.
func (c *conn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	c.calls.close(&c.a.pending)
	return c.Connection.Close()
}

// encodeID returns the id as the SDK writes it on the wire: encoding/json without
// HTML escaping (<, > and & stay as they are; U+2028 and U+2029 are escaped).
func encodeID(id jsonrpc.ID) []byte {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.AppendInt(nil, v, 10)
	case string:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) == nil {
			return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		}
	}
	return []byte("null")
}
