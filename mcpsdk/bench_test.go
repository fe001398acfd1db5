package mcpsdk_test

import (
	"context"
	"encoding/json"
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

// BenchmarkMiddlewareOnly measures the adapter's own work per request, without the
// transport: the middleware around a next handler that answers at once.
func BenchmarkMiddlewareOnly(b *testing.B) {
	benchMiddleware(b, newFixture(b, fixtureOptions{enabled: true, principal: alice}))
}

// benchMiddleware runs BenchmarkMiddlewareOnly's tools/call and tools/list on f.
func benchMiddleware(b *testing.B, f *fixture) {
	ctx := context.Background()
	done := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	b.Run("tools/call", func(b *testing.B) {
		h := f.a.Middleware()(func(context.Context, string, mcp.Request) (mcp.Result, error) { return done, nil })
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "weather_get", Arguments: []byte(`{"city":"Oslo"}`)}}
		b.ReportAllocs()
		for b.Loop() {
			if res, err := h(ctx, "tools/call", req); err != nil || res != done {
				b.Fatalf("%v %v", res, err)
			}
		}
	})
	b.Run("tools/list", func(b *testing.B) {
		tools := make([]*mcp.Tool, 0, f.cat.Len())
		for _, n := range f.cat.Names() {
			tools = append(tools, &mcp.Tool{Name: n})
		}
		h := f.a.Middleware()(func(context.Context, string, mcp.Request) (mcp.Result, error) {
			return &mcp.ListToolsResult{Tools: tools}, nil
		})
		req := &mcp.ListToolsRequest{Params: &mcp.ListToolsParams{}}
		b.ReportAllocs()
		for b.Loop() {
			res, err := h(ctx, "tools/list", req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDiscoverInMemory measures one discover request from the go-sdk client over
// the in-memory transport wrapped by the adapter, whose front answers it from the
// request the SDK decoded.
func BenchmarkDiscoverInMemory(b *testing.B) {
	ctx := context.Background()
	f := newFixture(b, fixtureOptions{enabled: true, principal: alice})
	cs := f.connect(b)
	p := &discoverParams{Query: "weather", Limit: 2}
	if res, err := discover(ctx, cs, p); err != nil || len(res.Tools) == 0 {
		b.Fatalf("discover: %v %v", res, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := discover(ctx, cs, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWithDiscoveryTool measures the paths that decide the discovery tool's
// name (the Discoverer's ReserveToolName, once per catalog version) with the tool
// configured: the middleware alone (BenchmarkMiddlewareOnly's), and the discover method
// and the discovery tool from the go-sdk client over the in-memory transport.
func BenchmarkWithDiscoveryTool(b *testing.B) {
	ctx := context.Background()
	f := newFixture(b, fixtureOptions{enabled: true, principal: alice, tool: "search_tools"})
	b.Run("middleware", func(b *testing.B) { benchMiddleware(b, f) })
	cs := f.connect(b)
	b.Run("discover", func(b *testing.B) {
		p := &discoverParams{Query: "weather", Limit: 2}
		b.ReportAllocs()
		for b.Loop() {
			if res, err := discover(ctx, cs, p); err != nil || len(res.Tools) == 0 {
				b.Fatalf("discover: %v %v", res, err)
			}
		}
	})
	b.Run("discovery tool", func(b *testing.B) {
		p := &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "weather", "limit": 2}}
		b.ReportAllocs()
		for b.Loop() {
			if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
				b.Fatalf("discovery tool: %v %v", res, err)
			}
		}
	})
}
