package mcpsdk_test

import (
	"context"
	"net"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// SPEC CALL-1, GRANT-6: a tools/call reads grants once on every transport: the front's
// name decision and the middleware's full decision (pin, arguments, CheckCall) share one
// read. Every call reads again, so a revocation applies to the very next call; a
// refused call reads once; the middleware alone, without the front, reads once.
func TestToolsCallReadsGrantsOnce(t *testing.T) {
	ctx := context.Background()
	// A new params value per call: the client writes its session's protocol version
	// into the _meta of the params it sends.
	granted := func() *mcp.CallToolParams {
		return &mcp.CallToolParams{Name: "weather_get", Arguments: map[string]any{"city": "Oslo"}}
	}
	for _, tc := range []struct {
		name    string
		connect func(t *testing.T, f *fixture) *mcp.ClientSession
	}{
		{"in-memory", func(t *testing.T, f *fixture) *mcp.ClientSession { return f.connect(t) }},
		{"io", func(t *testing.T, f *fixture) *mcp.ClientSession {
			c1, c2 := net.Pipe()
			ss, err := f.server.Connect(ctx, f.a.Transport(&mcp.IOTransport{Reader: c1, Writer: c1}), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			return connectClient(t, &mcp.IOTransport{Reader: c2, Writer: c2})
		}},
		{"http", func(t *testing.T, f *fixture) *mcp.ClientSession { return f.overHTTP(t, "tok-alice") }},
		{"middleware only", func(t *testing.T, f *fixture) *mcp.ClientSession {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := f.server.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			return connectClient(t, ct)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := grants.NewMemory()
			for _, r := range testRows() {
				if _, err := store.Put(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			o := fixtureOptions{enabled: true, principal: alice, reader: store}
			if tc.name == "http" {
				o.principal2 = mcpsdk.TokenInfoPrincipal
			}
			f := newFixture(t, o)
			cs := tc.connect(t, f)
			reads := func(what string, call func() error, wantErr bool) {
				t.Helper()
				before := f.reads.n.Load()
				err := call()
				if (err != nil) != wantErr {
					t.Fatalf("%s: error %v, want error %v", what, err, wantErr)
				}
				if n := f.reads.n.Load() - before; n != 1 {
					t.Errorf("%s read grants %d times, want once", what, n)
				}
			}
			callTool := func(p *mcp.CallToolParams) func() error {
				return func() error {
					res, err := cs.CallTool(ctx, p)
					if err == nil && res.IsError {
						t.Fatalf("CallTool(%s) = a tool error", p.Name)
					}
					return err
				}
			}
			for range 3 {
				reads("granted call", callTool(granted()), false)
			}
			if n := f.calls("weather_get"); n != 3 {
				t.Errorf("the tool ran %d times, want 3", n)
			}
			reads("denied call", callTool(&mcp.CallToolParams{Name: "secrets_read", Arguments: map[string]any{"key": "k"}}), true)
			if _, err := store.Put(ctx, grants.Row{Principal: alice.ID, Tool: "weather_get", Effect: grants.Deny, Revision: 2}); err != nil {
				t.Fatal(err)
			}
			reads("call after revocation", callTool(granted()), true)
			if n := f.calls("weather_get"); n != 3 {
				t.Errorf("the tool ran %d times after its revocation, want 3", n)
			}
		})
	}
}
