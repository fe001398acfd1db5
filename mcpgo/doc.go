// Package mcpgo puts a [discovery.Discoverer] in front of a server of
// github.com/mark3labs/mcp-go (v1.2): narrowed tools/list with the contract digest,
// gated tools/call with the library's errors, the discover method on stdio and
// streamable HTTP, and an optional discovery tool.
//
// Quick start (this is `quickStart` in quickstart_example_test.go, run by
// `Example_quickStart`; the README's mcp-go section is the whole program):
//
//	s := server.NewMCPServer("weather", "v1") // the host's server and tools, as before
//	s.AddTool(tool, handler)
//	cat, err := mcpgo.CatalogFromServer(s, nil) // the catalog from the registered tools
//	if err != nil {
//		return err
//	}
//	d := discovery.New(&discovery.Options{Enabled: discovery.SwitchFromEnv(nil, nil), Catalog: cat, Grants: store})
//	a := mcpgo.New(d, &mcpgo.Options{DiscoveryTool: "search_tools"})
//	mux.Handle("/mcp", auth(a.Handler(server.NewStreamableHTTPServer(s)))) // auth calls mcpgo.WithPrincipal
//	// or over stdio, for the principal the host authenticated at launch:
//	a = mcpgo.New(d, &mcpgo.Options{Principal: mcpgo.StaticPrincipal(p), DiscoveryTool: "search_tools"})
//	return a.Listen(ctx, server.NewStdioServer(s), stdin, stdout) // a.ServeStdio(s): on os.Stdin and os.Stdout
//
// # How it works: a front, not middleware
//
// mcp-go's transports call MCPServer.HandleMessage directly and offer no hook that can
// answer a message with an error of the library's form (its tool filters refuse with
// -32602 "tool not found", quoting the name). So the adapter sits in front of mcp-go's
// transports: Handler wraps its *server.StreamableHTTPServer, and Listen (ServeStdio)
// runs its *server.StdioServer behind a reader and a writer of the adapter's. Every
// message is read by the adapter first, and every message mcp-go writes passes back
// through it; mcp-go keeps everything else (sessions, notifications, sampling and
// elicitation, protocol 2026-07-28). A server served any other way (mcp-go's SSE
// server, an in-process client) gets none of this: serve it only through Handler and
// Listen.
//
// While the switch is off ([discovery.Options].Enabled false) Handler returns mcp-go's
// handler itself, Listen is the stdio server's own Listen, and no grant is read (SPEC
// FLAG-2); the discover method then meets mcp-go's own -32601.
//
// # Decisions where the requirements are silent
//
// Reading the message as mcp-go will: mcp-go decodes with encoding/json, which matches
// member names case-insensitively and keeps the last of repeated ones. The front reads
// the envelope (jsonrpc, id, method, params, result, error) and the tools/call params
// (name, arguments, _meta, task, and in _meta the contract pin and safe mode's token)
// under the same folding, and refuses a message that names one of them twice or in
// another case (invalid_request, invalid_params):
// otherwise {"method":"tools/list","Method":"tools/call",...} would pass the front as a
// list and run in mcp-go as a call. A message that is not one JSON object with
// "jsonrpc":"2.0", a string method and an id that is absent, null, a string or an
// integer within ±2^53 is refused (parse_error for text that is not JSON or not UTF-8,
// invalid_request otherwise; batches too), with its id when it could be read.
//
// tools/call is decided by the front in full, from the raw message, before mcp-go
// decodes anything: the tool name, and a meta tool's action read alone from the raw
// arguments, with Discoverer.AuthorizeActionThen (a tool that is unknown, denied or
// withheld, or an action not served, is tool_not_granted, 403, whatever the other
// arguments: deep, long, mistyped, with duplicate keys or invalid UTF-8; SPEC CALL-1,
// VIS-2), then from the same grant read the contract pin
// (params._meta.contract_digest: a string; a pin member that is anything else, a
// number, object, array, bool or null, null not read as absent, answers
// invalid_params, -32602, data.status 400, over HTTP in a 200 response as every
// tools/call refusal), the arguments against the full schema, the host's
// CheckCall and, in safe mode, the confirmation token
// (params._meta[safemode.MetaKey]). A call safe mode holds is answered, as
// mcpsdk answers it, with a preview result: isError, the preview as text, the token in
// the result's _meta only. Refusals are JSON-RPC errors
// {"code","message","data":{"error","status"}}; invalid arguments (400) are a
// CallToolResult with isError true whose text names the failing keyword and its schema
// location, never a value (SEP-1303, SPEC ERR-2); a CheckCall error that is not a
// *discovery.Error is tool_call_refused (403), without its text. Only a call that
// passes reaches mcp-go. A tools/call notification (no id) is dropped: it would run
// nothing in mcp-go either. A typed handler's "failed to bind arguments" result
// (arguments the schema allows that its Go type cannot hold: the text quotes them) is
// replaced by the isError result "invalid arguments", in a tools/call response and, for
// a call run as a task (MCP's params.task), in the tasks/result response, whose _meta
// (the related task) is kept. Arguments holding a number past
// float64's range (1e999), which the library validates from its text (SPEC CALL-8)
// and a schema without bounds allows, pass the front but not mcp-go's decoder, which
// refuses the whole message: such a call answers the content-free invalid_request
// (-32600) and runs nothing (mcpsdk hands them to a raw handler as they are).
//
// tools/list: mcp-go's response is rewritten on its way out (a meta tool as served to
// the principal, its action enum narrowed to the served actions). A tool stays when the
// principal's authorised set holds it and is served as the catalog's RFC 8785
// canonical definition, byte for byte what discover serves (mcp-go's encoder would
// reorder members and escape HTML); the discovery tool, when configured, is appended
// to the last page. Every other member is kept (nextCursor, ttlMs, resultType, _meta's
// members); _meta gains contract_digest, and cacheScope (SEP-2549) is "private"
// whatever the host's WithCacheHints chose, since the list is one principal's; over
// HTTP its Cache-Control says private and no-store, never public, whatever the handler
// behind set, and so do the adapter's own answers (discover pages, refusals). A tool
// mcp-go registers but the catalog lacks is never listed: build the catalog from the
// server (CatalogFromServer) so both hold the same tools. A result the adapter cannot
// read as a tool list answers catalog_unavailable: nothing is listed rather than
// everything.
//
// The discover method is answered by the front from the message's bytes with
// Discoverer.AppendJSONRPC, the page sized for the request's real id (SPEC PAGE-1); it
// needs no MCP session (it is answered before initialize, and on HTTP without an
// Mcp-Session-Id). On HTTP a discover refusal answers its HTTP status; a tools/call
// answer is HTTP 200 (MCP clients read 401 and 403 as authorisation challenges), but
// for a refusal of the 503 family (grant storage or catalog unavailable), which
// answers 503 (SPEC FLAG-3); either is sent as
// application/json or, when the request's Accept takes only text/event-stream, as one
// event in an HTTP 200. On stdio discover requests are answered concurrently with mcp-go's work (up
// to 16 at a time), so their responses may overtake earlier ones, as JSON-RPC allows.
//
// The discovery tool answers with structuredContent holding the discover result
// without cache hints and one text block with the same JSON; its invalid params and
// invalid cursor are isError results, its other refusals errors, a contract pin that
// is not the principal's contract digest (contract_changed) or no string
// (invalid_params) among them, checked before the arguments, as for any tools/call.
// Its pages come from Discoverer.DiscoverToolCall, sized for a result that carries the page twice and a request
// id of up to 64 bytes, which the front writes back as sent: a call whose id is longer
// is refused with the content-free invalid_request (-32600) and its id (null for an id
// too long for even that answer to stay within 64 KiB, as for the discover method), on
// HTTP with status 200, so every discovery tool response stays within 64 KiB.
//
// The discovery tool's name is never a catalog tool's: Check, which Listen runs
// first, refuses a DiscoveryTool the catalog holds (ErrDiscoveryToolClash), and while a
// catalog version swapped in later holds it, tools/list, the discover method and calls
// of that name answer catalog_unavailable (503) until the version without it is
// served; calls of other tools go on. Otherwise calls of the name would run the
// discovery tool while discover served the catalog tool's schema. The adapter serves
// through d.ReserveToolName(DiscoveryTool), so the Discoverer decides this on the one
// catalog version each request uses (once per version): a catalog swapped between two
// reads cannot serve the name with two schemas.
//
// Long request ids: every refusal carries the request's id, as JSON-RPC asks, while
// the response stays within 64 KiB (discovery.MaxResponseBytes): an error response
// that its id alone would push past it (an id of about 65,400 bytes or more; the
// Discoverer's own errors of the discover method, over 65,280 bytes) is written as the
// fixed invalid_request (-32600) with a null id instead, whoever wrote
// the error (the front, the Discoverer or mcp-go), on stdio and HTTP (there with
// status 400 in place of an error status, 200 kept). This is the discover method's
// rule (SPEC PAGE-1), applied to every error alike. Results (a tool's, an invalid
// arguments isError result, tools/list) carry the id whatever its length.
//
// Outgoing errors: every JSON-RPC error mcp-go writes that is not the library's
// (message one of the discovery.Code values, data exactly {"error","status"}) is
// rewritten to the content-free error of its code (-32700 parse_error, -32600
// invalid_request, -32601 method_not_found, -32602 invalid_params, -32603
// internal_error, any other server_error with its code kept): mcp-go's errors quote
// tool names, prompt names, URIs and header values. One exception: in the response to
// a tools/call the front let through, an error whose code is none of -32700, -32600,
// -32601 and -32602 is the host's tool handler's (mcp-go writes a handler's error as
// -32603 with its text) and goes out as mcp-go wrote it: the handler never sees
// arguments the library rejected. In that response, mcp-go's "tool not found" (-32602,
// a tool deleted from the server that the catalog still holds, or one its tool
// filters hide; for a task-augmented call, MCP's params.task, also the unwrapped
// "tool '...' not found" of mcp-go's task path, for a tool deleted after its first
// lookup) becomes tool_not_granted, the answer of any unknown tool. On HTTP a text/plain error body of
// mcp-go's is replaced, for a 400 or 413 answering a request with an id, by the
// content-free JSON-RPC error with that id, else by the status text.
//
// Bounds: mcp-go reads stdio lines and HTTP bodies unbounded; the front reads at most
// Options.MaxLineBytes a line (16 MiB; a longer line is skipped to its newline without
// being kept) and Options.MaxRequestBodyBytes a body (4 MiB), answering
// message_too_large (413) beyond. One bad message never ends a session: it gets one
// content-free error and the next message is served.
//
// The end of stdio input: mcp-go cancels its requests and drops the tool calls queued
// for its workers once its input ends, so the front hands mcp-go the end only when
// every request it read has its answer written (discover answers included), unless
// mcp-go has a call of its own out to the client (which can no longer be answered),
// [Options].DrainLimit (10 s by default) has passed (a handler that never returns on
// its own is then cancelled by
// mcp-go, unanswered) or Listen's context ends. A request for mcp-go whose id is the
// id of a request mcp-go has not answered yet is refused with invalid_request and that
// id: two answers with one id could not be told apart (JSON-RPC ids must be unique
// among requests in flight). The discover method and the discovery tool, answered by
// the front itself, are not checked.
//
// Sessions: mcp-go ties no streamable HTTP session to the principal that opened it, so
// Handler binds each session id mcp-go issues to that principal's ID (the client sees
// the id, "." and an HMAC-SHA256 tag under a key made in memory) and answers a request
// naming another principal's session, or an id it did not issue, 404 Not Found before
// reading it: nobody posts into, listens on or ends another principal's session.
//
// The principal: a PrincipalFunc reads it from the request's context. On HTTP that is
// r.Context(), which mcp-go's handlers also see: put the host's authentication in front
// of Handler and have it call WithPrincipal (the default PrincipalFunc,
// PrincipalFromContext, reads it). On stdio it is the context given to Listen
// (ServeStdio's has none: use StaticPrincipal). A PrincipalFunc that fails answers
// tools/call, tools/list and the discover method with unauthenticated (401 on the
// discover method), listing and running nothing.
package mcpgo
