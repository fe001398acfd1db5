package mcpgo_test

import (
	"context"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// SPEC CALL-1: a tool deleted from mcp-go's server while the catalog still holds it
// answers tool_not_granted, the answer of an unknown tool, when its arguments pass;
// before, mcp-go's "tool not found" (-32602) went out as invalid_params.
func TestRemovedToolAnswersNotGranted(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: mcpgo.StaticPrincipal(alice)})
	c := f.listen(t, context.Background())
	c.initialize()
	f.server.DeleteTools("weather_get")
	wantError(t, c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`, "1"), discovery.CodeToolNotGranted)
	if e := decodeError(t, c.call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_forecast","arguments":{"city":"Oslo"}}}`, "2")); e != nil {
		t.Errorf("weather_forecast after weather_get's removal: %+v", e)
	}
}
