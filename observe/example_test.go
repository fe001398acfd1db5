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
// refusal's code (discovery.Code(e.Code)); never what was asked or by whom.
func Example() {
	ctx := context.Background()
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"invoice_get","description":"Get an invoice.","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		panic(err)
	}
	logEvent := func(_ context.Context, e observe.Event) {
		if e.Code == "" {
			fmt.Printf("%s: ok, %d tools\n", e.Op, e.Tools)
			return
		}
		fmt.Printf("%s: %s (%d)\n", e.Op, e.Code, discovery.Code(e.Code).Status())
	}
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: "ana", Tool: "invoice_get", Effect: grants.Allow, Revision: 1})
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, Observe: logEvent})

	ana := grants.Principal{ID: "ana"}
	d.ListTools(ctx, ana)
	d.Discover(ctx, ana, discovery.Request{Query: ""})
	d.AuthorizeCall(ctx, ana, discovery.Call{Tool: "invoice_delete"})
	// Output:
	// list: ok, 1 tools
	// discover: invalid_params (400)
	// authorize_call: tool_not_granted (403)
}
