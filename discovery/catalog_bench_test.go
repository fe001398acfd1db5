package discovery_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// BenchmarkNewCatalog measures compiling a catalog of 1,000 generated tools (1-7 KB
// each), the once-per-version cost that reading members exactly must not raise.
func BenchmarkNewCatalog(b *testing.B) {
	r := rand.New(rand.NewPCG(2026, 1000))
	tools := make([]json.RawMessage, 1000)
	for i := range tools {
		tools[i], _, _ = genTool(r, i, 1000+r.IntN(6000))
	}
	opts := &discovery.CatalogOptions{Limits: schemaguard.Limits{MaxBytes: 512 << 20, MaxNodes: 64 << 20}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := discovery.NewCatalog(tools, opts); err != nil {
			b.Fatal(err)
		}
	}
}
