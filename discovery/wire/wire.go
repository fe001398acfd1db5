// Package wire holds the JSON shapes of the discover method (multillm.tools.discover)
// for clients: its params, its result and its errors, with the JSON tags of the wire.
// It imports only the standard library, so a client compiles none of the server side
// (ranking, validation, grants); package discovery's own types carry no tags because
// the server writes its pages by hand, within 64 KiB. A go-sdk client uses package
// mcpsdk/mcpclient, whose types wrap these for mcp.CallCustomMethod.
package wire

import "encoding/json"

// Method is the JSON-RPC method name of discovery (a host may rename it).
const Method = "multillm.tools.discover"

// MetaContractDigest is the _meta member that carries the contract digest: in discover
// and tools/list results, and, as a client's pin, in tools/call params.
const MetaContractDigest = "contract_digest"

// MaxLimit is the largest Limit a request may ask for, and the default.
const MaxLimit = 16

// DiscoverParams are the params of a discover request: Query is 1 to 500 Unicode code
// points without control characters; Limit 1 to MaxLimit (0: omitted, MaxLimit);
// Cursor the previous page's NextCursor (empty: the first page). Any other member is
// refused with invalid_params, except MCP's _meta, which the discover method ignores;
// as the discovery tool's arguments (search_tools), _meta is refused too.
type DiscoverParams struct {
	Query  string `json:"query"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// DiscoverResult is one page: whole tool definitions in rank order, the cursor of the
// next page (empty on the last), the cache hints of MCP 2026-07-28 (ttlMs 0,
// cacheScope "private": never serve a page from a cache) and the caller's contract
// digest in _meta. Cursors are opaque, bound to the request and expire after 120 s.
type DiscoverResult struct {
	Tools      []json.RawMessage `json:"tools"`
	NextCursor string            `json:"nextCursor,omitempty"`
	TTLMs      int               `json:"ttlMs"`
	CacheScope string            `json:"cacheScope,omitempty"`
	Meta       ResultMeta        `json:"_meta"`
}

// ResultMeta is the _meta of a discover result.
type ResultMeta struct {
	// ContractDigest is "sha256:" and the hex digest of the caller's authorised tool
	// contract; a tools/call may pin it in its own _meta.contract_digest.
	ContractDigest string `json:"contract_digest"`
}

// Request is a JSON-RPC 2.0 discover request. ID is a string or a number.
type Request struct {
	JSONRPC string          `json:"jsonrpc"` // "2.0"
	ID      any             `json:"id"`
	Method  string          `json:"method"`
	Params  *DiscoverParams `json:"params"`
}

// Response is a JSON-RPC 2.0 response to a discover request: Result or Error.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *DiscoverResult `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error the library writes: Message is the error's code word
// (tool_not_granted, invalid_cursor, ...), Code its JSON-RPC code and Data repeats the
// word with its HTTP status. It never carries the query, a cursor or arguments.
type Error struct {
	Code    int       `json:"code"`
	Message string    `json:"message"`
	Data    ErrorData `json:"data"`
}

// ErrorData is the data member of an Error.
type ErrorData struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// Error returns "wire: " and the code word.
func (e *Error) Error() string { return "wire: " + e.Message }
