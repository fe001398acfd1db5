package mcpsdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// clashMark is the description of the catalog tool named like the discovery tool in
// clashCatalogs' second version: a response holding it serves that name with the
// catalog's schema.
const clashMark = "RADAR-CATALOG-SCHEMA"

// clashCatalogs returns two versions of the test catalog: without and with a tool
// named weather_radar, the discovery tool's name in the tests below, and grants
// reading every tool of both.
func clashCatalogs(t *testing.T) (free, clash *discovery.Catalog, g *grants.Memory) {
	t.Helper()
	free, err := discovery.NewCatalog(testTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	radar := json.RawMessage(`{"name":"weather_radar","description":"Weather radar of a city. ` + clashMark + `",
		"inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}`)
	clash, err = discovery.NewCatalog(append(testTools(), radar), nil)
	if err != nil {
		t.Fatal(err)
	}
	g = grants.NewMemory()
	for _, r := range append(testRows(), grants.Row{Principal: "*", Tool: "weather_radar", Effect: grants.Allow, Revision: 1}) {
		if _, err := g.Put(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	return free, clash, g
}

// flip stores free and clash into sw by turns until stop is closed.
func flip(sw *discovery.SwappableCatalog, free, clash *discovery.Catalog, stop <-chan struct{}, done *sync.WaitGroup) {
	defer done.Done()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		if i%2 == 0 {
			sw.Store(free)
		} else {
			sw.Store(clash)
		}
	}
}

// SPEC DISC-3, CALL-2: one decision per catalog version. While the catalog swaps, as
// fast as it can, between a version without and a version with a tool named like the
// discovery tool, no answer ever serves that name with the catalog's schema: tools/list,
// the discover method and the discovery tool answer either from a version without it
// or catalog_unavailable. Before, the adapter asked the Discoverer's current version
// whether the name was taken, then the Discoverer served the request from the version
// it took: a swap between the two served the catalog tool on a page while calls of
// the name ran the discovery tool (seen here within a few hundred requests).
func TestDiscoveryToolClashUnderSwaps(t *testing.T) {
	free, clash, g := clashCatalogs(t)
	var sw discovery.SwappableCatalog
	sw.Store(free)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: &sw, Grants: g})
	a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(alice), DiscoveryTool: "weather_radar"})
	f := &fixture{cat: free, d: d, a: a, server: newSDKServer(free, 0, nil, nil)}
	if err := a.Install(f.server); err != nil {
		t.Fatal(err)
	}
	raw := f.rawConnect(t) // the IO front: the discover method answered from the raw bytes
	cs := f.connect(t)     // an SDK transport: the discover method decoded by the SDK

	stop := make(chan struct{})
	var done sync.WaitGroup
	done.Add(1)
	go flip(&sw, free, clash, stop, &done)
	defer func() { close(stop); done.Wait() }()

	var served, refused atomic.Int64
	check := func(what string, resp []byte) {
		t.Helper()
		if bytes.Contains(resp, []byte(clashMark)) {
			t.Fatalf("%s served the catalog's weather_radar while calls of it run the discovery tool:\n%.300s", what, resp)
		}
		if bytes.Contains(resp, []byte(discovery.CodeCatalogUnavailable)) {
			refused.Add(1)
		} else {
			served.Add(1)
		}
	}
	ctx := context.Background()
	for i := range 300 {
		id := fmt.Sprint(i)
		check("discover (IO)", raw.call(`{"jsonrpc":"2.0","id":`+id+`,"method":"`+discovery.DefaultMethod+`","params":{"query":"weather radar"}}`, id))
		check("discovery tool (IO)", raw.call(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"weather_radar","arguments":{"query":"weather radar"}}}`, id))
		check("tools/list (IO)", raw.call(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`, id))
		res, err := discover(ctx, cs, &discoverParams{Query: "weather radar"})
		check("discover (SDK transport)", answerBytes(res, err))
		tr, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather_radar", Arguments: map[string]any{"query": "weather radar"}})
		check("discovery tool (SDK transport)", answerBytes(tr, err))
	}
	if served.Load() == 0 || refused.Load() == 0 {
		t.Errorf("%d answers served, %d refused: the swaps did not reach both versions", served.Load(), refused.Load())
	}
}

// answerBytes is a client's answer as bytes: the result's JSON, or the error's text.
func answerBytes(res any, err error) []byte {
	if err != nil {
		return []byte(err.Error())
	}
	b, _ := json.Marshal(res)
	return b
}
