// Package mcpclient lets a client of the official MCP Go SDK call the discover method
// (multillm.tools.discover): request and result types that go-sdk's CallCustomMethod
// accepts, with the JSON tags of the wire (package discovery/wire has the same shapes
// for any other JSON-RPC client). It imports the SDK and discovery/wire only, none of
// the server side.
//
//	client := mcp.NewClient(impl, nil)
//	mcpclient.Register(client) // before Connect
//	cs, err := client.Connect(ctx, transport, nil)
//	for tool, err := range mcpclient.All(ctx, cs, &mcpclient.DiscoverParams{Query: "weather"}) { ... }
//
// A refusal by the server, of the discover method or of a tools/call
// (tool_not_granted, contract_changed, ...), reaches the client as the SDK's
// *jsonrpc.Error: errors.As gives it, its Message is the code word and its Data the
// JSON of wire.ErrorData. errors.Is against package discovery's codes does not see it:
// compare Message. Invalid arguments and safe mode's holds are no error: they come as
// a CallToolResult with IsError set.
package mcpclient

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery/wire"
)

// Method is the discover method's name, wire.Method.
const Method = wire.Method

// DiscoverParams are the params of a discover request, as wire.DiscoverParams, with
// MCP's _meta (the SDK may set it; the server ignores it).
type DiscoverParams struct {
	mcp.ParamsBase
	Query  string `json:"query"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// DiscoverResult is one page, as wire.DiscoverResult; the contract digest is in its
// _meta (see ContractDigest).
type DiscoverResult struct {
	mcp.ResultBase
	Tools      []json.RawMessage `json:"tools"`
	NextCursor string            `json:"nextCursor,omitempty"`
	TTLMs      int               `json:"ttlMs"`
	CacheScope string            `json:"cacheScope,omitempty"`
}

// ContractDigest returns the page's _meta.contract_digest (wire.MetaContractDigest), or "".
func (r *DiscoverResult) ContractDigest() string {
	s, _ := r.Meta[wire.MetaContractDigest].(string)
	return s
}

// Register lets c send the discover method (mcp.AddSendingCustomMethod); call it
// before c.Connect.
func Register(c *mcp.Client) error {
	return mcp.AddSendingCustomMethod[*DiscoverParams, *DiscoverResult](c, Method)
}

// Discover asks the server for one page. A refusal is a *jsonrpc.Error whose Message
// is the code word (invalid_params, invalid_cursor, ...; see package discovery/wire).
func Discover(ctx context.Context, cs *mcp.ClientSession, p *DiscoverParams) (*DiscoverResult, error) {
	return mcp.CallCustomMethod[*DiscoverParams, *DiscoverResult](ctx, cs, Method, p)
}

// All yields every tool of every page for p's query, following nextCursor; it stops
// at the first error, which it yields. p is not modified.
func All(ctx context.Context, cs *mcp.ClientSession, p *DiscoverParams) iter.Seq2[json.RawMessage, error] {
	return func(yield func(json.RawMessage, error) bool) {
		req := &DiscoverParams{Query: p.Query, Limit: p.Limit, Cursor: p.Cursor}
		for {
			page, err := Discover(ctx, cs, req)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, t := range page.Tools {
				if !yield(t, nil) {
					return
				}
			}
			if page.NextCursor == "" {
				return
			}
			req = &DiscoverParams{Query: p.Query, Limit: p.Limit, Cursor: page.NextCursor}
		}
	}
}
