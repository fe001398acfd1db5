package mcpsdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

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
