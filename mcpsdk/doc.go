// Package mcpsdk wires a [discovery.Discoverer] into a server of the official MCP Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp): narrowed tools/list, gated tools/call,
// the discover method on stdio and streamable HTTP, and an optional discovery tool.
//
// Quick start (this is `quickStart` in quickstart_example_test.go, run by
// `Example_quickStart`; the README's "A go-sdk server with discovery" is the whole
// program):
//
//	server := mcp.NewServer(impl, nil)
//	mcp.AddTool(server, tool, handler)                    // the host's tools, as before
//	cat, err := mcpsdk.NewServerCatalog(ctx, server, nil) // the catalog from them, kept current
//	if err != nil {
//		return err
//	}
//	d := discovery.New(&discovery.Options{Enabled: discovery.SwitchFromEnv(nil, nil), Catalog: cat, Grants: store})
//	a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(p), DiscoveryTool: "search_tools"})
//	if err := a.Install(server); err != nil { // tools/list, tools/call, discovery tool
//		return err // ErrDiscoveryToolClash
//	}
//	return server.Run(ctx, a.Transport(stdio)) // stdio: &mcp.StdioTransport{}; the discover method is answered on it
//
// For streamable HTTP, wrap the SDK's handler: a.Handler(mcp.NewStreamableHTTPHandler(...)),
// behind the host's authentication (for example auth.RequireBearerToken, whose
// [auth.TokenInfo] the default [PrincipalFunc] reads).
//
// # Decisions where the requirements are silent
//
// While the switch is off ([discovery.Options].Enabled false) every piece is the
// identity: [Adapter.Install] adds no middleware, [Adapter.Transport] and
// [Adapter.Handler] return what they were given, the discovery tool is neither listed
// nor answered, and the grant store is never read (SPEC FLAG-2). The discover method
// then gets the SDK's own answer to a method it does not know: on stdio a JSON-RPC
// -32601 error, over streamable HTTP an HTTP 400 with a text/plain body and no
// JSON-RPC error (go-sdk v1.8.0), which a go-sdk client reports as "Bad Request".
//
// tools/list: the SDK's result is narrowed page by page: a tool stays when the
// principal's authorised set holds its name, and is then served as the catalog's RFC
// 8785 canonical definition, byte for byte the same as discover serves it (the JSON
// encoder of the SDK does not escape HTML). The result's other members (nextCursor,
// _meta, ttlMs, and any member a later SDK adds) are kept; _meta gains contract_digest,
// and cacheScope (SEP-2549) is "private" whatever the host's ServerOptions.SetCacheable
// chose, since the narrowed list is one principal's and no shared cache may serve it to
// another (the SDK itself caches results only in a client session, by cursor); over
// HTTP its Cache-Control says private and no-store, never public, whatever the handler
// behind set, and so do the adapter's own answers (discover pages, refusals). Only
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
// params._meta.contract_digest. A pin member that is no string (a number, object,
// array, bool, or null: null is refused, not read as absent) answers invalid_params
// (-32602, data.status 400; over HTTP in a 200 response, as every tools/call refusal),
// decided where the pin is, after the grants and before the arguments: a denied tool
// still answers tool_not_granted, and the tool never runs. An error of the host's CheckCall that is a
// *jsonrpc.Error goes out as it is; any other goes out as tool_call_refused (403),
// without its text.
//
// The discover method: the go-sdk refuses methods it does not know before any
// middleware runs. Its AddReceivingCustomMethod (v1.8.0) could route the method, but
// the handler would see neither the request id (the page could not be sized for the
// real id) nor the raw params (for the strict DISC-1 checks), so the method is
// answered below the SDK, by Transport and by Handler, straight from the message's
// bytes through Discoverer.AppendJSONRPC, which sizes each page for the request's real
// id (SPEC PAGE-1); on transports whose bytes the SDK decodes, from the decoded request
// through Discoverer.DiscoverFramed, given the length of the id as the SDK writes it.
// On HTTP, a discover refusal answers the error's HTTP status with the JSON-RPC error
// as an application/json body; a discover notification answers 202 with no body; a
// discover request whose Accept header does not take both application/json and
// text/event-stream goes on to the SDK's handler, which refuses it as any other
// method (400, invalid_request with its id once Handler has rewritten the text). The discover method needs no MCP session state, on any transport: it
// is answered even before initialize, and on HTTP without an Mcp-Session-Id; the
// principal comes from the PrincipalFunc (on HTTP, the request's authentication). On
// stdio, discover requests are answered concurrently with the SDK's work (up to 16 at
// a time per connection), so their responses may overtake earlier responses, as
// JSON-RPC allows.
//
// # The front: one bad message never takes a session down
//
// While the switch is on, Transport (for *mcp.StdioTransport and *mcp.IOTransport) and
// Handler read each raw message before the SDK does and decide it in this order (SPEC
// CALL-1, VIS-2, ERR-2). While it is off they are the identity (SPEC FLAG-2), and the
// SDK's own behaviour stands, ending a stdio session at a malformed line included.
//
//  1. Size. Stdio reads newline-delimited messages (MCP's stdio framing: no embedded
//     newlines; blank lines are skipped, CRLF is accepted) of at most the transport's
//     MaxLineLength (mcp.DefaultMaxLineLength, 16 MiB, when zero or negative: the
//     adapter never reads unbounded); a longer line is skipped to its newline without
//     being kept, so memory stays bounded by the cap (a 100 MiB line allocates about
//     twice the cap). HTTP reads at most Options.MaxRequestBodyBytes (4 MiB by
//     default, the SDK's own). Over the cap: message_too_large.
//  2. JSON and JSON-RPC shape: one JSON text (a grammar check with no depth limit of
//     its own), an object with unique member names, none of them a case twin of a
//     member the SDK reads ("Method" beside or instead of "method"; the go-sdk reads
//     names exactly, but both adapters refuse what any decoder could read another
//     way), "jsonrpc":"2.0", an id that is absent, null, a string or an integer
//     within ±2^53, a string method, and for a response a non-null id and an error
//     of the SDK's shape. Otherwise parse_error
//     (not JSON) or invalid_request (JSON the SDK would refuse or read two ways: its
//     decoder takes the last of repeated members). JSON-RPC batches are refused with
//     invalid_request: MCP dropped them in 2025-06-18, and the SDK's batch path ends
//     the session on any bad element.
//  3. tools/call is decided on params.name, read exactly (one member named "name", a
//     string, and name, arguments and _meta each at most once and in no other case,
//     and so are _meta's contract_digest and safe mode's token, which the SDK and a
//     scan could read two ways; otherwise invalid_params), with
//     Discoverer.AuthorizeActionThen, which rereads grants and applies Visibility: a tool the principal may not call is
//     refused (tool_not_granted, or unauthenticated, or the 503 of failing storage)
//     whatever its arguments, before anything decodes them: deep, long, mistyped, with
//     duplicate keys or invalid UTF-8, a denied call gets the same answer as with {}.
//     A meta tool (discovery.CatalogOptions.MetaTools) is decided here on its action
//     too, read alone from params.arguments: an
//     action not served is refused alike, whatever the other arguments.
//     A granted call goes on; the middleware then decides it in full (arguments,
//     contract pin, CheckCall, safe mode with the token of
//     params._meta[safemode.MetaKey]) from the same grant read, so each call
//     reads grants once. A typed tool (mcp.AddTool) whose SDK cannot decode arguments
//     the schema allows (an integer past int64, a number past float32) answers a tool
//     result with isError and the text "invalid arguments", never the SDK's decoding
//     error, which quotes them. A call safe mode holds answers a tool result with
//     isError, the preview as text and the token in the result's _meta only. A call
//     that reaches the middleware without the front's decision (a server without the
//     adapter's transport) is decided by AuthorizeCall, which reads them.
//  4. What the SDK would choke on: invalid UTF-8 (parse_error) and nesting deeper than
//     the SDK decoder's 1,000 (invalid_request). logging/setLevel must name one of
//     MCP's eight levels (invalid_params): the SDK takes any string and logs it.
//  5. The discover method is answered (above). On stdio, a call before initialize
//     (other than ping and the few methods MCP allows then, and SEP-2575 calls that
//     carry their protocol version) is refused here with internal_error, the answer
//     the SDK gives, because the SDK would also log the method name the client sent.
//     Everything else goes to the SDK.
//
// Each refusal is one JSON-RPC error in the adapter's content-free form,
// {"code":N,"message":"<code>","data":{"error":"<code>","status":S}}, with the
// message's id when it could be read and null otherwise (a malformed response, whose
// id names the client's own request, gets null too), and the session goes on: the
// next message is read and answered. On HTTP a malformed body answers 400 (413 over
// the cap) with that error as an application/json body; a tools/call refusal answers
// 200 with the error, as application/json, or as one text/event-stream event when the
// request's Accept takes only that (MCP clients read HTTP 401 and 403 as
// authorisation challenges, so refusals of a call stay JSON-RPC errors), but for one
// of the 503 family (grant storage or catalog unavailable), which answers 503 so
// (SPEC FLAG-3). So do tools/list and the discovery tool, which the SDK answers after
// the middleware reads grants: Handler holds the header of the SDK's event stream
// for them until its first event, and writes an error of the 503 family as an HTTP
// 503 application/json answer.
//
// On the way out, every JSON-RPC error response that is not the adapter's (its
// message one of the discovery.Code values, with their data exactly), the host's
// CheckCall *jsonrpc.Error, or the error a granted call's tool handler returned whose
// code is none of -32700, -32600, -32601 and -32602 (the handler never sees arguments
// the library rejected; the SDK's own "unknown tool", -32602, answering a tool removed
// from the server that the catalog still holds, becomes tool_not_granted, the answer
// of any unknown tool: see ServerCatalog for that window) is rewritten to the
// content-free error of its code (the host's are remembered by content when the
// middleware passes them, at most 1,024 distinct ones):
// -32700 parse_error, -32600 invalid_request, -32601 method_not_found, -32602
// invalid_params, -32603 (or none) internal_error, any other server_error with its
// code kept. The SDK's errors quote methods, raw params and argument values; none
// reaches the wire. This covers the stdio connection's writes, the message-level
// wrapper of other transports, and on HTTP the SDK's application/json bodies and each
// text/event-stream data event; a text/plain error body of the SDK's handler (its
// http.Error texts quote bodies, headers and methods) is replaced, for a 400 or 413
// answering a request with an id, by the content-free JSON-RPC error with that id
// (method_not_found, with the SDK's status 400, for a method it does not know;
// invalid_request or message_too_large otherwise), which the go-sdk client reads as a
// refused call without dropping its session, and in any other case by the status
// text.
// Host errors of other methods (prompts, resources) are rewritten too: the SDK's own
// errors of those methods quote URIs and names, and only the tools/call path tells
// the host's error from the SDK's.
//
// The end of input, and request ids: when a stdio (or other wrapped) connection's
// input ends, the SDK cancels the requests in flight and writes nothing more, so the
// connection reports the end to the SDK only once every request it read has its
// answer written (discover answers included); it stops waiting early when the
// server has a call of its own out to the client (roots, sampling, elicitation),
// which can no longer be answered, after [Options].DrainLimit, 10 s by default (a
// handler that never returns on its
// own is then cancelled by the SDK, unanswered), or when the connection is closed or
// Read's context ends. A request for the SDK whose id is the id of a request the SDK
// has not yet answered is refused with invalid_request and that id, because the SDK
// drops such a request without an answer (JSON-RPC ids must be unique among requests
// in flight); the discover method, answered by the front itself, is not checked.
// On HTTP the SDK's handler keeps that check its own.
//
// Other transports (in-memory, custom) get the message-level front: the SDK decodes
// their bytes itself, so step 1, 2 and 4 are its own, while steps 3 and 5 and the
// outgoing rewrite apply. Over any wrapped transport, a connection wrapper hides the
// inner connection's unexported SDK hooks (only batches depended on them).
//
// An Mcp-Protocol-Version header naming a version the SDK does not speak
// (mcp.SupportedProtocolVersions) is refused by Handler with a content-free 400
// invalid_request before the SDK, which would log the header's text.
//
// Known limits: on HTTP the SDK may still log, to the host's logger, the method name of
// a call that opens a session without initialize (a method the front let through is
// one the SDK knows, never arbitrary text). A tools/call refusal on HTTP is answered
// before the SDK checks the Mcp-Session-Id and protocol headers.
//
// The discover method's result carries "ttlMs":0 and "cacheScope":"private" (see the
// discovery package doc). The discovery tool answers with structuredContent holding the
// discover result without those hints (a tools/call result is not cacheable) and one
// text block with the same JSON (for clients that read only text); over HTTP its
// response, one principal's page, says Cache-Control private and no-store as
// tools/list does. Its invalid params and invalid cursor are tool results with isError
// true (the model can correct them); its other refusals are JSON-RPC errors like the
// method's, and so is a contract pin in params._meta that is not the principal's
// contract digest (contract_changed) or no string (invalid_params), checked before the
// arguments, as for any tools/call: a stale pin answers so whatever the arguments. Its
// pages come from discovery's DiscoverToolCall, which sizes them for a result that carries the page twice
// and a request id of up to 64 bytes, so a tool response stays within 64 KiB too. The
// front (Transport, Handler) therefore refuses a discovery tool call whose id, as the
// SDK writes it back (escapes decoded, U+2028 and U+2029 escaped), is longer than 64
// bytes, with the content-free invalid_request (-32600) and its id (null for an id too
// long for even that answer to stay within 64 KiB, as for the discover method; on
// transports whose bytes the SDK decodes, the SDK writes the id back as it is), on
// HTTP with status 200 like every tools/call refusal. Without the front (the
// middleware alone) a longer id may answer over 64 KiB, by at most its excess.
//
// The discovery tool's name is never a catalog tool's: Install refuses a
// DiscoveryTool the catalog holds (ErrDiscoveryToolClash), and while a catalog version
// swapped in later holds it (a tool of that name added to the server), tools/list, the
// discover method and calls of that name answer catalog_unavailable (503) until the
// version without it is served; calls of other tools go on. Otherwise calls of the
// name would run the discovery tool while discover served the catalog tool's schema.
// The adapter serves through d.ReserveToolName(DiscoveryTool), so the Discoverer
// decides this on the one catalog version each request uses (once per version): a
// catalog swapped between two reads cannot serve the name with two schemas.
//
// Long request ids: every refusal carries the request's id, as JSON-RPC asks, while
// the response stays within 64 KiB (discovery.MaxResponseBytes): an error response
// that its id alone would push past it (an id of about 65,400 bytes or more; the
// Discoverer's own errors of the discover method, over 65,280 bytes) is written as the
// fixed invalid_request (-32600) with a null id instead, whoever wrote the error (the
// front, the Discoverer, the middleware or the SDK), on stdio and HTTP (there with
// status 400 in place of an error status, 200 kept); other transports, whose bytes the
// SDK writes itself, are not fitted. This is the discover method's rule (SPEC PAGE-1),
// applied to every error alike, so that no refusal grows with an id past what a
// discovery response may be. Results (a tool's, an invalid arguments isError result,
// tools/list) carry the id whatever its length.
//
// A PrincipalFunc that fails refuses the request with unauthenticated (401), before
// anything is read.
//
// Install adds one middleware with Server.AddReceivingMiddleware; middleware added
// after it runs before it and sees its results. A middleware added before it that
// replaces the tools/list result with another type makes tools/list fail closed
// (catalog_unavailable), never list everything.
package mcpsdk
