package mcpsdk

import (
	"context"
	"encoding/json"
	"net/http"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// The front: what Transport and Handler do with one raw message before the SDK sees it.

// action is the front's verdict on one message.
type action int

const (
	passOn   action = iota // hand the message to the SDK
	answered               // the front refused a message the SDK cannot take
	refused                // the front refused a tools/call: HTTP 200, like every tool error
	discover               // a discover call: answer it with answerDiscover
)

// screen decides one raw message (SPEC CALL-1, VIS-2, ERR-2). Malformed messages are
// answered with a content-free error carrying the id when it could be read; a
// tools/call whose tool the principal may not call is refused on its name alone, before
// the arguments are decoded, so a denied tool gets the same refusal whatever its
// arguments (deep, long, mistyped, with duplicate keys, not UTF-8); the discover method
// is left to answerDiscover; every other message, vetted, goes on to the SDK. The
// answer is appended to dst; status is the HTTP status of an answered message.
func (a *Adapter) screen(ctx context.Context, extra *mcp.RequestExtra, msg, dst []byte) (resp []byte, act action, status int, env envelope) {
	env, fault := parseEnvelope(msg)
	if fault == "" && env.hasMethod && env.method == "tools/call" && env.id != nil {
		call, tool, err := a.precall(ctx, extra, env.params)
		if err != nil {
			resp = discovery.AppendJSONRPCError(dst, env.id, err)
			return resp, refused, rpcwire.CallStatus(resp), env
		}
		if tool && writtenIDLen(env.id) > rpcwire.MaxToolIDBytes {
			return rpcwire.AppendToolIDError(dst, env.id), refused, http.StatusOK, env
		}
		env.call, env.tool = call, tool
	}
	switch {
	case fault != "":
	case env.hasMethod && env.method == "logging/setLevel" && !validLevel(env.params):
		// The SDK takes any string and logs it at Info: only MCP's levels pass.
		fault = discovery.CodeInvalidParams
	case !utf8.Valid(msg):
		fault = discovery.CodeParseError
	case env.depth > maxDepth:
		fault = discovery.CodeInvalidRequest
	case env.hasMethod && env.method == a.d.Method():
		return dst, discover, 0, env
	default:
		return dst, passOn, 0, env
	}
	return discovery.AppendJSONRPCError(dst, env.id, fault), answered, fault.Status(), env
}

// callMembers are the members of tools/call params the library decides on: the
// tool, its arguments and _meta (the contract pin, safe mode's token).
var callMembers = []string{"name", "arguments", "_meta"}

// precall decides a tools/call on its tool name (SPEC CALL-1): params that are not an
// object, spell one of callMembers twice or in another case (rpcwire.ExactMembers, as
// mcpgo refuses them), name the pin or safe mode's token so in _meta
// (rpcwire.AmbiguousMeta), or hold a name that is not a string are invalid params; an
// unauthenticated caller is refused, and a tool the principal may not call is
// tool_not_granted, whatever the arguments; so is a meta tool's action not served,
// read alone from the raw arguments. Otherwise the call goes on to the SDK, whose
// middleware decides it in full (arguments, pin, CheckCall) with call, the rest of
// this decision; tool reports a call of the discovery tool (call nil), whose id the
// caller checks (rpcwire.MaxToolIDBytes).
func (a *Adapter) precall(ctx context.Context, extra *mcp.RequestExtra, params []byte) (call callFunc, tool bool, err error) {
	m, ok := rpcwire.ExactMembers(params, callMembers)
	raw := m["name"]
	if !ok || raw == nil || raw[0] != '"' || rpcwire.AmbiguousMeta(m["_meta"]) {
		return nil, false, discovery.CodeInvalidParams
	}
	name := decodeString(raw)
	if a.toolDef != nil && name == a.opts.DiscoveryTool {
		return nil, true, nil
	}
	p, err := a.principal(ctx, extra)
	if err != nil {
		return nil, false, err
	}
	call, err = a.d.AuthorizeActionThen(ctx, p, name, m["arguments"])
	return call, false, err
}

// writtenIDLen is the length of the raw id (valid, see parseEnvelope) as the SDK
// writes it back in the response: a string decoded and encoded again, which may be
// shorter (escapes) or longer (U+2028 and U+2029 are written escaped).
func writtenIDLen(raw []byte) int {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return len(raw)
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return len(raw)
	}
	return len(encodeID(id))
}

// answerDiscover answers a discover message (a call or a notification) straight from
// its bytes with Discoverer.AppendJSONRPC, whose page is sized for the real id (SPEC
// PAGE-1), and reports the HTTP status of the answer. A notification gets no answer.
func (a *Adapter) answerDiscover(ctx context.Context, extra *mcp.RequestExtra, env envelope, msg, dst []byte) ([]byte, int) {
	p, err := a.principal(ctx, extra)
	if err != nil {
		if env.id == nil {
			return dst, http.StatusAccepted
		}
		return discovery.AppendJSONRPCError(dst, env.id, err), discovery.CodeUnauthenticated.Status()
	}
	resp, status := a.d.AppendJSONRPC(ctx, dst, p, msg)
	if status == 0 && env.id != nil {
		return discovery.AppendJSONRPCError(dst, env.id, discovery.CodeMethodNotFound), discovery.CodeMethodNotFound.Status()
	}
	return resp, status
}

func validLevel(params []byte) bool {
	level, ok := stringParam(params, "level")
	return ok && logLevels[level]
}
