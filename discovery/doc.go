// Package discovery composes ranking, grants, cursors, validation and the canonical
// contract into the Discoverer: deferred tool discovery, narrowed tool lists and call
// authorisation for an MCP server or gateway, with no transport of its own.
//
// A host builds a [Catalog] of its tools once per catalog version with [NewCatalog], a
// [Discoverer] with [New], and for each authenticated principal calls:
//
//   - [Discoverer.Discover] (or [Discoverer.DiscoverParams], or
//     [Discoverer.HandleJSONRPC] for bytes in, bytes out with the HTTP status of the
//     answer, and [Discoverer.AppendJSONRPC] for the same into a reused buffer, or
//     [Discoverer.DiscoverFramed] for a request the host decoded itself, the page sized
//     for its id, or [Discoverer.DiscoverTool] for a discovery tool's tools/call, and
//     [Discoverer.DiscoverToolPinned] or [Discoverer.DiscoverToolCall] for one carrying
//     a contract pin) for
//     the multillm.tools.discover method: the best-matching tools for a few words, each
//     with its complete definition, a page of at most 64 KiB at a time;
//   - [Discoverer.ListTools] for tools/list: every tool the principal may see, and its
//     contract digest;
//   - [Discoverer.AuthorizeCall] before executing a tools/call: the grant is reread, the
//     arguments validated, the host's own check run (a transport that reads the raw
//     message can refuse earlier with [Discoverer.AuthorizeTool], on the tool name
//     alone, before it decodes the arguments, and [Discoverer.AuthorizeToolThen]
//     finishes that decision from the same grant read); in safe mode
//     ([Options].SafeMode, package safemode) it holds a mutating call until the call
//     comes back with its confirmation token.
//
// A host that serves a tool of its own beside the catalog (an adapter's discovery
// tool) serves through [Discoverer.ReserveToolName]: a catalog version holding that
// name is then refused (catalog_unavailable) by every request that would serve the
// name, decided on the one version the request uses, so no name is served with two
// schemas.
//
// Harnesses that decide per model request how tools reach the model use package plan,
// built on a Discoverer.
//
// # Decisions where the requirements are silent
//
// A query that is the whole name of a tool in the principal's authorised set (white
// space trimmed) answers that tool first, then ranking's other hits: a name ranking
// cannot read (stop words, a single letter) is still found by the name a client-side
// plan's catalog shows (SPEC PLAN-2).
//
// Tools are served in their RFC 8785 canonical form, so tools/list and discover serve
// the same bytes and the contract digest can be recomputed by any client. While the
// switch ([Options].Enabled, see [SwitchFromEnv]) is off, the Discoverer is
// transparent: Discover answers method_not_found, HandleJSONRPC leaves every message
// to the host, ListTools serves the whole catalog and AuthorizeCall allows every
// call, all without reading a grant. ListTools serves canonical forms even then; a
// host that must stay byte for byte what it was while off serves tools/list itself
// when Enabled reports false, as the mcpsdk adapter does. A tool withheld by
// Visibility is refused with tool_not_granted, the same answer as an unknown or
// denied tool, so a caller learns nothing from the difference. Absent call arguments
// are validated as {}. Discover sizes its pages for a JSON-RPC id of up to 64 bytes;
// HandleJSONRPC counts the real id, and DiscoverFramed the id length it is given.
//
// A discover result is {"tools":[...],"nextCursor"?:"...","ttlMs":0,
// "cacheScope":"private","_meta":{"contract_digest":"..."}}: DISC-3's members and the
// cache hints MCP 2026-07-28 (SEP-2549) requires on list results. A page is one
// principal's, so its scope is private; its ttl is 0 (stale at once), since a grant
// change can invalidate it at any moment (CURSOR-4) and a page costs microseconds to
// rebuild. The hints count against the 64 KiB page like every other member. The
// discovery tool's page (DiscoverTool) carries no hints: it travels in a tools/call
// result, which SEP-2549 does not cache, and a model reads it.
//
// Per catalog version the Discoverer precomputes canonical bytes, digests, sizes and
// the rank index, and keeps each tool's validator, which the default Compiler compiles
// at the tool's first call (a Compiler given in [CatalogOptions] compiles in
// [NewCatalog]); a host swapping versions at runtime (a
// [SwappableCatalog]) builds the next with [CatalogOptions].Previous set to the
// current one, which reuses all of it for the tools whose text is unchanged; per
// grant rows and principal it caches the authorised set, its contract digest and the
// digest of the observed rows, within [Options].CacheBytes. A discover request whose
// authorised set is cached allocates nothing that grows with the catalog.
//
// # Meta tools
//
// A meta tool serves one resource through several actions chosen by one argument
// (gitlab_issue with action create, list or close); [CatalogOptions].MetaTools declares
// them, in code or read from a file by metatool.Parse (package metatool). Each action
// has an ID, tool name + "." + action (gitlab_issue.create), which grant rows and
// Visibility.Exclude name like a tool; a row naming the meta tool itself
// decides nothing, and excluding it withholds every action. Rows name exactly: there is
// no wildcard, and an action ID that is another tool's name refuses the catalog. An
// action is served when its ID is granted (GRANT-2) and visible: not excluded, and
// under ReadOnly read-only by its own hint, else the tool's. The tool is listed and
// discoverable when one action is served, and it is served narrowed: the enum of its
// action argument holds the served actions alone, so a served schema is the enforced
// one, the contract digest (a digest of the served definitions, CONTRACT-2) and so the
// cursors change with any action's grant, and a client recomputes the digest from what
// it was served. A call is decided on its action before anything else: read alone from
// the raw arguments, it must be one string member named exactly as the argument, naming
// a served action; anything else (an action not granted, withheld or undeclared, none,
// two, another type, arguments that are no JSON object) answers tool_not_granted, the
// one answer of an unknown or denied tool, so a caller cannot tell an undeclared action
// from a denied one, and the other arguments never change it. The enum's values are
// left out of the tool's text for ranking, since not every caller is served them
// (DISC-5).
//
// # Observing decisions
//
// [Options].Observe, when set, receives one content-free observe.Event (package
// observe) per decision of the entry points above: its observe.Op, the refusal's
// [Code] value (empty when served or allowed), its duration, the tools and bytes
// served and the catalog version's digest, never a query, arguments, a cursor, a tool
// name or a principal. It is called on the request's goroutine before the entry point
// returns, and a panic in it is recovered and dropped; unset, it costs a nil check.
// Package otelmetrics turns the events into OpenTelemetry metrics.
//
// # Errors
//
// Every refusal is an [*Error] carrying a [Code], one of the Code constants: the word
// on the wire, with its HTTP status (Code.Status) and JSON-RPC code
// (Code.JSONRPCCode), the one table of every code the library writes, the mcpsdk
// adapter's included (SPEC ERR-1). Test a refusal with errors.Is(err,
// CodeToolNotGranted); read its Keyword and Path with errors.As. Its text is the
// fixed "discovery: " + code, never arguments, schema text, storage text, the query
// or a cursor (SPEC ERR-2). Some answers of [Discoverer.AuthorizeCall] are not an
// *Error: the error of the host's own Options.CheckCall or safe mode's Preview,
// returned unchanged (the mcpsdk adapter writes it as tool_call_refused unless it is
// a *jsonrpc.Error), and safe mode's [*ConfirmationRequired], which errors.Is
// reports as CodeConfirmationRequired. [AppendJSONRPCError] writes any error as a JSON-RPC error
// response, a foreign one as internal_error. Catalog construction is refused apart,
// with a [*CatalogError]. A nil context.Context is refused at every Discoverer entry
// point, before anything is read or observed, with internal_error wrapping
// [ErrNilContext] (a Planner passes its ctx on, so it answers the same).
package discovery
