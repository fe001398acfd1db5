package mcpsdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
)

// msgTransport is a transport of decoded messages: its one connection reads in, then
// io.EOF, and sends what is written to out.
type msgTransport struct {
	in  []jsonrpc.Message
	out chan jsonrpc.Message
}

func (t *msgTransport) Connect(context.Context) (mcp.Connection, error) { return &msgConn{t: t}, nil }

type msgConn struct{ t *msgTransport }

func (c *msgConn) Read(context.Context) (jsonrpc.Message, error) {
	if len(c.t.in) == 0 {
		return nil, io.EOF
	}
	m := c.t.in[0]
	c.t.in = c.t.in[1:]
	return m, nil
}

func (c *msgConn) Write(_ context.Context, m jsonrpc.Message) error { c.t.out <- m; return nil }
func (c *msgConn) Close() error                                     { return nil }
func (c *msgConn) SessionID() string                                { return "" }

// SPEC PAGE-1: on a transport whose messages the SDK decodes (not stdio, not HTTP), the
// front answers discover from the decoded request with the page sized for the real id:
// the response the SDK encodes stays within 65,536 bytes with ids up to 40,000 bytes,
// and the page is full (byte-bounded, with a next cursor).
func TestTransportDiscoverSizedForID(t *testing.T) {
	var tools []json.RawMessage
	for i := range 6 {
		desc := strings.Repeat(fmt.Sprintf("bulk weather data %d <&> ", i), 700) // ~16 KiB each
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":"weather_station_%d","description":%q,"inputSchema":{"type":"object"}}`, i, desc)))
	}
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice, tools: tools})
	for _, n := range []int{1, 200, 20000, 40000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			id, err := jsonrpc.MakeID(strings.Repeat("i", n))
			if err != nil {
				t.Fatal(err)
			}
			tr := &msgTransport{
				in:  []jsonrpc.Message{&jsonrpc.Request{ID: id, Method: discovery.DefaultMethod, Params: json.RawMessage(`{"query":"weather data"}`)}},
				out: make(chan jsonrpc.Message, 1),
			}
			c, err := f.a.Transport(tr).Connect(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if m, err := c.Read(t.Context()); err != io.EOF {
				t.Fatalf("Read = %v, %v; want the discover request answered, then io.EOF", m, err)
			}
			resp, err := jsonrpc.EncodeMessage(<-tr.out)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				ID     string `json:"id"`
				Result struct {
					Tools      []json.RawMessage `json:"tools"`
					NextCursor string            `json:"nextCursor"`
				} `json:"result"`
			}
			if err := json.Unmarshal(resp, &r); err != nil || r.ID != id.Raw() || len(r.Result.Tools) == 0 {
				t.Fatalf("response %.300s: want a page for the request's id", resp)
			}
			if len(resp) > discovery.MaxResponseBytes || r.Result.NextCursor == "" {
				t.Errorf("response: %d bytes, next cursor %q; want at most %d bytes and a next cursor", len(resp), r.Result.NextCursor, discovery.MaxResponseBytes)
			}
		})
	}
}

// On a transport whose messages the SDK decodes, too, every request read before the
// input ends is answered before the session ends (discover answers included), and a
// request whose id is in flight is refused with invalid_request rather than dropped
// by the SDK without an answer.
func TestTransportEOFAndDuplicateID(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob})
	started, release := blockingTool(t, f, false)
	req := func(id any, method, params string) *jsonrpc.Request {
		r := &jsonrpc.Request{Method: method}
		if id != nil {
			jid, err := jsonrpc.MakeID(id)
			if err != nil {
				t.Fatal(err)
			}
			r.ID = jid
		}
		if params != "" {
			r.Params = json.RawMessage(params)
		}
		return r
	}
	first := []jsonrpc.Message{
		req("init", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`),
		req(nil, "notifications/initialized", `{}`),
		req(float64(7), "tools/call", `{"name":"weather_get","arguments":{"city":"Oslo"}}`),
	}
	// Read once the call is running: the duplicate, then requests the end of input
	// meets in flight.
	rest := []jsonrpc.Message{req(float64(7), "ping", `{}`)}
	for i := range 10 {
		rest = append(rest, req(fmt.Sprintf("d%d", i), discovery.DefaultMethod, `{"query":"weather"}`),
			req(fmt.Sprintf("l%d", i), "tools/list", `{}`))
	}
	const answers = 23 // init, 7 twice, d0-d9, l0-l9
	tr := &msgTransport{in: first, out: make(chan jsonrpc.Message, 64)}
	ss, err := f.server.Connect(t.Context(), f.a.Transport(&gatedTransport{tr, started, rest}), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	timeout := time.After(20 * time.Second)
	for len(got) < answers {
		select {
		case m := <-tr.out:
			r, ok := m.(*jsonrpc.Response)
			if !ok {
				continue
			}
			key := fmt.Sprint(r.ID.Raw())
			if r.Error != nil {
				b, _ := jsonrpc.EncodeMessage(r)
				key += " error " + string(b)
			}
			got[key] = "seen"
			if strings.Contains(key, `"message":"invalid_request"`) {
				close(release) // the duplicate was refused: let the call finish
			}
		case <-timeout:
			t.Fatalf("after 20 s, answers %v; want %d", got, answers)
		}
	}
	ss.Wait()
	for _, want := range []string{"init", "7", `7 error {"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid_request","data":{"error":"invalid_request","status":400}}}`, "d9", "l9"} {
		if got[want] == "" {
			t.Errorf("no answer %s among %v", want, got)
		}
	}
}

// gatedTransport hands its connection the rest of the input only once the blocking
// tool has started, so that the duplicate id meets a request in flight.
type gatedTransport struct {
	t       *msgTransport
	started chan struct{}
	rest    []jsonrpc.Message
}

func (g *gatedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	return &gatedConn{msgConn{g.t}, g}, nil
}

type gatedConn struct {
	msgConn
	g *gatedTransport
}

func (c *gatedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if len(c.t.in) == 0 && c.g.rest != nil {
		<-c.g.started
		c.t.in, c.g.rest = c.g.rest, nil
	}
	return c.msgConn.Read(ctx)
}
