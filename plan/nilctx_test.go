package plan_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/plan"
)

// A Planner passes its ctx to the Discoverer, which refuses a nil one: every entry
// point that reads grants answers internal_error wrapping discovery.ErrNilContext,
// never a panic in the grant store's ReadGrants (SPEC ERR-1).
func TestPlannerNilContextRefused(t *testing.T) {
	var nilCtx context.Context
	fx := newRenderFixture(t)
	pl, ra, ro := clientSearchRenderings(t, fx)
	args := json.RawMessage(`{"query":"deploy"}`)
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Plan", func() error { _, err := pl.Plan(nilCtx, fx.p, plan.ModelCapabilities{}); return err }},
		{"Request", func() error { _, err := pl.Request(nilCtx, fx.p, plan.ModelCapabilities{}); return err }},
		{"CheckCall", func() error { _, err := pl.CheckCall(nilCtx, fx.p, ra, ra.Deferred[0]); return err }},
		{"AnswerAnthropicSearch", func() error { _, _, err := pl.AnswerAnthropicSearch(nilCtx, fx.p, ra, "toolu_1", args); return err }},
		{"AnswerOpenAISearch", func() error { _, _, err := pl.AnswerOpenAISearch(nilCtx, fx.p, ro, "call_1", args); return err }},
	} {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return c.call()
		}()
		if !errors.Is(err, discovery.ErrNilContext) || !errors.Is(err, discovery.CodeInternal) {
			t.Errorf("%s(nil ctx) = %v, want internal_error wrapping discovery.ErrNilContext", c.name, err)
		}
	}
}

// clientSearchRenderings returns fx's Planner with client-executed search and
// namespaces, and its Anthropic and OpenAI client-search renderings for fx.p; it fails
// t when either fails or the fixture defers nothing (a test could then tell nothing).
func clientSearchRenderings(t testing.TB, fx *renderFixture) (pl *plan.Planner, ra, ro *plan.Rendering) {
	t.Helper()
	pl = fx.plannerNS(plan.SearchClient, plan.UndiscoveredAnswer, areaNamespace)
	ctx := context.Background()
	var err error
	if ra, err = pl.Request(ctx, fx.p, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, ClientToolSearch: true}); err != nil {
		t.Fatal(err)
	}
	if ro, err = pl.Request(ctx, fx.p, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, ClientToolSearch: true}); err != nil {
		t.Fatal(err)
	}
	if len(ra.Deferred) == 0 {
		t.Fatal("the fixture defers nothing: the test can tell nothing")
	}
	return pl, ra, ro
}
