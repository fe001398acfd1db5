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

// envelopeMembers are the members of a JSON-RPC message mcp-go reads.
var envelopeMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}

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
	m, ambiguous := readMembersAmbiguous(msg, envelopeMembers)
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

// readMembers returns the raw values of the members of object b named in names. ok is
// false when b is not an object, or a member's name equals one of names under
// encoding/json's case folding without being it, or one of names appears twice: a
// message mcp-go would read another way than the front. Then ambiguous holds the names
// concerned, and m the members read without doubt.
func readMembers(b []byte, names []string) (m map[string][]byte, ok bool) {
	m, ambiguous := readMembersAmbiguous(b, names)
	return m, m != nil && len(ambiguous) == 0
}

func readMembersAmbiguous(b []byte, names []string) (m map[string][]byte, ambiguous map[string]bool) {
	if len(b) == 0 || b[jsonlex.SkipSpace(b, 0)] != '{' {
		return nil, nil
	}
	m = make(map[string][]byte, len(names))
	var buf []byte
	tooldef.Members(b, func(rawKey, val []byte) bool {
		key := rawKey[1 : len(rawKey)-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			buf = jsonlex.Unescape(buf[:0], key)
			key = buf
		}
		for _, name := range names {
			if !bytes.EqualFold(key, []byte(name)) {
				continue
			}
			if string(key) != name || m[name] != nil || ambiguous[name] {
				if ambiguous == nil {
					ambiguous = map[string]bool{}
				}
				ambiguous[name] = true
				delete(m, name)
				continue
			}
			m[name] = val
		}
		return true
	})
	return m, ambiguous
}
