package mcpsdk_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMiddlewareOverhead measures one tools/call from the go-sdk client over the
// in-memory transport: the bare go-sdk server, and the same server with the adapter
// (grant reread, decision, argument validation) and its transport wrapper.
func BenchmarkMiddlewareOverhead(b *testing.B) {
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "weather_get", Arguments: map[string]any{"city": "Oslo"}}
	for _, mode := range []string{"bare", "adapter"} {
		b.Run(mode, func(b *testing.B) {
			f := newFixture(b, fixtureOptions{enabled: mode == "adapter", principal: alice})
			if mode == "bare" && f.d.Enabled() {
				b.Fatal("bare server with the switch on")
			}
			cs := f.connect(b)
			if _, err := cs.CallTool(ctx, params); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("CallTool: %v %v", res, err)
				}
			}
			b.StopTimer()
			// The adapter's path rereads grants on every call (SPEC CALL-1); the bare one never.
			if reads := f.reads.n.Load(); (mode == "adapter") != (reads > int64(b.N)) {
				b.Fatalf("%s: %d grant reads for %d calls", mode, reads, b.N)
			}
		})
	}
}
