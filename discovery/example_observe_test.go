package discovery_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
)

// An observer sees one content-free event per decision: what kind, its outcome, what
// was served, and the catalog version; never the query, the arguments or who asked.
// Package otelmetrics turns the events into OpenTelemetry metrics.
func Example_observe() {
	ctx := context.Background()
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"model_search","description":"Search the model registry.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"invoice_get","description":"Get an invoice.","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		panic(err)
	}
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: "ana", Tool: "model_search", Effect: grants.Allow, Revision: 1})
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store,
		Observe: func(_ context.Context, e observe.Event) {
			code := e.Code
			if code == "" {
				code = "ok"
			}
			fmt.Printf("%s %s: %d tools, %d bytes, catalog %s\n", e.Op, code, e.Tools, e.Bytes, e.CatalogDigest[:14])
		},
	})

	ana := grants.Principal{ID: "ana"}
	d.Discover(ctx, ana, discovery.Request{Query: "model registry"})
	d.Discover(ctx, ana, discovery.Request{Query: "model", Cursor: "not-a-cursor"})
	d.ListTools(ctx, ana)
	d.AuthorizeCall(ctx, ana, discovery.Call{Tool: "invoice_get"})
	// Output:
	// discover ok: 1 tools, 245 bytes, catalog sha256:9d7ce0a
	// discover invalid_cursor: 0 tools, 0 bytes, catalog sha256:9d7ce0a
	// list ok: 1 tools, 98 bytes, catalog sha256:9d7ce0a
	// authorize_call tool_not_granted: 0 tools, 0 bytes, catalog sha256:9d7ce0a
}
