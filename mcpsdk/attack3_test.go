package mcpsdk_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// Attack round 3 on the go-sdk adapter through the real SDK transports and the go-sdk
// client: visibility (SPEC VIS-1..3), the toolset binding of cursors (CURSOR-2), a
// grant change while a page is prepared (CURSOR-4) and storage missing over HTTP
// (FLAG-3).

// visServer is a go-sdk server of the test catalog (toolsets as adaptertest.Toolset says) with
// the adapter installed for principal p under opts' Visibility, Signer, RevisionSync
// and Grants (nil Grants: an in-memory store of testRows).
type visServer struct {
	d       *discovery.Discoverer
	a       *mcpsdk.Adapter
	server  *mcp.Server
	handled sync.Map
}

func newVisServer(t *testing.T, p grants.Principal, opts discovery.Options, pageSize int) *visServer {
	t.Helper()
	cat, err := discovery.NewCatalog(testTools(), &discovery.CatalogOptions{Toolset: adaptertest.Toolset})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Grants == nil {
		mem := grants.NewMemory()
		for _, r := range testRows() {
			mem.Put(context.Background(), r)
		}
		opts.Grants = mem
	}
	opts.Enabled, opts.Catalog = true, cat
	v := &visServer{d: discovery.New(&opts)}
	v.a = mcpsdk.New(v.d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(p), DiscoveryTool: "search_tools"})
	v.server = newSDKServerOpts(cat, &mcp.ServerOptions{PageSize: pageSize}, &v.handled)
	if err := v.a.Install(v.server); err != nil {
		t.Fatal(err)
	}
	return v
}

// pipe connects the go-sdk client over a real byte stream (an IOTransport pair over
// net.Pipe), through the adapter's byte front.
func (v *visServer) pipe(t *testing.T) *mcp.ClientSession {
	t.Helper()
	c1, c2 := net.Pipe()
	ss, err := v.server.Connect(context.Background(), v.a.Transport(&mcp.IOTransport{Reader: c1, Writer: c1}), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return connectClient(t, &mcp.IOTransport{Reader: c2, Writer: c2})
}

func (v *visServer) ran() int64 {
	var n int64
	v.handled.Range(func(_, c any) bool { n += c.(*atomic.Int64).Load(); return true })
	return n
}

// SPEC VIS-1, VIS-2, VIS-3, CONTRACT-2 through the go-sdk client over a byte stream:
// each narrowing (an excluded name, read-only mode, a toolset selection) withholds the
// same tools from tools/list (every page, walked with the SDK's page size of 2),
// from the discover method (every page), from the discovery tool and from calls: a
// withheld tool's call is refused tool_not_granted whatever its arguments (valid,
// mistyped, duplicate keys, nested past the CALL-5 depth), never running, while a
// served tool runs; every tools/list page keeps its nextCursor and _meta, and the
// contract digest of tools/list is the discover method's. Breaks when one path
// narrows and another does not, or when a withheld tool's arguments are looked at.
func TestAttack3VisibilityOnEveryPath(t *testing.T) {
	ctx := context.Background()
	for _, c := range adaptertest.VisibilityCases {
		t.Run(c.Name, func(t *testing.T) {
			v := newVisServer(t, alice, discovery.Options{Visibility: c.Vis}, 2)
			cs := v.pipe(t)
			var listed []string
			var digest any
			for params := (&mcp.ListToolsParams{}); ; {
				page, err := cs.ListTools(ctx, params)
				if err != nil {
					t.Fatal(err)
				}
				if page.Meta["contract_digest"] == nil {
					t.Errorf("a tools/list page lost its _meta: %+v", page.Meta)
				}
				digest = page.Meta["contract_digest"]
				for _, tl := range page.Tools {
					listed = append(listed, tl.Name)
				}
				if page.NextCursor == "" {
					break
				}
				params = &mcp.ListToolsParams{Cursor: page.NextCursor}
			}
			want := append(slices.Clone(c.Served), "search_tools")
			slices.Sort(want)
			slices.Sort(listed)
			if !slices.Equal(listed, want) {
				t.Errorf("tools/list: %v, want %v", listed, want)
			}
			// Each tool by its own name: found when served, never when withheld; every
			// page of a broad query holds served tools only.
			var discoDigest any
			for _, name := range []string{"weather_get", "weather_forecast", "deploy_model", "weather_station_3", "secrets_read"} {
				res, err := discover(ctx, cs, &discoverParams{Query: name})
				if err != nil {
					t.Fatal(err)
				}
				discoDigest = res.Meta["contract_digest"]
				found := false
				for _, d := range res.Tools {
					found = found || toolName(t, d) == name
				}
				if found != slices.Contains(c.Served, name) {
					t.Errorf("discover %q: found %v, served %v", name, found, slices.Contains(c.Served, name))
				}
			}
			for p := (&discoverParams{Query: "weather station city deploy model secret", Limit: 2}); ; {
				res, err := discover(ctx, cs, p)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range res.Tools {
					if !slices.Contains(c.Served, toolName(t, d)) {
						t.Errorf("discover served withheld %s", toolName(t, d))
					}
				}
				if res.NextCursor == "" {
					break
				}
				p = &discoverParams{Query: p.Query, Limit: 2, Cursor: res.NextCursor}
			}
			if discoDigest != digest {
				t.Errorf("contract digest: tools/list %v, discover %v", digest, discoDigest)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "weather station city deploy model secret", "limit": 16}})
			if err != nil || res.IsError {
				t.Fatalf("the discovery tool: %+v, %v", res, err)
			}
			for _, name := range []string{"weather_forecast", "deploy_model", "weather_station_3", "secrets_read"} {
				if strings.Contains(toolText(res), `"name":"`+name+`"`) && !slices.Contains(c.Served, name) {
					t.Errorf("the discovery tool served withheld %s", name)
				}
			}
			before := v.ran()
			for _, name := range []string{"weather_forecast", "deploy_model", "weather_station_3", "weather_get"} {
				if slices.Contains(c.Served, name) {
					continue
				}
				for _, args := range []json.RawMessage{
					json.RawMessage(`{"city":"Oslo","model":"m","station":"s"}`),
					json.RawMessage(`{"city":5,"days":"x"}`),
					json.RawMessage(`{"city":"a","city":"b"}`),
					json.RawMessage(`{"z":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`),
				} {
					_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
					if err == nil || !strings.Contains(err.Error(), string(discovery.CodeToolNotGranted)) {
						t.Errorf("call of withheld %s with %s: %v, want tool_not_granted", name, args, err)
					}
				}
			}
			if n := v.ran() - before; n != 0 {
				t.Errorf("withheld tools ran %d times", n)
			}
			valid := map[string]string{"weather_get": `{"city":"Oslo"}`, "weather_forecast": `{"city":"Oslo"}`, "deploy_model": `{"model":"m"}`}
			for _, name := range c.Served {
				args := cmp.Or(valid[name], `{"station":"s"}`)
				if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)}); err != nil || res.IsError {
					t.Errorf("call of served %s: %+v, %v", name, res, err)
				}
			}
		})
	}
}

