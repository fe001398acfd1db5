package mcpsdk

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
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
// of the front: the SDK decodes their bytes itself.
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
	return &conn{Connection: c, a: t.a, sem: make(chan struct{}, maxInFlight)}, nil
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
	a   *Adapter
	sem chan struct{}
}

// Read returns the next message the front passes on; discover requests and refused
// calls are answered on the way.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	method := c.a.d.Method()
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || (req.Method != method && req.Method != "tools/call") {
			return msg, nil
		}
		if req.Method == "tools/call" {
			// The SDK decoded the envelope; the front reads the raw params.
			if !req.ID.IsValid() {
				return msg, nil
			}
			env := envelope{id: encodeID(req.ID), method: req.Method, hasMethod: true, params: req.Params}
			resp, refused := c.a.precall(ctx, nil, env, nil)
			if !refused {
				return msg, nil
			}
			c.write(ctx, req.ID, resp)
			continue
		}
		raw, err := jsonrpc.EncodeMessage(req)
		if err != nil {
			return msg, nil
		}
		resp, act, _, env := c.a.screen(ctx, nil, raw, nil)
		switch act {
		case passOn:
			return msg, nil
		case answered, refused:
			c.write(ctx, req.ID, resp)
		case discover:
			answer := func() {
				resp, _ := c.a.answerDiscover(ctx, nil, env, raw, nil)
				c.write(ctx, req.ID, resp)
			}
			goBounded(c.sem, answer)
		}
	}
}

// write sends a response the front built as bytes; nothing for a notification.
func (c *conn) write(ctx context.Context, id jsonrpc.ID, resp []byte) {
	if len(resp) == 0 || !id.IsValid() {
		return
	}
	_ = c.Connection.Write(ctx, responseMessage(resp, id))
}

// Write cleans a response's error (SPEC ERR-2) and writes the message.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
		clean := *r
		clean.Error = cleanError(r.Error)
		msg = &clean
	}
	return c.Connection.Write(ctx, msg)
}

// responseMessage turns a response the front built into the SDK message that encodes
// back to the same bytes: the result is kept as raw bytes, not re-encoded.
func responseMessage(resp []byte, id jsonrpc.ID) *jsonrpc.Response {
	m, err := jsonrpc.DecodeMessage(resp)
	r, ok := m.(*jsonrpc.Response)
	if err != nil || !ok {
		return &jsonrpc.Response{ID: id, Error: wireError(discovery.CodeCatalogUnavailable)}
	}
	r.ID = id
	var je *jsonrpc.Error
	if r.Error != nil && !errors.As(r.Error, &je) {
		r.Error = wireError(discovery.CodeCatalogUnavailable)
	}
	return r
}

// encodeID returns the id as the SDK writes it on the wire.
func encodeID(id jsonrpc.ID) []byte {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.AppendInt(nil, v, 10)
	case string:
		b, err := json.Marshal(v)
		if err == nil {
			return b
		}
	}
	return []byte("null")
}

// goBounded runs f on its own goroutine while sem has room, and in the caller's
// otherwise, so a connection answers at most cap(sem) discover requests at once and
// reads nothing further while it is full (backpressure).
func goBounded(sem chan struct{}, f func()) {
	select {
	case sem <- struct{}{}:
		go func() {
			defer func() { <-sem }()
			f()
		}()
	default:
		f()
	}
}
