package mcpsdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/discovery/wire"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
	"github.com/deferredtools/deferredtools/safemode"
)

// MetaContractDigest is the _meta member that carries the contract digest: in
// tools/list results, and, as the client's pin, in tools/call params (SPEC CONTRACT-2).
const MetaContractDigest = wire.MetaContractDigest

// Middleware returns the receiving middleware: it narrows tools/list, gates
// tools/call, answers the discovery tool and passes every other method to next
// untouched. While the switch is off it is the identity (SPEC FLAG-2).
func (a *Adapter) Middleware() mcp.Middleware {
	if !a.d.Enabled() {
		return func(next mcp.MethodHandler) mcp.MethodHandler { return next }
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ctx.Value(serverListing{}) != nil {
				return next(ctx, method, req) // a ServerCatalog lists the server's tools
			}
			switch method {
			case "tools/list":
				return a.listTools(ctx, next, method, req)
			case "tools/call":
				if r, ok := req.(*mcp.CallToolRequest); ok {
					return a.callTool(ctx, next, method, r)
				}
				return nil, wireError(discovery.CodeToolNotGranted) // unreachable with the SDK: fail closed
			}
			return next(ctx, method, req)
		}
	}
}

// cacheScopePrivate is the SEP-2549 cacheScope of every narrowed tools/list result: the
// list is one principal's, so no shared cache may serve it to another. The result's
// ttlMs stays what the host's server set (ServerOptions.SetCacheable, else 0).
const cacheScopePrivate = "private"

// listTools narrows one page of the SDK's tools/list (SPEC VIS-3, PAGE-5) and marks it
// private.
func (a *Adapter) listTools(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	p, err := a.principal(ctx, req.GetExtra())
	if err != nil {
		return nil, rpcError(err, discovery.CodeUnauthenticated)
	}
	list, err := a.d.ListTools(ctx, p)
	if err != nil {
		return nil, rpcError(err, discovery.CodeGrantsUnavailable)
	}
	res, err := next(ctx, method, req)
	if err != nil {
		return nil, err
	}
	lr, ok := res.(*mcp.ListToolsResult)
	if !ok || lr == nil {
		// Another middleware changed the result's type: it cannot be narrowed, so
		// nothing is listed rather than everything.
		return nil, wireError(discovery.CodeCatalogUnavailable)
	}
	// A tool of the SDK's list is served as the definition the authorised list holds
	// for its name (a meta tool's narrowed to its served actions), if it holds one.
	out := &listResult{ListToolsResult: lr, tools: make([]json.RawMessage, 0, len(lr.Tools)+1)}
	for _, t := range lr.Tools {
		if t == nil || t.Name == a.opts.DiscoveryTool {
			continue
		}
		if def, ok := list.Tool(t.Name); ok {
			out.tools = append(out.tools, def)
		}
	}
	if a.toolDef != nil && lr.NextCursor == "" {
		out.tools = append(out.tools, a.toolDef)
	}
	if lr.Meta == nil {
		lr.Meta = mcp.Meta{}
	}
	lr.Meta[MetaContractDigest] = list.ContractDigest
	lr.CacheScope = cacheScopePrivate
	return out, nil
}

// listResult is a tools/list result whose tools are served as their canonical bytes.
// Embedding the SDK's result keeps the methods the SDK calls on results (its _meta
// annotations land in the embedded value), and MarshalJSON writes the embedded result
// with the canonical tools in place of its own.
type listResult struct {
	*mcp.ListToolsResult
	tools []json.RawMessage
}

// MarshalJSON writes the embedded result's members in their order, "tools" replaced
// by the canonical definitions.
func (r *listResult) MarshalJSON() ([]byte, error) {
	inner := *r.ListToolsResult
	inner.Tools = []*mcp.Tool{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as the SDK encodes: the canonical bytes stay as they are
	if err := enc.Encode(&inner); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(&buf)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("mcpsdk: tools/list result is not an object")
	}
	size := 16
	for _, t := range r.tools {
		size += len(t) + 1
	}
	out := make([]byte, 0, size+buf.Len()+64)
	out = append(out, '{')
	first, wroteTools := true, false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = strconv.AppendQuote(out, key)
		out = append(out, ':')
		if key == "tools" {
			out = appendTools(out, r.tools)
			wroteTools = true
			continue
		}
		out = append(out, v...)
	}
	if !wroteTools {
		if !first {
			out = append(out, ',')
		}
		out = append(out, `"tools":`...)
		out = appendTools(out, r.tools)
	}
	return append(out, '}'), nil
}

func appendTools(dst []byte, tools []json.RawMessage) []byte {
	dst = append(dst, '[')
	for i, t := range tools {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, t...)
	}
	return append(dst, ']')
}

