package plan_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/nopanic"
	"github.com/deferredtools/deferredtools/plan"
)

// A Planner without a Discoverer, the zero value or New(nil, ...), answers every method
// that needs one with ErrNoDiscoverer, which is also discovery.CodeCatalogUnavailable
// (503, as a Discoverer without a catalog answers): never a panic, never a plan that
// skipped the grants, never CallRun. CheckCall and the search answers refuse a nil
// Rendering with ErrNotRendered first, as before; a real Rendering made by another
// Planner still reaches the missing Discoverer. SPEC ERR-5, ERR-1.
func TestPlannerWithoutDiscoverer(t *testing.T) {
	fx := newRenderFixture(t)
	ctx := context.Background()
	_, ra, ro := clientSearchRenderings(t, fx)
	args := json.RawMessage(`{"query":"deploy"}`)
	for _, mk := range []struct {
		name string
		pl   func() *plan.Planner
	}{
		{"zero", func() *plan.Planner { return new(plan.Planner) }},
		{"New(nil, nil)", func() *plan.Planner { return plan.New(nil, nil) }},
		{"New(nil, policy)", func() *plan.Planner { return plan.New(nil, &plan.Policy{MinTools: 1, Search: plan.SearchClient}) }},
	} {
		for _, c := range []struct {
			name string
			call func(pl *plan.Planner) error
		}{
			{"Plan", func(pl *plan.Planner) error { _, err := pl.Plan(ctx, fx.p, plan.ModelCapabilities{}); return err }},
			{"Plan native", func(pl *plan.Planner) error {
				_, err := pl.Plan(ctx, fx.p, plan.ModelCapabilities{NativeToolSearch: true})
				return err
			}},
			{"Request", func(pl *plan.Planner) error { _, err := pl.Request(ctx, fx.p, plan.ModelCapabilities{}); return err }},
			{"Request anthropic", func(pl *plan.Planner) error {
				_, err := pl.Request(ctx, fx.p, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true})
				return err
			}},
			{"CheckCall", func(pl *plan.Planner) error { _, err := pl.CheckCall(ctx, fx.p, ra, ra.Deferred[0]); return err }},
			{"AnswerAnthropicSearch", func(pl *plan.Planner) error {
				_, _, err := pl.AnswerAnthropicSearch(ctx, fx.p, ra, "toolu_1", args)
				return err
			}},
			{"AnswerOpenAISearch", func(pl *plan.Planner) error {
				_, _, err := pl.AnswerOpenAISearch(ctx, fx.p, ro, "call_1", args)
				return err
			}},
		} {
			err := nopanic.Call(func() error {
				return c.call(mk.pl())
			})
			if !errors.Is(err, plan.ErrNoDiscoverer) || !errors.Is(err, discovery.CodeCatalogUnavailable) {
				t.Errorf("%s Planner: %s = %v, want ErrNoDiscoverer, also catalog_unavailable", mk.name, c.name, err)
			} else if got, want := err.Error(), "plan: no Discoverer: discovery: catalog_unavailable"; got != want {
				t.Errorf("%s Planner: %s error text %q, want %q", mk.name, c.name, got, want)
			}
		}
		// A nil Rendering is still refused as not rendered, before the Discoverer.
		if _, err := mk.pl().CheckCall(ctx, fx.p, nil, "x"); !errors.Is(err, plan.ErrNotRendered) {
			t.Errorf("%s Planner: CheckCall(nil Rendering) = %v, want ErrNotRendered", mk.name, err)
		}
	}
	// The answer maps to the catalog_unavailable status and JSON-RPC error.
	_, err := new(plan.Planner).Plan(ctx, fx.p, plan.ModelCapabilities{})
	if got := discovery.AppendJSONRPCError(nil, json.RawMessage(`1`), err); !json.Valid(got) ||
		string(got) != `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"catalog_unavailable","data":{"error":"catalog_unavailable","status":503}}}` {
		t.Errorf("AppendJSONRPCError(ErrNoDiscoverer) = %s", got)
	}
}
