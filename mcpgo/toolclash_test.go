package mcpgo_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// A catalog version that comes to hold a tool named like the discovery tool never
// serves two schemas under one name: while it is current, tools/list, the discover
// method and calls to that name answer catalog_unavailable (503); other calls go on.
// Before, tools/list served the discovery tool, discover the catalog tool under the
// same name, and the contract digest covered a tool tools/list never listed.
func TestDiscoveryToolClashAfterChange(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	var sw discovery.SwappableCatalog
	empty, err := discovery.NewCatalog(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sw.Store(empty)
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: &sw, Grants: f.reads})
	f.a = mcpgo.New(f.d, &mcpgo.Options{Principal: mcpgo.StaticPrincipal(alice), DiscoveryTool: "weather_get"})
	c := f.listen(t, context.Background())
	c.initialize()

	sw.Store(f.cat) // the catalog now holds weather_get
	wantError(t, c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "1"), discovery.CodeCatalogUnavailable)
	wantError(t, c.call(`{"jsonrpc":"2.0","id":2,"method":"multillm.tools.discover","params":{"query":"weather"}}`, "2"), discovery.CodeCatalogUnavailable)
	wantError(t, c.call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather_get","arguments":{"query":"weather"}}}`, "3"), discovery.CodeCatalogUnavailable)
	wantError(t, c.call(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather_get","arguments":{}}}`, "4"), discovery.CodeCatalogUnavailable)
	if got := f.calls("weather_get"); got != 0 {
		t.Errorf("weather_get's handler ran %d times during the clash", got)
	}
	if e := decodeError(t, c.call(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"weather_forecast","arguments":{"city":"Oslo"}}}`, "5")); e != nil && e.Message == string(discovery.CodeCatalogUnavailable) {
		t.Errorf("weather_forecast during the clash: %+v, want it decided as usual", e)
	}

	sw.Store(empty)
	if e := decodeError(t, c.call(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, "6")); e != nil {
		t.Errorf("tools/list once the clash is gone: %+v", e)
	}
}

// A discovery tool named like a catalog tool is refused where it can be seen: Check
// and Listen return ErrDiscoveryToolClash when the catalog holds the name already.
func TestListenRefusesDiscoveryToolClash(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "weather_get", principal: mcpgo.StaticPrincipal(alice)})
	if err := f.a.Check(context.Background()); !errors.Is(err, mcpgo.ErrDiscoveryToolClash) {
		t.Errorf("Check = %v, want ErrDiscoveryToolClash", err)
	}
	err := f.a.Listen(context.Background(), server.NewStdioServer(f.server), strings.NewReader(""), io.Discard)
	if !errors.Is(err, mcpgo.ErrDiscoveryToolClash) {
		t.Errorf("Listen = %v, want ErrDiscoveryToolClash", err)
	}
	if err := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"}).a.Check(context.Background()); err != nil {
		t.Errorf("Check with a free name = %v, want nil", err)
	}
	if err := newFixture(t, fixtureOptions{tool: "weather_get"}).a.Check(context.Background()); err != nil {
		t.Errorf("Check while the switch is off = %v, want nil", err)
	}
}
