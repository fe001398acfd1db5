package mcpsdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// SPEC DISC-3, CALL-2: one decision per catalog version. While the catalog swaps, as
// fast as it can, between a version without and a version with a tool named like the
// discovery tool, no answer ever serves that name with the catalog's schema: tools/list,
// the discover method and the discovery tool answer either from a version without it
// or catalog_unavailable. Before, the adapter asked the Discoverer's current version
// whether the name was taken, then the Discoverer served the request from the version
// it took: a swap between the two served the catalog tool on a page while calls of
// the name ran the discovery tool (seen here within a few hundred requests).
func TestDiscoveryToolClashUnderSwaps(t *testing.T) {
	free, clash, g := adaptertest.ClashVersions(t)
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

	adaptertest.Flip(t, &sw, free, clash)

	var served, refused atomic.Int64
	check := func(what string, resp []byte) {
		t.Helper()
		if bytes.Contains(resp, []byte(adaptertest.ClashMark)) {
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
