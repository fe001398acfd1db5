// Package observe defines the content-free events a discovery.Discoverer reports to
// the hook discovery.Options.Observe, one per decision.
//
// An Event holds no content: never a query, arguments, a cursor, a tool name, a
// JSON-RPC id or a principal's ID or scopes, only what kind of decision it was, its
// outcome, what was served and the catalog version read, so it can be logged or
// exported as it is. Package otelmetrics turns the events into OpenTelemetry metrics.
package observe

import "time"

// An Op names the kind of decision an Event reports.
type Op string

// The decisions a Discoverer reports, one Event each, by the Discoverer's methods
// that make them.
const (
	// OpDiscover is a discover request: Discover, DiscoverParams, DiscoverFramed,
	// and HandleJSONRPC or AppendJSONRPC for a discover request with an id.
	OpDiscover Op = "discover"
	// OpDiscoverTool is a discovery tool's tools/call: DiscoverTool, DiscoverToolPinned,
	// DiscoverToolCall.
	OpDiscoverTool Op = "discover_tool"
	// OpList is a tools/list: ListTools.
	OpList Op = "list"
	// OpAuthorizeTool is a tools/call decided on the tool name alone: AuthorizeTool,
	// AuthorizeToolThen, AuthorizeActionThen. The adapters' fronts (mcpgo's; mcpsdk's
	// Transport and Handler) decide each tools/call so: a call refused on its
	// name reports this event alone, a granted one this and then OpAuthorizeCall, so
	// count calls by one op, not both. A call reaching mcpsdk's middleware without its
	// front reports OpAuthorizeCall alone, and a discovery tool call OpDiscoverTool.
	OpAuthorizeTool Op = "authorize_tool"
	// OpAuthorizeCall is a whole tools/call decision: AuthorizeCall, and the call
	// AuthorizeToolThen and AuthorizeActionThen return.
	OpAuthorizeCall Op = "authorize_call"
)

// An Event is one decision of a Discoverer, as discovery.Options.Observe receives it.
type Event struct {
	// Op is the kind of decision: which entry point made it.
	Op Op
	// Code is the refusal's code, the value of a discovery.Code (convert it with
	// discovery.Code(e.Code) to compare with the Code constants, or read its HTTP
	// status), or empty when the decision served or allowed. It is always the value of
	// one of the Code constants (discovery.Codes()): an error of the host's own
	// (CheckCall's) is tool_call_refused, any other error that carries no library
	// Code internal_error. (A string, not a discovery.Code: package discovery imports
	// this one.)
	Code string
	// Duration is the time the decision took, from the entry point's start to its
	// answer, the observer's own time excluded.
	Duration time.Duration
	// Tools is the number of tools served: on a page, or in a list; 0 otherwise.
	Tools int
	// Bytes is the size of what was served: a page's JSON (Result.AppendJSON), the
	// response AppendJSONRPC wrote (error responses included), or the sum of a list's
	// tool definitions; 0 for refusals of the other entry points and for
	// authorisation decisions.
	Bytes int
	// CatalogDigest names the catalog version the decision read: the contract digest
	// of the whole catalog (the ContractDigest ListTools serves while the switch is
	// off). Empty when the decision read none: it was refused before, the source had
	// none, or the switch is off for an authorisation.
	CatalogDigest string
}