// SPEC CURSOR-2 (toolset selection): two Discoverers sharing one Sealer and the store's
// control revision (RevisionSync), whose toolset selections differ by a toolset no tool
// belongs to, give alice the same authorised set and the same first page; a cursor of
// one is refused by the other with invalid_cursor and continues on its own. Breaks when
// the binding holds what the selection decides (the contract) but not the selection.
func TestAttack3CursorBindsToolsetSelection(t *testing.T) {
	ctx := context.Background()
	signer := cursor.NewSigner()
	mem := grants.NewMemory()
	for _, r := range testRows() {
		mem.Put(ctx, r)
	}
	a := newVisServer(t, alice, discovery.Options{Signer: signer, RevisionSync: true, Grants: mem, Visibility: discovery.Visibility{Toolsets: []string{"weather"}}}, 0).pipe(t)
	b := newVisServer(t, alice, discovery.Options{Signer: signer, RevisionSync: true, Grants: mem, Visibility: discovery.Visibility{Toolsets: []string{"weather", "nothing"}}}, 0).pipe(t)
	pa, err := discover(ctx, a, &discoverParams{Query: "weather station", Limit: 2})
	if err != nil || pa.NextCursor == "" {
		t.Fatalf("a's first page: %+v %v", pa, err)
	}
	pb, err := discover(ctx, b, &discoverParams{Query: "weather station", Limit: 2})
	if err != nil || pb.Meta["contract_digest"] != pa.Meta["contract_digest"] {
		t.Fatalf("b's first page differs: the attack needs the same authorised set (%v)", err)
	}
	next := &discoverParams{Query: "weather station", Limit: 2, Cursor: pa.NextCursor}
	if _, err := discover(ctx, b, next); err == nil || !strings.Contains(err.Error(), string(discovery.CodeInvalidCursor)) {
		t.Errorf("a's cursor on b (another toolset selection): %v, want invalid_cursor", err)
	}
	if res, err := discover(ctx, a, next); err != nil || len(res.Tools) == 0 {
		t.Errorf("a's cursor on a: %v, want the next page", err)
	}
}

// changingReader reads mem and, when armed, changes a row of alice's right after the
// read it answers: the next read of the same request sees another snapshot.
type changingReader struct {
	mem *grants.Memory
	arm atomic.Bool
}

func (r *changingReader) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	s, err := r.mem.ReadGrants(ctx, id)
	if r.arm.CompareAndSwap(true, false) {
		r.mem.Put(ctx, grants.Row{Principal: "alice", Tool: "secrets_read", Effect: grants.Deny})
	}
	return s, err
}

