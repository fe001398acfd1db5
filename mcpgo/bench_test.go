package mcpgo_test

import (
	"context"
	"testing"

	"github.com/deferredtools/deferredtools/mcpgo"
)

// BenchmarkStdio measures one request through Listen's front and mcp-go's stdio
// server over in-process pipes, with the discovery tool configured: the discover
// method and the discovery tool (answered by the front), a granted tools/call and
// tools/list (decided or narrowed by the front, run by mcp-go).
func BenchmarkStdio(b *testing.B) {
	f := newFixture(b, fixtureOptions{enabled: true, tool: "search_tools", principal: mcpgo.StaticPrincipal(alice)})
	c := f.listen(b, context.Background())
	c.initialize()
	for _, bc := range []struct{ name, msg string }{
		{"discover", `{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather","limit":2}}`},
		{"discovery tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather","limit":2}}}`},
		{"tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if e := decodeError(b, c.call(bc.msg, "1")); e != nil {
					b.Fatalf("%s: %+v", bc.name, e)
				}
			}
		})
	}
}
