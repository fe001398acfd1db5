package mcpsdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// Attacks on the go-sdk adapter through its real byte front (an IOTransport over a
// pipe) and the go-sdk client, beyond edges_test.go: each names the promise it checks
// and what would break it.

// attackPage is a discover answer (or a tools/list result) as the wire carries it.
type attackPage struct {
	Result *struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
		Meta       struct {
			Digest string `json:"contract_digest"`
		} `json:"_meta"`
	} `json:"result"`
	Error *rpcErr `json:"error"`
}

func readPage(t *testing.T, what string, b []byte) attackPage {
	t.Helper()
	var p attackPage
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%s: %v: %.300s", what, err, b)
	}
	return p
}

func discLine(id, query string, limit int, cursor string) string {
	p, _ := json.Marshal(map[string]any{"query": query, "limit": limit})
	if cursor != "" {
		p, _ = json.Marshal(map[string]any{"query": query, "limit": limit, "cursor": cursor})
	}
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"multillm.tools.discover","params":` + string(p) + `}`
}

// wantCode fails unless b is the adapter's error of code.
func wantCode(t *testing.T, what string, b []byte, code discovery.Code) {
	t.Helper()
	e := decodeError(t, b)
	if e == nil || e.Message != string(code) || e.Data.Error != string(code) || e.Code != code.JSONRPCCode() || e.Data.Status != code.Status() {
		t.Errorf("%s: %.300s, want the error %s", what, b, code)
	}
}

// SPEC CURSOR-3 on the wire: a cursor lives at most 120 s from the first page, and
// later pages do not renew it: in a synctest bubble (the process's clock), pages at
// 100 s and 119 s continue, the cursor the 119 s page gave is refused at 121 s, as is
// the first one, while a new discovery is served. Breaks when each page seals its
// cursor with its own time (the 119 s cursor would live to 239 s).
func TestAttackCursorLifetime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, fixtureOptions{enabled: true, principal: alice})
		c := f.rawConnect(t)
		p1 := readPage(t, "page 1", c.call(discLine("p1", "weather", 1, ""), `"p1"`))
		if p1.Result == nil || p1.Result.NextCursor == "" {
			t.Fatalf("page 1 has no next cursor: %+v", p1)
		}
		time.Sleep(100 * time.Second)
		p2 := readPage(t, "page 2", c.call(discLine("p2", "weather", 1, p1.Result.NextCursor), `"p2"`))
		if p2.Result == nil || p2.Result.NextCursor == "" {
			t.Fatalf("page 2 at 100 s: %+v, want a page with a next cursor", p2)
		}
		time.Sleep(19 * time.Second)
		p3 := readPage(t, "page 3", c.call(discLine("p3", "weather", 1, p2.Result.NextCursor), `"p3"`))
		if p3.Result == nil || p3.Result.NextCursor == "" {
			t.Fatalf("page 3 at 119 s: %+v, want a page with a next cursor", p3)
		}
		time.Sleep(2 * time.Second)
		wantCode(t, "page 4 at 121 s", c.call(discLine("p4", "weather", 1, p3.Result.NextCursor), `"p4"`), discovery.CodeInvalidCursor)
		wantCode(t, "page 2 again at 121 s", c.call(discLine("p5", "weather", 1, p1.Result.NextCursor), `"p5"`), discovery.CodeInvalidCursor)
		if p := readPage(t, "a new discovery", c.call(discLine("p6", "weather", 1, ""), `"p6"`)); p.Result == nil || len(p.Result.Tools) != 1 {
			t.Errorf("a new discovery at 121 s: %+v, want a page", p)
		}
	})
}

// addRawTool registers the catalog definition def on s with a handler counting its runs.
func addRawTool(t *testing.T, s *mcp.Server, def string, runs *atomic.Int64) {
	t.Helper()
	var tool mcp.Tool
	if err := json.Unmarshal([]byte(def), &tool); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	json.Unmarshal([]byte(def), &raw)
	tool.InputSchema = raw.InputSchema
	s.AddTool(&tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
	})
}

// rawOver connects a raw newline-delimited client to s through a's Transport.
func rawOver(t *testing.T, s *mcp.Server, a *mcpsdk.Adapter) *rawClient {
	t.Helper()
	c1, c2 := net.Pipe()
	ss, err := s.Connect(context.Background(), a.Transport(&mcp.IOTransport{Reader: c1, Writer: c1}), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close(); c2.Close() })
	rc := &rawClient{t: t, w: c2, r: bufio.NewReaderSize(c2, 1<<20), got: map[string][]byte{}}
	rc.call(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, `"init"`)
	rc.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return rc
}

// SPEC CURSOR-2, DISC-5, CALL-2 across catalog versions (NewServerCatalog following the
// server's tools): adding a tool alice is not granted changes no byte of her next page
// and keeps her cursor valid; changing a tool she is granted refuses the cursor
// (invalid_cursor), and the changed schema is at once the one listed and the one
// enforced. Breaks when a cursor binds the whole catalog's version (the first swap
// would refuse it) or when the authorised set or a validator outlives its version.
func TestAttackCursorAcrossCatalogSwaps(t *testing.T) {
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "swap", Version: "v0"}, nil)
	var runs atomic.Int64
	for _, def := range testTools() {
		addRawTool(t, s, string(def), &runs)
	}
	sc := newServerCatalog(t, s, nil)
	mem := grants.NewMemory()
	for _, r := range testRows() {
		mem.Put(ctx, r)
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: sc, Grants: mem})
	a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(alice)})
	a.Install(s)
	c := rawOver(t, s, a)

	p1 := readPage(t, "page 1", c.call(discLine("p1", "weather station", 2, ""), `"p1"`))
	if p1.Result == nil || p1.Result.NextCursor == "" {
		t.Fatalf("page 1: %+v, want a next cursor", p1)
	}
	cur := p1.Result.NextCursor
	before := readPage(t, "page 2", c.call(discLine("p2", "weather station", 2, cur), `"p2"`))
	if before.Result == nil {
		t.Fatalf("page 2: %+v", before)
	}

	// A tool nobody is granted, matching the query better than any granted one.
	addRawTool(t, s, `{"name":"weather_station_secret","description":"Weather station weather station secret readings.","inputSchema":{"type":"object"}}`, &runs)
	if err := sc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if cat, _ := sc.Catalog(ctx); cat == nil {
		t.Fatal("no catalog")
	} else if _, ok := cat.Tool("weather_station_secret"); !ok {
		t.Fatal("the catalog did not follow the added tool")
	}
	after := readPage(t, "page 2 after an ungranted tool", c.call(discLine("p3", "weather station", 2, cur), `"p3"`))
	if after.Result == nil {
		t.Fatalf("page 2 after an ungranted tool was added: %+v, want the same page (SPEC DISC-5)", after)
	}
	ja, _ := json.Marshal(after.Result.Tools)
	jb, _ := json.Marshal(before.Result.Tools)
	if string(ja) != string(jb) || after.Result.Meta.Digest != before.Result.Meta.Digest {
		t.Errorf("page 2 changed when a tool alice is not granted was added:\n%s\nwant\n%s", ja, jb)
	}

	// A granted tool changes: its schema tightens.
	addRawTool(t, s, `{"name":"weather_get","description":"Get the current weather for a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string","maxLength":3}},"required":["city"]}}`, &runs)
	if err := sc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "page 2 after a granted tool changed", c.call(discLine("p4", "weather station", 2, cur), `"p4"`), discovery.CodeInvalidCursor)
	list := c.call(`{"jsonrpc":"2.0","id":"l","method":"tools/list"}`, `"l"`)
	if !strings.Contains(string(list), `"maxLength":3`) {
		t.Errorf("tools/list does not serve the changed weather_get: %.600s", list)
	}
	n := runs.Load()
	resp := c.call(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`, `"call"`)
	if !strings.Contains(string(resp), `keyword \"maxLength\"`) || runs.Load() != n {
		t.Errorf("a call valid only under the old schema: %s (ran %d times), want invalid arguments (maxLength), not run", resp, runs.Load()-n)
	}
}

