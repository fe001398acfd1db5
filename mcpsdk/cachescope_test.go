package mcpsdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// hostTTL is the ttlMs the test hosts set with ServerOptions.SetCacheable.
const hostTTL = 45_000

// setTTL is a host's SetCacheable: it sets ttlMs and, when scope is not empty, the
// cacheScope.
func setTTL(ttl int, scope string) func(context.Context, mcp.Request, *mcp.Cacheable) {
	return func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
		c.TTLMs = ttl
		if scope != "" {
			c.CacheScope = scope
		}
	}
}

// overHTTP connects a client to f's server over streamable HTTP as token's
// principal.
func (f *fixture) overHTTP(t *testing.T, token string) *mcp.ClientSession {
	t.Helper()
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	return connectClient(t, &mcp.StreamableClientTransport{
		Endpoint:   srv.URL,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}},
	})
}

// SPEC VIS-3 (hardening: a per-principal answer is never marked shareable): while the
// switch is on, every page of the narrowed tools/list says cacheScope "private" and
// keeps the ttlMs the host's SetCacheable chose, whatever scope the host chose, as the
// go-sdk client sees it in process and over HTTP.
func TestListToolsCacheScopePrivate(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		set      func(context.Context, mcp.Request, *mcp.Cacheable)
		wantTTL  int
		pageSize int
	}{
		{"sdk default", nil, 0, 0},
		{"host ttl", setTTL(hostTTL, ""), hostTTL, 0},
		{"host ttl, pages", setTTL(hostTTL, ""), hostTTL, 3},
		{"host says public", setTTL(hostTTL, "public"), hostTTL, 0},
		{"host says private", setTTL(7, "private"), 7, 0},
	} {
		t.Run(tc.name+"/http", func(t *testing.T) {
			f, err := buildFixture(fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal,
				tool: "search_tools", pageSize: tc.pageSize, setCacheable: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			checkListCache(t, ctx, f.overHTTP(t, "tok-bob"), tc.wantTTL, tc.pageSize > 0)
		})
		t.Run(tc.name+"/in-memory", func(t *testing.T) {
			f := newFixture(t, fixtureOptions{enabled: true, principal: alice,
				tool: "search_tools", pageSize: tc.pageSize, setCacheable: tc.set})
			checkListCache(t, ctx, f.connect(t), tc.wantTTL, tc.pageSize > 0)
		})
	}
}

func checkListCache(t *testing.T, ctx context.Context, cs *mcp.ClientSession, wantTTL int, paged bool) {
	t.Helper()
	cursor, pages := "", 0
	for {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("ListTools: %v", err)
		}
		pages++
		if res.CacheScope != "private" || res.TTLMs != wantTTL {
			t.Errorf("tools/list page %d: cacheScope %q, ttlMs %d; want \"private\", %d (the host's)", pages, res.CacheScope, res.TTLMs, wantTTL)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if paged && pages < 2 {
		t.Errorf("tools/list came in %d page(s), want several", pages)
	}
}

// SPEC VIS-3: on the wire, the narrowed tools/list result carries the host's ttlMs and
// cacheScope "private", once each, and nothing says "public".
func TestListToolsCacheScopeWire(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob, setCacheable: setTTL(hostTTL, "")})
	resp := f.rawConnect(t).call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "2")
	var env struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(resp, &env); err != nil {
		t.Fatal(err)
	}
	if got := string(env.Result["cacheScope"]); got != `"private"` {
		t.Errorf("tools/list cacheScope = %s, want \"private\"", got)
	}
	if got := string(env.Result["ttlMs"]); got != fmt.Sprint(hostTTL) {
		t.Errorf("tools/list ttlMs = %s, want the host's %d", got, hostTTL)
	}
	if bytes.Count(resp, []byte(`"cacheScope"`)) != 1 || bytes.Contains(resp, []byte(`"public"`)) {
		t.Errorf("tools/list response %s: want one cacheScope, never public", resp)
	}
}

