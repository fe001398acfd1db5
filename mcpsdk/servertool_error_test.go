package mcpsdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// A server tool the catalog refuses is named in NewServerCatalog's error: a
// *mcpsdk.ServerToolError with its position in the server's tools/list order (by
// name), its name as registered (host configuration, even when the name is what is
// wrong) and the *discovery.CatalogError with the reason; the text says the position
// and the reason, never the name. Before, the error was the bare CatalogError, whose
// Name is empty for an invalid name.
func TestServerCatalogNamesRefusedTool(t *testing.T) {
	s := typedServer() // add, echo, simple_text
	s.AddTool(&mcp.Tool{Name: "get weather", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	_, err := mcpsdk.NewServerCatalog(context.Background(), s, nil)
	var se *mcpsdk.ServerToolError
	if !errors.As(err, &se) {
		t.Fatalf("NewServerCatalog = %v, want a *mcpsdk.ServerToolError", err)
	}
	if se.Index != 2 || se.Name != "get weather" {
		t.Errorf("ServerToolError = {Index %d, Name %q}, want {2, %q} (add, echo, get weather, simple_text)", se.Index, se.Name, "get weather")
	}
	var ce *discovery.CatalogError
	if !errors.As(err, &ce) || ce.Reason != "name" {
		t.Errorf("NewServerCatalog = %v, want a *discovery.CatalogError with reason name", err)
	}
	if got, want := err.Error(), "mcpsdk: the server's tool 2 (in tools/list order, by name) was refused: name"; got != want {
		t.Errorf("error text %q, want %q", got, want)
	}
}

// NewServerCatalog lists the server's tools beneath the adapter's middleware whenever
// it was installed: before, a catalog created after Install listed through the
// adapter, which refused the listing (no principal, or no catalog yet), and the error
// was ErrServerTools with no hint.
func TestServerCatalogAfterInstall(t *testing.T) {
	ctx := context.Background()
	s := typedServer()
	var sw discovery.SwappableCatalog
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: &sw, Grants: allowAll(t, "add", "echo", "simple_text")})
	a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(grants.Principal{ID: "ann"})})
	if err := a.Install(s); err != nil {
		t.Fatal(err)
	}
	sc, err := mcpsdk.NewServerCatalog(ctx, s, nil)
	if err != nil {
		t.Fatalf("NewServerCatalog after Install: %v", err)
	}
	defer sc.Close()
	cat, _ := sc.Catalog(ctx)
	if got := strings.Join(cat.Names(), ","); got != "add,echo,simple_text" {
		t.Errorf("catalog after Install = %s, want add,echo,simple_text", got)
	}
}
