// Package mcpsdk wires a discovery.Discoverer into a server of the official MCP Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp): narrowed tools/list, gated tools/call,
// the discover method on stdio and streamable HTTP, and an optional discovery tool.
//
// Quick start:
//
//	d := discovery.New(&discovery.Options{Enabled: discovery.SwitchFromEnv(nil, nil), Catalog: cat, Grants: store})
//	a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(p), DiscoveryTool: "search_tools"})
//	server := mcp.NewServer(impl, nil)
//	// ... server.AddTool for every catalog tool ...
//	a.Install(server)                                      // tools/list, tools/call, discovery tool
//	err := server.Run(ctx, a.Transport(&mcp.StdioTransport{})) // the discover method on stdio
//
// For streamable HTTP, wrap the SDK's handler: a.Handler(mcp.NewStreamableHTTPHandler(...)),
// behind the host's authentication (for example auth.RequireBearerToken, whose
// auth.TokenInfo the default PrincipalFunc reads).
//
// # Decisions where the requirements are silent
//
// While the switch is off (discovery.Options.Enabled false) every piece is the identity:
// Install adds no middleware, Transport and Handler return what they were given, the
// discovery tool is neither listed nor answered, and the grant store is never read
// (SPEC FLAG-2). The discover method then meets the SDK's own -32601.
//
// tools/list: the SDK's result is narrowed page by page: a tool stays when the
// principal's authorised set holds its name, and is then served as the catalog's RFC
// 8785 canonical definition, byte for byte the same as discover serves it (the JSON
// encoder of the SDK does not escape HTML). The result's other members (nextCursor,
// _meta, ttlMs, and any member a later SDK adds) are kept; _meta gains contract_digest,
// and cacheScope (SEP-2549) is "private" whatever the host's ServerOptions.SetCacheable
// chose, since the narrowed list is one principal's and no shared cache may serve it to
// another (the SDK itself caches results only in a client session, by cursor). Only
// the member order of the result object may differ from what the SDK alone would
// write. The discovery tool, when configured, is appended to the last page. A tool the
// SDK registers but the catalog lacks is never listed, and a catalog tool the SDK does
// not register is not listed either (it could not be called); register every catalog
// tool so that the listed set and the contract digest describe the same tools.
//
// tools/call: refusals (tool_not_granted 403, contract_changed 409, the 503 family) are
// JSON-RPC errors {"code","message","data":{"error","status"}} decided before the
// arguments are decoded; invalid arguments (400) are a CallToolResult with isError
// true whose text names the failing keyword and its schema location, never a value
// (SEP-1303, SPEC ERR-2). A client may pin the contract it expects with the string
// params._meta.contract_digest. An error of the host's CheckCall that is a
// *jsonrpc.Error goes out as it is; any other goes out as tool_call_refused (403),
// without its text.
//
// The discover method: the go-sdk refuses methods it does not know before any
// middleware runs. Its AddReceivingCustomMethod (v1.8.0) could route the method, but
// the handler would see neither the request id (the page could not be sized for the
// real id) nor the raw params (for the strict DISC-1 checks), so the method is
// answered below the SDK, by Transport (any
// mcp.Transport: stdio, in-memory, io) and by Handler (streamable HTTP), through
// Discoverer.HandleJSONRPC, which sizes each page for the request's real id (SPEC
// PAGE-1). The response bytes are written as HandleJSONRPC built them (the SDK
// re-encodes the id, the same way the id was encoded for the size accounting). On
// HTTP, a discover refusal answers the error's HTTP status with the JSON-RPC error as
// an application/json body; a discover notification answers 202 with no body. The
// discover method needs no MCP session state, on any transport: it is answered even
// before initialize, and on HTTP without an Mcp-Session-Id; the principal comes from
// the PrincipalFunc (on HTTP, the request's authentication). On stdio, discover
// requests are answered concurrently with the SDK's work (up to 16 at a time per
// connection), so their responses may overtake earlier responses, as JSON-RPC allows. A discover request inside a JSON-RPC batch is left to the
// SDK (which answers -32601). Over Transport, a connection wrapper hides the inner
// connection's unexported SDK hooks; the only effect is that the SDK no longer refuses
// JSON-RPC batches on protocol versions that dropped them.
//
// The discover method's result carries "ttlMs":0 and "cacheScope":"private" (see the
// discovery package doc). The discovery tool answers with structuredContent holding the
// discover result without those hints (a tools/call result is not cacheable) and one
// text block with the same JSON (for clients that read only text). Its invalid
// params and invalid cursor are tool results with isError true (the model can correct
// them); its other refusals are JSON-RPC errors like the method's. Its pages come from
// discovery's DiscoverTool, which sizes them for a result that carries the page twice,
// so a tool response stays within 64 KiB too (for request ids of up to
// discovery.MaxIDBytes bytes).
//
// A PrincipalFunc that fails refuses the request with unauthenticated (401), before
// anything is read.
//
// Install adds one middleware with Server.AddReceivingMiddleware; middleware added
// after it runs before it and sees its results. A middleware added before it that
// replaces the tools/list result with another type makes tools/list fail closed
// (catalog_unavailable), never list everything.
package mcpsdk
