package observe_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
)

// An observer logging each decision: its op and outcome, with the HTTP status of a
// refusal's code (discovery.Code(e.Code)), what was served and the catalog version
// read; never what was asked or by whom. Package otelmetrics turns the events into
// OpenTelemetry metrics.
func Example() {
	ctx := context.Background()
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"model_search","description":"Search the model registry.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"invoice_get","description":"Get an invoice.","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		panic(err)
	}
	logEvent := func(_ context.Context, e observe.Event) {
		outcome := "ok"
		if e.Code != "" {
			outcome = fmt.Sprintf("%s (%d)", e.Code, discovery.Code(e.Code).Status())
		}
		catalog := "none"
		if e.CatalogDigest != "" {
			catalog = e.CatalogDigest[:14]
		}
		fmt.Printf("%s %s: %d tools, %d bytes, catalog %s\n", e.Op, outcome, e.Tools, e.Bytes, catalog)
	}
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: "ana", Tool: "model_search", Effect: grants.Allow, Revision: 1})
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, Observe: logEvent})

	ana := grants.Principal{ID: "ana"}
	d.Discover(ctx, ana, discovery.Request{Query: "model registry"})
	d.Discover(ctx, ana, discovery.Request{Query: "model", Cursor: "not-a-cursor"})
	d.Discover(ctx, ana, discovery.Request{Query: ""})
	d.ListTools(ctx, ana)
	d.AuthorizeCall(ctx, ana, discovery.Call{Tool: "invoice_get"})
	d.AuthorizeCall(ctx, ana, discovery.Call{Tool: "invoice_delete"})
	// Output:
	// discover ok: 1 tools, 245 bytes, catalog sha256:9d7ce0a
	// discover invalid_cursor (400): 0 tools, 0 bytes, catalog sha256:9d7ce0a
	// discover invalid_params (400): 0 tools, 0 bytes, catalog none
	// list ok: 1 tools, 98 bytes, catalog sha256:9d7ce0a
	// authorize_call tool_not_granted (403): 0 tools, 0 bytes, catalog sha256:9d7ce0a
	// authorize_call tool_not_granted (403): 0 tools, 0 bytes, catalog sha256:9d7ce0a
}
