package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// clashMark is the description of the catalog tool named like the discovery tool
// (weather_radar) in the second catalog version of TestDiscoveryToolClashUnderSwaps.
const clashMark = "RADAR-CATALOG-SCHEMA"

// SPEC DISC-3, CALL-2: one decision per catalog version. While the catalog swaps, as
// fast as it can, between a version without and a version with a tool named like the
// discovery tool, no answer ever serves that name with the catalog's schema: tools/list,
// the discover method and the discovery tool answer either from a version without it
// or catalog_unavailable. Before, the adapter asked the Discoverer's current version
// whether the name was taken and the Discoverer then served the version it took.
func TestDiscoveryToolClashUnderSwaps(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	radar := json.RawMessage(`{"name":"weather_radar","description":"Weather radar of a city. ` + clashMark + `",
		"inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}`)
	clash, err := discovery.NewCatalog(append(testTools(), radar), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := grants.NewMemory()
	for _, r := range append(testRows(), grants.Row{Principal: "*", Tool: "weather_radar", Effect: grants.Allow, Revision: 1}) {
		if _, err := g.Put(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	var sw discovery.SwappableCatalog
	sw.Store(f.cat)
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: &sw, Grants: g})
	f.a = mcpgo.New(f.d, &mcpgo.Options{Principal: mcpgo.StaticPrincipal(alice), DiscoveryTool: "weather_radar"})
	c := f.listen(t, context.Background())
	c.initialize()

	stop := make(chan struct{})
	var done sync.WaitGroup
	done.Add(1)
	go func() {
		defer done.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				sw.Store(f.cat)
			} else {
				sw.Store(clash)
			}
		}
	}()
	defer func() { close(stop); done.Wait() }()

	served, refused := 0, 0
	for i := range 1000 {
		id := fmt.Sprint(i + 10)
		for what, msg := range map[string]string{
			"discover":       `{"jsonrpc":"2.0","id":` + id + `,"method":"` + discovery.DefaultMethod + `","params":{"query":"weather radar"}}`,
			"discovery tool": `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"weather_radar","arguments":{"query":"weather radar"}}}`,
			"tools/list":     `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`,
		} {
			resp := c.call(msg, id)
			if bytes.Contains(resp, []byte(clashMark)) {
				t.Fatalf("%s served the catalog's weather_radar while calls of it run the discovery tool:\n%.300s", what, resp)
			}
			if bytes.Contains(resp, []byte(discovery.CodeCatalogUnavailable)) {
				refused++
			} else {
				served++
			}
		}
	}
	if served == 0 || refused == 0 {
		t.Errorf("%d answers served, %d refused: the swaps did not reach both versions", served, refused)
	}
}
