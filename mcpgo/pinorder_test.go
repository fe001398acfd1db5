package mcpgo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// SPEC CONTRACT-2, CALL-1: the discovery tool checks the contract pin before its
// arguments, as every tool does: invalid arguments with a stale pin answer
// contract_changed; with no pin, the invalid_params result. Before, invalid arguments
// with a stale pin answered invalid_params.
func TestDiscoveryToolPinFirst(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools", principal: mcpgo.StaticPrincipal(alice)})
	c := f.listen(t, context.Background())
	c.initialize()
	stale := "sha256:" + strings.Repeat("0", 64)
	for i, args := range []string{`{"query":"weather"}`, `{"query":""}`, `{"query":"weather","limit":99}`, `{"nope":1}`} {
		id := string(rune('1' + i))
		resp := c.call(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"search_tools","arguments":`+args+`,"_meta":{"contract_digest":"`+stale+`"}}}`, id)
		wantError(t, resp, discovery.CodeContractChanged)
	}
	resp := c.call(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":""}}}`, "9")
	if !strings.Contains(string(resp), `"isError":true`) || !strings.Contains(string(resp), `invalid_params`) {
		t.Errorf("invalid arguments without a pin: %s, want the invalid_params result", resp)
	}
}