// SPEC DISC-3 (hardening): a discover result says "cacheScope":"private" and
// "ttlMs":0, in process and over HTTP, whatever the host's SetCacheable says; the
// discovery tool's structured page carries neither (a tools/call result is no cacheable
// result).
func TestDiscoverCacheScopePrivate(t *testing.T) {
	ctx := context.Background()
	f, err := buildFixture(fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal,
		tool: "search_tools", setCacheable: setTTL(hostTTL, "public")})
	if err != nil {
		t.Fatal(err)
	}
	fm := newFixture(t, fixtureOptions{enabled: true, principal: alice, tool: "search_tools", setCacheable: setTTL(hostTTL, "public")})
	for transport, cs := range map[string]*mcp.ClientSession{"in-memory": fm.connect(t), "http": f.overHTTP(t, "tok-alice")} {
		t.Run(transport, func(t *testing.T) {
			p := &discoverParams{Query: "weather", Limit: 3}
			for pages := 1; ; pages++ {
				res, err := mcp.CallCustomMethod[*discoverParams, *discoverResult](ctx, cs, discovery.DefaultMethod, p)
				if err != nil {
					t.Fatalf("discover: %v", err)
				}
				if res.CacheScope != "private" || res.TTLMs == nil || *res.TTLMs != 0 {
					t.Errorf("discover page %d: cacheScope %q, ttlMs %v; want \"private\", 0", pages, res.CacheScope, res.TTLMs)
				}
				if res.NextCursor == "" {
					if pages < 2 {
						t.Errorf("discover came in %d page(s), want several", pages)
					}
					break
				}
				p.Cursor = res.NextCursor
			}
			tr, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "weather"}})
			if err != nil || tr.IsError {
				t.Fatalf("discovery tool: %+v, %v", tr, err)
			}
			sc, _ := json.Marshal(tr.StructuredContent)
			var page map[string]json.RawMessage
			if err := json.Unmarshal(sc, &page); err != nil || page["tools"] == nil {
				t.Fatalf("discovery tool structured content %s: %v", sc, err)
			}
			if _, ok := page["cacheScope"]; ok {
				t.Errorf("discovery tool page carries cacheScope: %.200s", sc)
			}
			if _, ok := page["ttlMs"]; ok {
				t.Errorf("discovery tool page carries ttlMs: %.200s", sc)
			}
		})
	}
}

// SPEC FLAG-2: while the switch is off, tools/list is byte for byte the host's, with
// the host's ttlMs and the SDK's default cacheScope "public", and discover answers
// -32601 like an unknown method.
func TestSwitchOffCacheHints(t *testing.T) {
	set := setTTL(hostTTL, "")
	f := newFixture(t, fixtureOptions{enabled: false, principal: bob, tool: "search_tools", setCacheable: set})
	bare := &fixture{cat: f.cat, server: newSDKServerOpts(f.cat, &mcp.ServerOptions{SetCacheable: set}, nil), a: mcpsdk.New(discovery.New(nil), nil)}
	got, want := f.rawConnect(t), bare.rawConnect(t)
	g := got.call(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, "5")
	w := want.call(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, "5")
	if !bytes.Equal(g, w) {
		t.Errorf("switch off, tools/list:\n got %s\nwant %s (the bare go-sdk server)", g, w)
	}
	if !bytes.Contains(g, []byte(`"cacheScope":"public"`)) || !bytes.Contains(g, []byte(fmt.Sprintf(`"ttlMs":%d`, hostTTL))) {
		t.Errorf("switch off, tools/list %s: want the host's ttlMs and the SDK's public scope", g)
	}
	disc := got.call(`{"jsonrpc":"2.0","id":6,"method":"multillm.tools.discover","params":{"query":"weather"}}`, "6")
	if e := decodeError(t, disc); e == nil || e.Code != -32601 || strings.Contains(string(disc), "cacheScope") {
		t.Errorf("switch off, discover = %s, want -32601", disc)
	}
	// The go-sdk client sees the same.
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.server.Connect(context.Background(), f.a.Transport(st), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	res, err := connectClient(t, ct).ListTools(context.Background(), nil)
	if err != nil || res.CacheScope != "public" || res.TTLMs != hostTTL {
		t.Errorf("switch off, go-sdk ListTools: %+v, %v; want public, %d", res, err, hostTTL)
	}
}

// SPEC VIS-3, DISC-3 (hardening) in HTTP terms: a narrowed tools/list (event stream and
// JSON body), a discover answer and a discovery tool page say Cache-Control private
// and no-store, never
// public, even when a handler behind the adapter marks every response public
// (max-age=600): no shared cache may serve one principal's list to another.
func TestHTTPCacheControlPrivate(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("JSONResponse=%v", jsonResponse), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools", principal2: mcpsdk.TokenInfoPrincipal, setCacheable: setTTL(hostTTL, "public")})
			sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
			public := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "public, max-age=600, s-maxage=600")
				sdk.ServeHTTP(w, r)
			})
			srv := httptest.NewServer(bearerAuth(f.a.Handler(public)))
			t.Cleanup(srv.Close)
			h := &httpSession{t: t, url: srv.URL, token: "tok-bob"}
			h.initialize()
			for _, msg := range adaptertest.PrivatePages(f.d.Method(), "search_tools") {
				resp, _ := h.post(msg)
				cc := strings.Join(resp.Header.Values("Cache-Control"), ", ")
				if resp.StatusCode != 200 || strings.Contains(cc, "public") || strings.Contains(cc, "s-maxage") ||
					!strings.Contains(cc, "private") || !strings.Contains(cc, "no-store") {
					t.Errorf("%s: HTTP %d, Cache-Control %q; want private, no-store, never public", msg, resp.StatusCode, cc)
				}
			}
		})
	}
}
