package mcpsdk

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
)

// maxInFlight bounds the discover requests one connection answers concurrently; past
// it, the connection answers the next one before reading further (backpressure).
const maxInFlight = 16

// Transport returns t with the discover method answered on every connection it
// makes: each request for the Discoverer's method is answered with the bytes of
// Discoverer.HandleJSONRPC and never reaches the SDK; every other message passes
// through untouched. The principal is the PrincipalFunc's, called with a nil extra.
// While the switch is off Transport returns t itself (SPEC FLAG-2).
//
// Use it for stdio (mcp.StdioTransport), io and in-memory transports; for streamable
// HTTP use Handler, because the SDK makes those connections itself.
func (a *Adapter) Transport(t mcp.Transport) mcp.Transport {
	if !a.d.Enabled() {
		return t
	}
	w := &transport{a: a, inner: t}
	if pvs, ok := t.(mcp.ProtocolVersionSupporter); ok {
		return &versionedTransport{w, pvs}
	}
	return w
}

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

// conn answers the discover method and passes everything else to the SDK.
type conn struct {
	mcp.Connection
	a   *Adapter
	sem chan struct{}
}

// Read returns the next message that is not a discover request; discover requests
// are answered on the way.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	method := c.a.d.Method()
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.Method != method {
			return msg, nil
		}
		select {
		case c.sem <- struct{}{}:
			go func() {
				defer func() { <-c.sem }()
				c.answer(ctx, req)
			}()
		default:
			c.answer(ctx, req)
		}
	}
}

// answer answers one discover request or notification.
func (c *conn) answer(ctx context.Context, req *jsonrpc.Request) {
	id := encodeID(req.ID)
	p, err := c.a.principal(ctx, nil)
	var resp []byte
	if err != nil {
		if id == nil {
			return // a notification is answered by nothing
		}
		resp = discovery.AppendJSONRPCError(nil, id, err)
	} else {
		var handled bool
		resp, handled = c.a.d.HandleJSONRPC(ctx, p, requestBytes(id, req))
		if !handled && id != nil {
			resp = discovery.AppendJSONRPCError(nil, id, discovery.ErrMethodNotFound)
		}
	}
	if resp == nil {
		return
	}
	_ = c.Connection.Write(ctx, responseMessage(resp, id, req.ID))
}

// encodeID returns the id as the SDK encodes it on the wire (encoding/json without
// HTML escaping), so that HandleJSONRPC sizes the page for the id the SDK will write;
// nil for a notification.
func encodeID(id jsonrpc.ID) []byte {
	switch v := id.Raw().(type) {
	case nil:
		return nil
	case int64:
		return strconv.AppendInt(nil, v, 10)
	default:
		return encodeJSON(v)
	}
}

func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return []byte("null")
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// requestBytes rebuilds the JSON-RPC request for HandleJSONRPC; params are the bytes
// the client sent.
func requestBytes(id []byte, req *jsonrpc.Request) []byte {
	b := make([]byte, 0, 64+len(id)+len(req.Method)+len(req.Params))
	b = append(b, `{"jsonrpc":"2.0"`...)
	if id != nil {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	b = append(b, `,"method":`...)
	b = append(b, encodeJSON(req.Method)...)
	if req.Params != nil {
		b = append(b, `,"params":`...)
		b = append(b, req.Params...)
	}
	return append(b, '}')
}

// responseMessage turns HandleJSONRPC's response into the SDK message that encodes
// back to the same bytes: the result is kept as raw bytes, not re-encoded.
func responseMessage(resp, id []byte, rid jsonrpc.ID) *jsonrpc.Response {
	prefix := len(`{"jsonrpc":"2.0","id":`) + len(id) + len(`,"result":`)
	if len(resp) > prefix && bytes.HasPrefix(resp, []byte(`{"jsonrpc":"2.0","id":`)) &&
		bytes.HasPrefix(resp[prefix-len(`,"result":`):], []byte(`,"result":`)) && resp[len(resp)-1] == '}' {
		return &jsonrpc.Response{ID: rid, Result: json.RawMessage(resp[prefix : len(resp)-1])}
	}
	var env struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if json.Unmarshal(resp, &env) != nil || env.Error == nil {
		return &jsonrpc.Response{ID: rid, Error: wireError(discovery.ErrCatalogUnavailable)}
	}
	return &jsonrpc.Response{ID: rid, Error: env.Error}
}
