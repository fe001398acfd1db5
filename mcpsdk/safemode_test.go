package mcpsdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
	"github.com/deferredtools/deferredtools/safemode"
)

// safeFixture is the test server with the adapter over a Discoverer in safe mode
// (weather_station_0 exempt), the principal from pf.
func safeFixture(t testing.TB, pf mcpsdk.PrincipalFunc) *fixture {
	t.Helper()
	cat, err := discovery.NewCatalog(testTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mem := grants.NewMemory()
	for _, r := range testRows() {
		if _, err := mem.Put(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{cat: cat, reads: &countingReader{Reader: mem}}
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: f.reads,
		SafeMode: safemode.Options{Enabled: true, Exempt: []string{"weather_station_0"}}})
	f.a = mcpsdk.New(f.d, &mcpsdk.Options{Principal: pf, DiscoveryTool: "search_tools"})
	f.server = newSDKServerOpts(cat, nil, &f.handled)
	f.a.Install(f.server)
	return f
}

// stdioClient connects a go-sdk client to s, wrapped by a, over newline-delimited JSON on a
// pipe, through the adapter's Transport: the stdio path.
func stdioClient(t testing.TB, s *mcp.Server, a *mcpsdk.Adapter) *mcp.ClientSession {
	t.Helper()
	c1, c2 := net.Pipe()
	ss, err := s.Connect(context.Background(), a.Transport(&mcp.IOTransport{Reader: c1, Writer: c1}), nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	t.Cleanup(func() { ss.Close(); c2.Close() })
	return connectClient(t, &mcp.IOTransport{Reader: c2, Writer: c2})
}

// httpClient serves f over streamable HTTP behind bearer authentication and connects a
// go-sdk client as token's principal.
func httpClient(t testing.TB, f *fixture, token string) *mcp.ClientSession {
	t.Helper()
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	return connectClient(t, &mcp.StreamableClientTransport{
		Endpoint:   srv.URL,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}},
	})
}

// Safe mode through the adapter, over stdio and streamable HTTP with the go-sdk
// client: a mutating call without a token never reaches the handler and answers a
// preview result (isError, the token in _meta only, never in the text, no argument
// value); the same call with the token in params._meta runs the handler once; a token
// for other arguments, for another principal, after a grant change, or junk is refused
// with the JSON-RPC error invalid_confirmation (-32602, status 400) carrying neither
// token nor arguments, and the handler does not run. A read-only tool and an exempt
// tool run at once.
func TestSafeModeOverTransports(t *testing.T) {
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			ctx := context.Background()
			var f *fixture
			var as, bs *mcp.ClientSession // alice's and bob's sessions
			if tr == "stdio" {
				f = safeFixture(t, mcpsdk.StaticPrincipal(alice))
				as = stdioClient(t, f.server, f.a)
				ab := mcpsdk.New(f.d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(bob)})
				sb := newSDKServerOpts(f.cat, nil, &f.handled)
				ab.Install(sb)
				bs = stdioClient(t, sb, ab)
			} else {
				f = safeFixture(t, mcpsdk.TokenInfoPrincipal)
				as = httpClient(t, f, "tok-alice")
				bs = httpClient(t, f, "tok-bob")
			}
			args := map[string]any{"city": "Oslo-secret", "days": 3}
			res, err := as.CallTool(ctx, &mcp.CallToolParams{Name: "weather_forecast", Arguments: args})
			if err != nil {
				t.Fatalf("held call: %v", err)
			}
			tok, _ := res.Meta[safemode.MetaKey].(string)
			text := ""
			if len(res.Content) == 1 {
				text = res.Content[0].(*mcp.TextContent).Text
			}
			if !res.IsError || tok == "" || !strings.HasPrefix(text, "Not executed") ||
				!strings.Contains(text, "weather_forecast: Forecast the weather of a city for the next days.") ||
				!strings.Contains(text, "Arguments given: city, days") ||
				strings.Contains(text, tok) || strings.Contains(text, "secret") || res.StructuredContent != nil {
				t.Fatalf("held call result = %+v (text %q), want the preview: isError, token in _meta only, no values", res, text)
			}
			if n := f.calls("weather_forecast"); n != 0 {
				t.Fatalf("handler ran %d times for a held call, want 0", n)
			}

			refused := func(what string, s *mcp.ClientSession, params *mcp.CallToolParams) {
				t.Helper()
				_, err := s.CallTool(ctx, params)
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != -32602 || je.Message != "invalid_confirmation" ||
					string(je.Data) != `{"error":"invalid_confirmation","status":400}` {
					t.Errorf("%s: %v, want invalid_confirmation (-32602, 400)", what, err)
					return
				}
				if strings.Contains(err.Error(), tok) || strings.Contains(err.Error(), "secret") {
					t.Errorf("%s: error %q carries the token or an argument", what, err.Error())
				}
			}
			withToken := func(tok string, args map[string]any) *mcp.CallToolParams {
				return &mcp.CallToolParams{Name: "weather_forecast", Arguments: args, Meta: mcp.Meta{safemode.MetaKey: tok}}
			}
			refused("other arguments", as, withToken(tok, map[string]any{"city": "Bergen-secret", "days": 3}))
			refused("another principal", bs, withToken(tok, args))
			refused("junk token", as, withToken("secret-junk", args))
			if n := f.calls("weather_forecast"); n != 0 {
				t.Fatalf("handler ran %d times for refused confirmations, want 0", n)
			}

			res, err = as.CallTool(ctx, withToken(tok, args))
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "ran weather_forecast" {
				t.Fatalf("confirmed call = %+v, %v, want the handler's result", res, err)
			}
			if n := f.calls("weather_forecast"); n != 1 {
				t.Errorf("handler ran %d times after confirmation, want 1", n)
			}

			// A grant change (a new row of alice's) refuses the token it made stale.
			res, _ = as.CallTool(ctx, &mcp.CallToolParams{Name: "weather_forecast", Arguments: args})
			tok2, _ := res.Meta[safemode.MetaKey].(string)
			if _, err := f.reads.Reader.(*grants.Memory).Put(ctx, grants.Row{Principal: "alice", Tool: "secrets_read", Effect: grants.Deny, Revision: 1}); err != nil {
				t.Fatal(err)
			}
			tok = tok2
			refused("after a grant change", as, withToken(tok2, args))

			for _, name := range []string{"weather_get", "weather_station_0"} {
				res, err := as.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"city": "Oslo"}})
				if err != nil || res.IsError || f.calls(name) != 1 {
					t.Errorf("%s (read-only or exempt): %+v, %v, handler ran %d times, want once", name, res, err, f.calls(name))
				}
			}
			if n := f.calls("weather_forecast"); n != 1 {
				t.Errorf("handler ran %d times in all, want 1", n)
			}
		})
	}
}

