package otelmetrics_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/otelmetrics"
	"github.com/deferredtools/deferredtools/plan"
)

// A Discoverer's decisions counted by op and code, read back through the SDK's manual
// reader (a real host registers an exporter's reader instead) by printDecisions.
func Example() {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	m, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	if err != nil {
		panic(err)
	}
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"model_search","description":"Search the model registry.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"invoice_get","description":"Get an invoice.","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		panic(err)
	}
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: "ana", Tool: "model_search", Effect: grants.Allow, Revision: 1})
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, Observe: m.Observe})

	ana := grants.Principal{ID: "ana"}
	d.Discover(ctx, ana, discovery.Request{Query: "model registry"})
	d.AuthorizeCall(ctx, ana, discovery.Call{Tool: "model_search"})
	d.AuthorizeCall(ctx, ana, discovery.Call{Tool: "invoice_get"})

	printDecisions(ctx, reader)
	// Unordered output:
	// discover ok: 1
	// authorize_call ok: 1
	// authorize_call tool_not_granted: 1
}

// A gateway's Planner reports through the Discoverer it was built on: each Request
// (and Plan) lists the principal's tools (list), each CheckCall decides the tool on
// its name (authorize_tool), and each answer of a host-run search
// (AnswerAnthropicSearch, AnswerOpenAISearch) is a discovery tool call
// (discover_tool). Count model requests by list on a Discoverer only a Planner uses.
func Example_planner() {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	m, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	if err != nil {
		panic(err)
	}
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"model_search","description":"Search the model registry.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"model_deploy","description":"Deploy a model.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"invoice_get","description":"Get an invoice.","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		panic(err)
	}
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: "ana", Tool: "model_search", Effect: grants.Allow})
	store.Put(ctx, grants.Row{Principal: "ana", Tool: "model_deploy", Effect: grants.Allow})
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, Observe: m.Observe})
	pl := plan.New(d, &plan.Policy{MinTools: 1})

	ana := grants.Principal{ID: "ana"}
	claude := plan.ModelCapabilities{Provider: plan.ProviderAnthropic, ClientToolSearch: true}
	r, err := pl.Request(ctx, ana, claude)
	if err != nil {
		panic(err)
	}
	pl.CheckCall(ctx, ana, r, "model_deploy")
	pl.CheckCall(ctx, ana, r, "invoice_get")
	pl.AnswerAnthropicSearch(ctx, ana, r, "toolu_1", json.RawMessage(`{"query":"deploy a model"}`))
	pl.Request(ctx, ana, plan.ModelCapabilities{}) // the next request, to another model

	printDecisions(ctx, reader)
	// Unordered output:
	// list ok: 2
	// authorize_tool ok: 1
	// authorize_tool tool_not_granted: 1
	// discover_tool ok: 1
}

// printDecisions collects reader's metrics and prints each data point of the
// deferredtools.decisions counter: its op, its code and its count.
func printDecisions(ctx context.Context, reader *sdkmetric.ManualReader) {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		panic(err)
	}
	for _, metric := range rm.ScopeMetrics[0].Metrics {
		if metric.Name != "deferredtools.decisions" {
			continue
		}
		for _, dp := range metric.Data.(metricdata.Sum[int64]).DataPoints {
			op, _ := dp.Attributes.Value(otelmetrics.OpKey)
			code, _ := dp.Attributes.Value(otelmetrics.CodeKey)
			fmt.Printf("%s %s: %d\n", op.AsString(), code.AsString(), dp.Value)
		}
	}
}
