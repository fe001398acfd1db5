package mcpsdk_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// SPEC CONTRACT-2, CALL-1: the discovery tool checks the contract pin before its
// arguments, as every tool does: invalid arguments with a stale pin answer
// contract_changed, the answer of the same stale pin with valid arguments, and
// invalid arguments with the right pin (or none) answer the invalid_params result.
// Before, invalid arguments with a stale pin answered invalid_params.
func TestDiscoveryToolPinFirst(t *testing.T) {
	ctx := context.Background()
	s := typedServer()
	sc := newServerCatalog(t, s, nil)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: sc, Grants: allowAll(t, "add", "echo", "simple_text")})
	cs := clashClient(t, s, d, "search_tools")
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	digest, _ := list.Meta[mcpsdk.MetaContractDigest].(string)
	stale := "sha256:" + strings.Repeat("0", 64)
	call := func(args map[string]any, pin string) (*mcp.CallToolResult, error) {
		p := &mcp.CallToolParams{Name: "search_tools", Arguments: args}
		if pin != "" {
			p.Meta = mcp.Meta{mcpsdk.MetaContractDigest: pin}
		}
		return cs.CallTool(ctx, p)
	}
	for _, args := range []map[string]any{{"query": "echo"}, {"query": ""}, {"query": "echo", "limit": 99}, {"nope": 1}} {
		_, err := call(args, stale)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Message != string(discovery.CodeContractChanged) {
			t.Errorf("discovery tool %v with a stale pin: %v, want contract_changed", args, err)
		}
	}
	for _, pin := range []string{digest, ""} {
		res, err := call(map[string]any{"query": ""}, pin)
		if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != string(discovery.CodeInvalidParams) {
			t.Errorf("discovery tool with invalid arguments, pin %q: %v %+v, want the invalid_params result", pin, err, res)
		}
	}
}