// SPEC CONTRACT-2 through the byte front: a stale pin refuses every tools/call, the
// discovery tool's (it served a page) and one whose pin member is spelled with an
// escape, which the SDK decodes as the pin; the right pin, either spelling, passes.
func TestAttackContractPin(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice, tool: "search_tools"})
	c := f.rawConnect(t)
	list := readPage(t, "tools/list", c.call(`{"jsonrpc":"2.0","id":"l","method":"tools/list"}`, `"l"`))
	if list.Result == nil || list.Result.Meta.Digest == "" {
		t.Fatalf("tools/list: %+v", list)
	}
	digest, stale := list.Result.Meta.Digest, "sha256:"+strings.Repeat("0", 64)
	call := func(id, name, args, key, pin string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,"_meta":{"` + key + `":"` + pin + `"}}}`
	}
	wantCode(t, "discovery tool, stale pin", c.call(call("d1", "search_tools", `{"query":"weather"}`, "contract_digest", stale), `"d1"`), discovery.CodeContractChanged)
	wantCode(t, "discovery tool, escaped stale pin", c.call(call("d2", "search_tools", `{"query":"weather"}`, `contract\u005fdigest`, stale), `"d2"`), discovery.CodeContractChanged)
	wantCode(t, "tool, escaped stale pin", c.call(call("t1", "weather_get", `{"city":"Oslo"}`, `contract\u005fdigest`, stale), `"t1"`), discovery.CodeContractChanged)
	for _, m := range []string{
		call("d3", "search_tools", `{"query":"weather"}`, "contract_digest", digest),
		call("t2", "weather_get", `{"city":"Oslo"}`, `\u0063ontract_digest`, digest),
	} {
		id := `"` + m[strings.Index(m, `"id":"`)+6:][:2] + `"`
		if b := c.call(m, id); decodeError(t, b) != nil {
			t.Errorf("the right pin: %.300s, want a result", b)
		}
	}
	if n := f.calls("weather_get"); n != 1 {
		t.Errorf("weather_get ran %d times, want once (the right pin)", n)
	}
}

