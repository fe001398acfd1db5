package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/safemode"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// -safe-mode over a real stdio subprocess: a mutating demo tool answers a preview and a
// token and does not run; called again with the token in params._meta it runs; a token
// for other arguments is invalid_confirmation. A read-only tool and a tool named by
// -safe-mode-exempt run at once. -safe-mode-exempt alone is a usage error.
func TestSafeModeFlag(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, command(t, true, "-safe-mode", "-safe-mode-exempt", "datasets_create"))
	ran := func(res *mcp.CallToolResult) bool {
		return res != nil && !res.IsError && len(res.Content) == 1 &&
			strings.Contains(res.Content[0].(*mcp.TextContent).Text, "accepted the call")
	}
	args := map[string]any{"model": "acme/sentiment-small", "confirm": true}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "models_delete", Arguments: args})
	if err != nil || ran(res) || !res.IsError {
		t.Fatalf("models_delete under -safe-mode = %+v, %v, want a preview", res, err)
	}
	tok, _ := res.Meta[safemode.MetaKey].(string)
	text := res.Content[0].(*mcp.TextContent).Text
	want := "models_delete: Delete a model and every version of it.\nArguments given: confirm, model"
	if tok == "" || !strings.HasSuffix(text, want) || strings.Contains(text, "acme") {
		t.Fatalf("preview = %q (token %q), want one ending %q, with a token and no value", text, tok, want)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "models_delete", Meta: mcp.Meta{safemode.MetaKey: tok},
		Arguments: map[string]any{"model": "acme/other", "confirm": true}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != "invalid_confirmation" || strings.Contains(err.Error(), tok) {
		t.Errorf("token for other arguments = %v, want invalid_confirmation", err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "models_delete", Arguments: args, Meta: mcp.Meta{safemode.MetaKey: tok}})
	if err != nil || !ran(res) {
		t.Errorf("confirmed models_delete = %+v, %v, want it to run", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "models_get", Arguments: map[string]any{"model": "acme/x"}})
	if err != nil || !ran(res) {
		t.Errorf("read-only models_get = %+v, %v, want it to run", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "datasets_create", Arguments: map[string]any{
		"name": "reviews", "columns": []any{map[string]any{"name": "text", "type": "string"}}}})
	if err != nil || !ran(res) {
		t.Errorf("exempt datasets_create = %+v, %v, want it to run", res, err)
	}

	var stderr bytes.Buffer
	cmd := command(t, true, "-safe-mode-exempt", "x")
	cmd.Stderr, cmd.Stdin = &stderr, strings.NewReader("")
	if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "-safe-mode") {
		t.Errorf("-safe-mode-exempt alone: err %v, stderr %q, want a usage failure", err, stderr.String())
	}
}