// callTool gates one tools/call (SPEC CALL-1, CALL-2, CALL-6), holding it for
// confirmation in safe mode, or answers the discovery tool.
func (a *Adapter) callTool(ctx context.Context, next mcp.MethodHandler, method string, req *mcp.CallToolRequest) (mcp.Result, error) {
	params := req.Params
	if params == nil {
		return nil, wireError(discovery.CodeToolNotGranted)
	}
	p, err := a.principal(ctx, req.Extra)
	if err != nil {
		return nil, rpcError(err, discovery.CodeUnauthenticated)
	}
	pinValue, pinned := params.Meta[MetaContractDigest]
	pin, isString := pinValue.(string)
	badPin := pinned && !isString // a number, object, array, bool or null: invalid_params
	if a.toolDef != nil && params.Name == a.opts.DiscoveryTool {
		return a.discoveryTool(ctx, p, discovery.Call{Arguments: params.Arguments, ContractPin: pin, BadContractPin: badPin})
	}
	confirmation, _ := params.Meta[safemode.MetaKey].(string) // safe mode's token
	call := a.pending.take(req.Extra)                         // the front's decision on this request, if it made one
	if call == nil {
		call = a.d.AuthorizeCall
	}
	err = call(ctx, p, discovery.Call{Tool: params.Name, Arguments: params.Arguments, ContractPin: pin, BadContractPin: badPin, Confirmation: confirmation})
	if err != nil {
		var de *discovery.Error
		if errors.As(err, &de) && de.Code == discovery.CodeInvalidArguments {
			return invalidArguments(de), nil
		}
		if cr, ok := err.(*discovery.ConfirmationRequired); ok {
			return preview(cr), nil
		}
		return nil, rpcError(err, discovery.CodeCallRefused)
	}
	res, err := next(ctx, method, req)
	if err != nil {
		if unknownTool(err, params.Name) {
			// Removed from the server while the catalog still held it (see
			// ServerCatalog): the answer of any unknown tool (SPEC CALL-1).
			return nil, wireError(discovery.CodeToolNotGranted)
		}
		keepHostError(err) // the host's tool failed: its error goes out as it wrote it
		return res, err
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError && decodeFailure(r.GetError()) {
		// A typed tool's SDK could not decode arguments the schema allows (an integer
		// past int64, a number past float32): its error quotes them (SPEC ERR-2).
		return invalidArguments(&discovery.Error{Code: discovery.CodeInvalidArguments}), nil
	}
	return res, err
}

// unknownTool reports whether err is the SDK's answer to a call of a tool it does not
// have: -32602 with the message "unknown tool" and the quoted name (go-sdk v1.8.0
// Server.callTool; TestRemovedToolAnswersNotGranted fails if an upgrade changes it).
func unknownTool(err error, name string) bool {
	je, ok := err.(*jsonrpc.Error)
	return ok && je.Code == jsonrpc.CodeInvalidParams && je.Message == "unknown tool "+strconv.Quote(name)
}

// decodeFailure reports the error of a typed tool's result that says the SDK could
// not decode or validate the arguments: the JSON decoding error itself (the SDK's
// decoder reports encoding/json's types, unwrapped; a host error that wraps one is the
// host's), or the SDK's "validating/unmarshaling arguments" wrapping. Their texts
// quote argument values and member names.
func decodeFailure(err error) bool {
	switch err.(type) {
	case nil:
		return false
	case *json.UnmarshalTypeError, *json.SyntaxError, *json.InvalidUnmarshalError:
		return true
	}
	text := err.Error()
	return strings.HasPrefix(text, `validating "arguments": `) || strings.HasPrefix(text, "unmarshaling arguments: ")
}

// keepHostError lets err, the error a granted call's handler returned (the host's
// tool, or the SDK on its behalf), out of the outgoing filters as the SDK writes it
// (hostErrors), unless its code is one of JSON-RPC's protocol codes (-32700, -32600,
// -32601, -32602; the SDK's "unknown tool" is -32602): those are rewritten
// content-free like every SDK error. The host's tool never sees arguments the
// library rejected, so its text holds no library content (SPEC ERR-2).
func keepHostError(err error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	je, ok := err.(*jsonrpc.Error)
	if !ok { // written as its text, with the code of a *jsonrpc.Error it wraps (else 0)
		var inner *jsonrpc.Error
		je = &jsonrpc.Error{Message: err.Error()}
		if errors.As(err, &inner) {
			je.Code = inner.Code
		}
	}
	if !rpcwire.ProtocolCode(je.Code) {
		hostErrors.add(je)
	}
}

// invalidArguments is the tool result of a validation failure (SEP-1303): isError, and a
// text naming the keyword and the schema location, never a value (SPEC ERR-2).
func invalidArguments(e *discovery.Error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: rpcwire.InvalidArgumentsText(e)}}}
}

// preview is the tool result of a call safe mode holds (package safemode): isError,
// since nothing ran, so a client unaware of safe mode never takes it for the tool's
// result; the text says so and holds the preview; the token travels in the result's
// _meta[safemode.MetaKey] only, for the client (and the person confirming),
// not in the text the model reads. No structuredContent: it would have to match the
// tool's outputSchema.
func preview(cr *discovery.ConfirmationRequired) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Meta:    mcp.Meta{safemode.MetaKey: cr.Token},
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: cr.Text()}},
	}
}

// discoveryTool answers the discovery tool's call c: the discover method's semantics,
// the page as structured content. A contract pin that is not the principal's contract
// digest answers contract_changed, and one that is no string invalid_params, as
// errors, before the arguments are read, as for any tools/call (SPEC CONTRACT-2), and
// nothing is served; invalid arguments are an isError result.
func (a *Adapter) discoveryTool(ctx context.Context, p grants.Principal, c discovery.Call) (mcp.Result, error) {
	if len(c.Arguments) == 0 {
		c.Arguments = json.RawMessage("{}")
	}
	// Pages sized for this tool-result framing; the pin is checked before the arguments.
	res, err := a.d.DiscoverToolCall(ctx, p, c)
	if err != nil {
		var de *discovery.Error
		if errors.As(err, &de) && de.Code.JSONRPCCode() == discovery.CodeInvalidParams.JSONRPCCode() && !c.BadContractPin {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(de.Code)}}}, nil
		}
		return nil, rpcError(err, discovery.CodeGrantsUnavailable)
	}
	page := res.AppendJSON(nil)
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(page)}},
		StructuredContent: json.RawMessage(page),
	}, nil
}
