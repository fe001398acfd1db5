package mcpgo

import (
	"bytes"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
	"github.com/deferredtools/deferredtools/internal/tooldef"
)

// This file reads one raw JSON-RPC message before mcp-go does. mcp-go decodes with
// encoding/json, which matches member names case-insensitively and keeps the last of
// repeated ones: {"method":"tools/list","Method":"tools/call"} is a tools/call to it.
// So every member the front or mcp-go reads is read here under the same folding, and a
// message that names one two ways is refused: the front and mcp-go always read the
// same message. Nothing here decodes arguments.

// envelope is what the front reads of one JSON-RPC message.
type envelope struct {
	id        []byte // the raw id; nil when absent or null (a notification)
	method    string
	hasMethod bool
	params    []byte // the raw params; nil when absent
}

// parseEnvelope reads msg as one JSON-RPC 2.0 message: an object whose members
// jsonrpc, id, method, params, result and error each appear at most once and spelled
// exactly (never another case), "jsonrpc":"2.0", an id that is absent, null, a string
// or an integer within ±2^53, a string method, and a non-null id when there is no
// method (a response to the server). fault is the code of the refusal ("" when none);
// id is set when it could be read.
func parseEnvelope(msg []byte) (env envelope, fault discovery.Code) {
	if _, ok := jsonlex.Valid(msg); !ok {
		return env, discovery.CodeParseError
	}
	if msg[jsonlex.SkipSpace(msg, 0)] != '{' {
		return env, discovery.CodeInvalidRequest // a batch, or a scalar
	}
	m, ambiguous := rpcwire.Members(msg, rpcwire.EnvelopeMembers)
	if id := m["id"]; id != nil && !bytes.Equal(id, []byte("null")) {
		if !rpcwire.ValidID(id) {
			return env, discovery.CodeInvalidRequest
		}
		env.id = id // unless it is ambiguous itself, a refusal carries the id
	}
	if len(ambiguous) > 0 {
		return env, discovery.CodeInvalidRequest
	}
	if v := m["jsonrpc"]; v == nil || string(v) != `"2.0"` {
		return env, discovery.CodeInvalidRequest
	}
	if v := m["method"]; v != nil {
		s, ok := tooldef.StringValue(v)
		if !ok {
			return env, discovery.CodeInvalidRequest
		}
		env.method, env.hasMethod = s, true
	} else if env.id == nil {
		return env, discovery.CodeInvalidRequest
	}
	env.params = m["params"]
	return env, ""
}