// SPEC CURSOR-4, CURSOR-2 through the go-sdk client over a byte stream: a grant change
// between the read a page starts from and the read that confirms it answers
// tool_grants_changed (409) on the discover method and on the discovery tool, on a
// first page and on a next page; a grant change between two pages makes the earlier
// cursor invalid_cursor; the next request, unchanged, is served. The changed row
// (a deny of a tool alice has no grant for) changes nothing she is served: the rows
// observed, not the result, decide. Breaks when the second read is skipped or
// compared by the authorised set alone.
func TestAttack3GrantChangeWhilePaging(t *testing.T) {
	ctx := context.Background()
	r := &changingReader{mem: grants.NewMemory()}
	for _, row := range testRows() {
		r.mem.Put(ctx, row)
	}
	v := newVisServer(t, alice, discovery.Options{Grants: r}, 0)
	cs := v.pipe(t)
	p1, err := discover(ctx, cs, &discoverParams{Query: "weather station", Limit: 2})
	if err != nil || p1.NextCursor == "" {
		t.Fatalf("page 1: %v", err)
	}
	r.arm.Store(true)
	_, err = discover(ctx, cs, &discoverParams{Query: "weather station", Limit: 2, Cursor: p1.NextCursor})
	if err == nil || !strings.Contains(err.Error(), string(discovery.CodeGrantsChanged)) {
		t.Errorf("page 2 while grants change: %v, want tool_grants_changed", err)
	}
	_, err = discover(ctx, cs, &discoverParams{Query: "weather station", Limit: 2, Cursor: p1.NextCursor})
	if err == nil || !strings.Contains(err.Error(), string(discovery.CodeInvalidCursor)) {
		t.Errorf("page 2 after grants changed: %v, want invalid_cursor", err)
	}
	r.arm.Store(true)
	if _, err := discover(ctx, cs, &discoverParams{Query: "weather station", Limit: 2}); err == nil || !strings.Contains(err.Error(), string(discovery.CodeGrantsChanged)) {
		t.Errorf("page 1 while grants change: %v, want tool_grants_changed", err)
	}
	r.arm.Store(true)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "weather station"}})
	if text := toolText(res); err == nil && !strings.Contains(text, string(discovery.CodeGrantsChanged)) {
		t.Errorf("the discovery tool while grants change: %q, want tool_grants_changed", text)
	} else if err != nil && !strings.Contains(err.Error(), string(discovery.CodeGrantsChanged)) {
		t.Errorf("the discovery tool while grants change: %v, want tool_grants_changed", err)
	}
	if p, err := discover(ctx, cs, &discoverParams{Query: "weather station", Limit: 2}); err != nil || len(p.Tools) != 2 {
		t.Errorf("a new discovery after the change: %v", err)
	}
}

func toolText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// SPEC FLAG-3 over streamable HTTP, storage missing (no grant Reader at all): the raw
// answers to a tools/call, to the discover method, to tools/list and to the discovery
// tool are HTTP 503 with the JSON grants_unavailable body; the go-sdk client sees each
// as an error and its session goes on (a ping is answered after them), and no handler
// runs. Failed before the adapter answered its 503 errors with that status (the call's
// in an HTTP 200, tools/list's and the discovery tool's as an event of the SDK's 200
// stream).
func TestAttack3StorageMissingHTTP(t *testing.T) {
	ctx := context.Background()
	cat, err := discovery.NewCatalog(testTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat}) // no Grants
	a := mcpsdk.New(d, &mcpsdk.Options{DiscoveryTool: "search_tools"})
	var handled sync.Map
	s := newSDKServerOpts(cat, nil, &handled)
	if err := a.Install(s); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(bearerAuth(a.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))))
	t.Cleanup(srv.Close)
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	for _, c := range []struct {
		msg    string
		status int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`, http.StatusServiceUnavailable},
		{`{"jsonrpc":"2.0","id":2,"method":"multillm.tools.discover","params":{"query":"weather"}}`, http.StatusServiceUnavailable},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, http.StatusServiceUnavailable},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather"}}}`, http.StatusServiceUnavailable},
	} {
		resp, body := h.post(c.msg)
		e := decodeError(t, body)
		if resp.StatusCode != c.status || e == nil || e.Message != string(discovery.CodeGrantsUnavailable) || e.Data.Status != 503 {
			t.Errorf("%.60s: %d %s, want %d and grants_unavailable", c.msg, resp.StatusCode, body, c.status)
		}
		if c.status == http.StatusServiceUnavailable && resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%.60s: Content-Type %q, want application/json", c.msg, resp.Header.Get("Content-Type"))
		}
	}
	cs := connectClient(t, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{"tok-alice", http.DefaultTransport}}})
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather_get", Arguments: map[string]any{"city": "Oslo"}}); err == nil {
		t.Error("the go-sdk client's call with storage missing succeeded")
	}
	if _, err := cs.ListTools(ctx, nil); err == nil {
		t.Error("the go-sdk client's tools/list with storage missing succeeded")
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("the go-sdk client's session after the refusals: %v", err)
	}
	n := 0
	handled.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Errorf("%d handlers ran with storage missing", n)
	}
	_ = errors.New
}
