package mcpgo

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
)

// SPEC CALL-1, ERR-2: in the response to a call the front let through, mcp-go's own
// refusal of a tool it does not have (-32602 wrapping server.ErrToolNotFound) answers
// tool_not_granted, and nothing else does: another -32602 of mcp-go is rewritten
// content-free, and the host handler's error that ends in the same words (mcp-go
// writes it -32603) goes out as the host wrote it. Outside a call's response the
// refusal is rewritten content-free like any mcp-go error.
func TestCleanErrorToolNotFound(t *testing.T) {
	notGranted := string(appendError(nil, []byte(`7`), discovery.CodeToolNotGranted))
	notFound := `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"tool 'gone' not found: ` + server.ErrToolNotFound.Error() + `"}}`
	if out, _ := cleanError([]byte(notFound), true); string(out) != notGranted {
		t.Errorf("mcp-go's tool not found: %s, want %s", out, notGranted)
	}
	other := `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"tool 'gone' requires a cursor"}}`
	if out, changed := cleanError([]byte(other), true); !changed || string(out) == notGranted || strings.Contains(string(out), "gone") {
		t.Errorf("another -32602 of mcp-go: %s (changed %v), want it rewritten content-free, not tool_not_granted", out, changed)
	}
	host := `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"upstream: tool not found"}}`
	if out, changed := cleanError([]byte(host), true); changed {
		t.Errorf("the host handler's error: rewritten to %s, want it kept as written", out)
	}
	if out, changed := cleanError([]byte(notFound), false); !changed || string(out) == notGranted || strings.Contains(string(out), "gone") {
		t.Errorf("the refusal outside a call's response: %s (changed %v), want it rewritten content-free", out, changed)
	}
}