// The preview result and the invalid_confirmation error as bytes on the stdio wire:
// the token only in result._meta, the error content-free.
func TestSafeModeWire(t *testing.T) {
	f := safeFixture(t, mcpsdk.StaticPrincipal(alice))
	c := f.rawConnect(t)
	resp := c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_model","arguments":{"model":"abc"}}}`, `1`)
	var env struct {
		Result struct {
			Meta    map[string]json.RawMessage `json:"_meta"`
			IsError bool                       `json:"isError"`
			Content []struct{ Type, Text string }
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &env); err != nil {
		t.Fatalf("%s: %v", resp, err)
	}
	var tok string
	json.Unmarshal(env.Result.Meta[safemode.MetaKey], &tok)
	if tok == "" || !env.Result.IsError || len(env.Result.Content) != 1 || env.Result.Content[0].Type != "text" ||
		strings.Contains(env.Result.Content[0].Text, tok) || strings.Contains(env.Result.Content[0].Text, "abc") {
		t.Fatalf("preview on the wire = %s", resp)
	}
	resp = c.call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy_model","arguments":{"model":"xyz"},"_meta":{"deferredtools/confirmation":`+string(env.Result.Meta[safemode.MetaKey])+`}}}`, `2`)
	e := decodeError(t, resp)
	if e == nil || e.Code != -32602 || e.Message != "invalid_confirmation" || e.Data.Status != 400 ||
		strings.Contains(string(resp), tok) || strings.Contains(string(resp), "xyz") {
		t.Fatalf("token for other arguments on the wire = %s", resp)
	}
	resp = c.call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy_model","arguments":{"model":"abc"},"_meta":{"deferredtools/confirmation":`+string(env.Result.Meta[safemode.MetaKey])+`}}}`, `3`)
	if !strings.Contains(string(resp), `"ran deploy_model"`) || f.calls("deploy_model") != 1 {
		t.Fatalf("confirmed call on the wire = %s, handler ran %d times", resp, f.calls("deploy_model"))
	}
}
