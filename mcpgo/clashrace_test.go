package mcpgo_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// SPEC DISC-3, CALL-2: one decision per catalog version. While the catalog swaps, as
// fast as it can, between a version without and a version with a tool named like the
// discovery tool, no answer ever serves that name with the catalog's schema: tools/list,
// the discover method and the discovery tool answer either from a version without it
// or catalog_unavailable. Before, the adapter asked the Discoverer's current version
// whether the name was taken and the Discoverer then served the version it took.
func TestDiscoveryToolClashUnderSwaps(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	free, clash, g := adaptertest.ClashVersions(t)
	var sw discovery.SwappableCatalog
	sw.Store(free)
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: &sw, Grants: g})
	f.a = mcpgo.New(f.d, &mcpgo.Options{Principal: mcpgo.StaticPrincipal(alice), DiscoveryTool: "weather_radar"})
	c := f.listen(t, context.Background())
	c.initialize()
	adaptertest.Flip(t, &sw, free, clash)

	served, refused := 0, 0
	for i := range 1000 {
		id := fmt.Sprint(i + 10)
		for what, msg := range map[string]string{
			"discover":       `{"jsonrpc":"2.0","id":` + id + `,"method":"` + discovery.DefaultMethod + `","params":{"query":"weather radar"}}`,
			"discovery tool": `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"weather_radar","arguments":{"query":"weather radar"}}}`,
			"tools/list":     `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`,
		} {
			resp := c.call(msg, id)
			if bytes.Contains(resp, []byte(adaptertest.ClashMark)) {
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
