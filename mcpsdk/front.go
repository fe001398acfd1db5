package mcpsdk

import (
	"context"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
)

// The front: what Transport and Handler do with one raw message before the SDK sees it.

// action is the front's verdict on one message.
type action int

const (
	passOn   action = iota // hand the message to the SDK
	answered               // the front wrote the answer (maybe none, for a notification)
	discover               // a discover call: answer it with answerDiscover
)

// answerKind says which kind of answer the front wrote, for the HTTP status.
type answerKind int

const (
	malformed   answerKind = iota // a message the SDK cannot take: the fault's status
	callRefused                   // a tools/call refusal: HTTP 200, like every tool error
)

// screen decides one raw message (SPEC CALL-1, VIS-2, ERR-2). Malformed messages are
// answered with a content-free error carrying the id when it could be read; a
// tools/call whose tool the principal may not call is refused on its name alone, before
// the arguments are decoded, so a denied tool gets the same refusal whatever its
// arguments (deep, long, mistyped, with duplicate keys, not UTF-8); the discover method
// is left to answerDiscover; every other message, vetted, goes on to the SDK. The
// answer is appended to dst.
func (a *Adapter) screen(ctx context.Context, extra *mcp.RequestExtra, msg, dst []byte) (resp []byte, act action, kind answerKind, env envelope) {
	env, fault := parseEnvelope(msg)
	if fault != nil {
		return discovery.AppendJSONRPCError(dst, env.id, fault), answered, malformed, env
	}
	if env.hasMethod && env.method == "tools/call" && env.id != nil {
		if resp, refused := a.precall(ctx, extra, env, dst); refused {
			return resp, answered, callRefused, env
		}
	}
	switch {
	case env.hasMethod && env.method == "logging/setLevel" && !validLevel(env.params):
		// The SDK takes any string and logs it at Info: only MCP's levels pass.
		return discovery.AppendJSONRPCError(dst, env.id, discovery.ErrInvalidParams), answered, malformed, env
	case !utf8.Valid(msg):
		return discovery.AppendJSONRPCError(dst, env.id, faultParse), answered, malformed, env
	case env.depth > maxDepth:
		return discovery.AppendJSONRPCError(dst, env.id, faultInvalid), answered, malformed, env
	case env.hasMethod && env.method == a.d.Method():
		return dst, discover, malformed, env
	}
	return dst, passOn, malformed, env
}

// precall decides a tools/call on its tool name (SPEC CALL-1): a name that is not one
// string is invalid params, an unauthenticated caller is refused, and a tool the
// principal may not call is tool_not_granted, whatever the arguments. A granted call
// goes on to the SDK, whose middleware decides it in full (arguments, pin, CheckCall).
func (a *Adapter) precall(ctx context.Context, extra *mcp.RequestExtra, env envelope, dst []byte) ([]byte, bool) {
	name, ok := stringParam(env.params, "name")
	if !ok {
		return discovery.AppendJSONRPCError(dst, env.id, discovery.ErrInvalidParams), true
	}
	if a.toolDef != nil && name == a.opts.DiscoveryTool {
		return dst, false
	}
	p, err := a.principal(ctx, extra)
	if err == nil {
		err = a.d.AuthorizeTool(ctx, p, name)
	}
	if err != nil {
		return discovery.AppendJSONRPCError(dst, env.id, err), true
	}
	return dst, false
}

// answerDiscover answers a discover message (a call or a notification) straight from
// its bytes with Discoverer.AppendJSONRPC, whose page is sized for the real id (SPEC
// PAGE-1). A notification gets no answer.
func (a *Adapter) answerDiscover(ctx context.Context, extra *mcp.RequestExtra, env envelope, msg, dst []byte) []byte {
	p, err := a.principal(ctx, extra)
	if err != nil {
		if env.id == nil {
			return dst
		}
		return discovery.AppendJSONRPCError(dst, env.id, err)
	}
	resp, handled := a.d.AppendJSONRPC(ctx, dst, p, msg)
	if !handled && env.id != nil {
		return discovery.AppendJSONRPCError(dst, env.id, discovery.ErrMethodNotFound)
	}
	return resp
}

func validLevel(params []byte) bool {
	level, ok := stringParam(params, "level")
	return ok && logLevels[level]
}
