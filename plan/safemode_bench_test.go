package plan_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/plan"
	"github.com/deferredtools/deferredtools/safemode"
)

// BenchmarkPlanSafeMode measures a client-side plan over 1,000 authorised tools, every
// one deferred, with safe mode on: each plan asks its ListResult which lines to mark.
func BenchmarkPlanSafeMode(b *testing.B) {
	tools := genTools(rand.New(rand.NewPCG(1, 2)), 1000)
	for i := range tools {
		tools[i].Meta = ""
	}
	f := newPlanFixture(b, tools, nil, discovery.Visibility{}, nil)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: f.cat, Grants: f.store, SafeMode: safemode.Options{Enabled: true}})
	pl := plan.New(d, nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pl.Plan(context.Background(), f.p, plan.ModelCapabilities{}); err != nil {
			b.Fatal(err)
		}
	}
}
