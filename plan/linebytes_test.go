package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/plan"
)

// Policy.LineBytes's doc: zero means DefaultLineBytes (120), values below 3 are raised
// to 3, and the bound counts the "..." that marks a cut.
func TestLineBytesDefaultAndFloor(t *testing.T) {
	long := strings.Repeat("x", 300) // one word: the cut falls at the bound, not a space
	f := newPlanFixture(t, []planTool{{Name: "a_tool", Description: long}, {Name: "b_tool", Description: "Plain."}}, nil, discovery.Visibility{}, nil)
	for _, c := range []struct {
		lineBytes, want int
	}{{0, plan.DefaultLineBytes}, {-5, 3}, {1, 3}, {3, 3}, {40, 40}} {
		tp, err := plan.New(f.d, &plan.Policy{MinTools: 1, LineBytes: c.lineBytes}).Plan(context.Background(), f.p, plan.ModelCapabilities{})
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, line := range strings.Split(tp.Catalog, "\n") {
			if t, ok := strings.CutPrefix(line, "- a_tool: "); ok {
				text = t
			}
		}
		if len(text) != c.want || !strings.HasSuffix(text, "...") {
			t.Errorf("LineBytes %d: a_tool's line text is %d bytes (%q), want %d ending in \"...\"", c.lineBytes, len(text), text, c.want)
		}
	}
	if plan.DefaultLineBytes != 120 {
		t.Errorf("DefaultLineBytes = %d; the README says catalog lines of 120 bytes", plan.DefaultLineBytes)
	}
}
