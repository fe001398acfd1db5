package plan_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/plan"
)

// CheckCall's doc: "On PathOpenAIClient the model searches with a tool_search_call
// item, for AnswerOpenAISearch, not a function call: CheckCall refuses the name
// "tool_search" as any tool the catalog lacks" (tool_not_granted, SPEC CALL-1).
func TestCheckCallOpenAIClientToolSearchName(t *testing.T) {
	f := attackFixture(t, 12)
	ctx := context.Background()
	pl := plan.New(f.d, &plan.Policy{Search: plan.SearchClient})
	r, err := pl.Request(ctx, f.p, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, ClientToolSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != plan.PathOpenAIClient || r.SearchTool != "tool_search" || len(r.Deferred) == 0 {
		t.Fatalf("path %v, search tool %q, %d deferred; want PathOpenAIClient deferring behind tool_search", r.Path, r.SearchTool, len(r.Deferred))
	}
	cc, err := pl.CheckCall(ctx, f.p, r, "tool_search")
	if cc != nil || !errors.Is(err, discovery.CodeToolNotGranted) {
		t.Errorf("CheckCall(tool_search) on PathOpenAIClient = %+v, %v; want tool_not_granted", cc, err)
	}
	// The same refusal as a name the catalog lacks.
	if _, want := pl.CheckCall(ctx, f.p, r, "no_such_tool"); !errors.Is(want, discovery.CodeToolNotGranted) {
		t.Errorf("CheckCall(no_such_tool) = %v, want tool_not_granted", want)
	}
}
