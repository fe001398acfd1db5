package mcpgo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/nopanic"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// New with a nil Discoverer fails closed: the adapter serves as over a Discoverer with
// the switch on and no catalog, so Check passes and tools/list and tools/call answer
// catalog_unavailable without running the tool (Check had panicked). A switched-off
// stand-in would have let every call through ungated. SPEC ERR-5, FLAG-3.
func TestNewNilDiscoverer(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	f.a = mcpgo.New(nil, &mcpgo.Options{DiscoveryTool: "search_tools"})
	ctx := context.Background()
	if d := f.a.Discoverer(); d == nil || !d.Enabled() {
		t.Fatalf("New(nil).Discoverer() = %v, want a Discoverer with the switch on", d)
	}
	if err := f.a.Check(ctx); err != nil {
		t.Fatalf("Check = %v", err)
	}
	c := f.listen(t, mcpgo.WithPrincipal(ctx, alice))
	c.initialize()
	wantError(t, c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "1"), discovery.CodeCatalogUnavailable)
	tool := wantAliceTools[0]
	resp := c.call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`, "2")
	wantError(t, resp, discovery.CodeCatalogUnavailable)
	if n := f.calls(tool); n != 0 {
		t.Errorf("the tool ran %d times, want 0", n)
	}
}

// CatalogFromServer refuses a nil server with ErrNilServer instead of panicking in
// ListTools. SPEC ERR-5.
func TestCatalogFromServerNil(t *testing.T) {
	var cat *discovery.Catalog
	err := nopanic.Call(func() (err error) {
		cat, err = mcpgo.CatalogFromServer(nil, nil)
		return err
	})
	if cat != nil || !errors.Is(err, mcpgo.ErrNilServer) || err.Error() != "mcpgo: nil server" {
		t.Errorf("CatalogFromServer(nil) = %v, %v; want nil and ErrNilServer", cat, err)
	}
}