// SPEC CALL-1, CALL-2: a tools/call notification (no id) runs nothing and is answered
// by nothing, valid arguments or not, nor is a discover notification answered; the
// session goes on. Breaks when the front hands a notification to a path that runs the
// handler, or answers one.
func TestAttackCallNotificationRunsNothing(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice, tool: "search_tools"})
	c := f.rawConnect(t)
	for _, n := range []string{
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"city":7}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"secrets_read","arguments":{"key":"k"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather"}}}`,
		`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"weather"}}`,
	} {
		c.send(n)
	}
	if b := c.call(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`, `"ping"`); decodeError(t, b) != nil {
		t.Errorf("ping after the notifications: %s", b)
	}
	c.mu.Lock()
	stray := len(c.got)
	c.mu.Unlock()
	if stray != 0 {
		t.Errorf("%d notifications were answered", stray)
	}
	if n := f.calls("weather_get") + f.calls("secrets_read"); n != 0 {
		t.Errorf("notifications ran tools %d times, want never", n)
	}
}

// SPEC CALL-1, GRANT-4, GRANT-6: calls racing with grant changes. Four clients call
// weather_get while its row is deleted and put back, 40 times: every answer is the
// tool's result or tool_not_granted, the handler ran exactly as many times as results
// came back, and once the row is deleted for good every later call is refused and runs
// nothing. Breaks when a decision is cached past a grant change or a refused call
// still reaches the handler.
func TestAttackCallsWhileGrantsChange(t *testing.T) {
	ctx := context.Background()
	mem := grants.NewMemory()
	for _, r := range testRows() {
		mem.Put(ctx, r)
	}
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice, reader: mem})
	row := grants.Row{Principal: grants.AnyPrincipal, Tool: "weather_get", Scopes: []string{"weather:read"}, Effect: grants.Allow}
	var results, refusals atomic.Int64
	call := func(cs *mcp.ClientSession) bool {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather_get", Arguments: map[string]any{"city": "Oslo"}})
		switch {
		case err == nil && !res.IsError:
			results.Add(1)
			return true
		case err != nil && strings.Contains(err.Error(), string(discovery.CodeToolNotGranted)):
			refusals.Add(1)
			return false
		}
		t.Errorf("a call answered %v %+v, want the result or tool_not_granted", err, res)
		return false
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		cs := f.connect(t)
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					call(cs)
				}
			}
		})
	}
	for range 40 {
		if err := mem.Delete(ctx, row.Principal, row.Tool); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		if _, err := mem.Put(ctx, row); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	if err := mem.Delete(ctx, row.Principal, row.Tool); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if n := f.calls("weather_get"); n != results.Load() {
		t.Errorf("the handler ran %d times for %d results (%d refusals)", n, results.Load(), refusals.Load())
	}
	t.Logf("%d results, %d refusals while the row changed", results.Load(), refusals.Load())
	ran := f.calls("weather_get")
	cs := f.connect(t)
	for i := range 20 {
		if call(cs) {
			t.Errorf("call %d after the row was deleted ran", i)
		}
	}
	if f.calls("weather_get") != ran {
		t.Error("a call after the row was deleted reached the handler")
	}
}
