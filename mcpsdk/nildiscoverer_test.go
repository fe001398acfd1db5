package mcpsdk_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/nopanic"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// New with a nil Discoverer fails closed: the adapter serves as over a Discoverer with
// the switch on and no catalog, so Install succeeds and tools/list and tools/call
// answer catalog_unavailable without running the tool (it had panicked in Install). A
// switched-off stand-in would have let every call through ungated. SPEC ERR-5, FLAG-3.
func TestNewNilDiscoverer(t *testing.T) {
	a := mcpsdk.New(nil, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(grants.Principal{ID: "ann"}), DiscoveryTool: "search_tools"})
	if d := a.Discoverer(); d == nil || !d.Enabled() {
		t.Fatalf("New(nil).Discoverer() = %v, want a Discoverer with the switch on", d)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	var runs atomic.Int64
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{}, nil
	})
	if err := a.Install(s); err != nil {
		t.Fatalf("Install = %v", err)
	}
	cs := stdioClient(t, s, a)
	ctx := context.Background()
	if res, err := cs.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), "catalog_unavailable") {
		t.Errorf("tools/list = %v, %v; want catalog_unavailable", res, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
	if err == nil && !res.IsError || runs.Load() != 0 {
		t.Errorf("tools/call = %+v, %v (tool ran %d times); want a refusal and no run", res, err, runs.Load())
	}
	if err != nil && !strings.Contains(err.Error(), "catalog_unavailable") {
		t.Errorf("tools/call error = %v, want catalog_unavailable", err)
	}
}

// NewServerCatalog refuses a nil server with ErrServerTools (its tools cannot be
// listed) and a nil context with an error matching discovery.ErrNilContext, before it
// adds middleware or opens a session; both had panicked. SPEC ERR-5.
func TestNewServerCatalogNil(t *testing.T) {
	var nilCtx context.Context
	for _, c := range []struct {
		name string
		ctx  context.Context
		s    *mcp.Server
		want error
	}{
		{"nil server", context.Background(), nil, mcpsdk.ErrServerTools},
		{"nil ctx", nilCtx, mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil), discovery.ErrNilContext},
	} {
		var c2 *mcpsdk.ServerCatalog
		err := nopanic.Call(func() (err error) {
			c2, err = mcpsdk.NewServerCatalog(c.ctx, c.s, nil)
			return err
		})
		if c2 != nil || !errors.Is(err, c.want) {
			t.Errorf("%s: NewServerCatalog = %v, %v; want nil and %v", c.name, c2, err, c.want)
		}
	}
}
