package mcpsdk

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
	"github.com/deferredtools/deferredtools/internal/tooldef"
)

// This file reads one raw JSON-RPC message before the SDK sees it: jsonlex.Valid checks
// the JSON grammar and measures the depth (without a limit of its own, so a message of
// any depth is measured, not refused halfway), and an exact reader of the envelope and
// of a tools/call's params.name reads the members. Nothing here decodes arguments.

// maxDepth is the nesting the SDK's decoder accepts (go-sdk internal/json
// defaultMaxDepth): objects and arrays deeper than this end an SDK session.
const maxDepth = 1000

// members calls fn with the decoded key and the raw value of each member of the object
// b (text jsonlex.Valid accepted), until fn answers false.
func members(b []byte, fn func(key string, val []byte) bool) {
	tooldef.Members(b, func(key, val []byte) bool { return fn(decodeString(key), val) })
}

// decodeString decodes a JSON string jsonlex.Valid accepted, as the SDK's decoder does
// (escapes resolved, invalid UTF-8 replaced).
func decodeString(raw []byte) string {
	if plainASCII(raw) {
		return string(raw[1 : len(raw)-1])
	}
	return string(jsonlex.Unescape(nil, raw[1:len(raw)-1]))
}

// envelope is what the front reads of one JSON-RPC message.
type envelope struct {
	id        []byte // the raw id; nil when absent or null (a notification)
	method    string
	hasMethod bool
	params    []byte // the raw params; nil when absent
	depth     int
	call      callFunc // a granted tools/call: the rest of the front's decision
	tool      bool     // a call of the discovery tool: its answer is one principal's page
}

// parseEnvelope reads msg as one JSON-RPC 2.0 message the SDK's decoder will take: an
// object with unique member names, none of them a case twin of a member the SDK reads
// (rpcwire.Match: "Method" beside or instead of "method"), "jsonrpc":"2.0", an id
// that is absent, null, a string or an integer of at most 2^53, a string method, and
// for a response (no method) a non-null id and an error member of the SDK's shape. The fault it returns
// ("" when none) is the code of the content-free refusal to answer, and id is set when
// the message's id could be read. UTF-8 and depth are left to the caller, which may
// decide on the envelope first.
func parseEnvelope(msg []byte) (env envelope, fault discovery.Code) {
	depth, ok := jsonlex.Valid(msg)
	if !ok {
		return env, discovery.CodeParseError
	}
	env.depth = depth
	first := msg[jsonlex.SkipSpace(msg, 0)]
	if first != '{' {
		return env, discovery.CodeInvalidRequest // a batch, or a scalar
	}
	var (
		seen     map[string]bool
		keys     []string
		version  []byte
		idOK     = true
		methodOK = true
		errorOK  = true
		hasErr   bool
	)
	dup, twin := false, false
	members(msg, func(key string, val []byte) bool {
		// Names the SDK reads, never in another case (as mcpgo refuses them).
		if name, exact := rpcwire.Match(key, rpcwire.EnvelopeMembers); name != "" && !exact {
			twin = true
			if name == "id" {
				idOK = false // which id is meant cannot be told
			}
			return true
		}
		// Unique member names: a map only for objects with many members. A repeated
		// name is refused; the id is answered unless it is the one repeated (as mcpgo).
		repeated := false
		if seen == nil && len(keys) < 16 {
			repeated = slices.Contains(keys, key)
			keys = append(keys, key)
		} else {
			if seen == nil {
				seen = make(map[string]bool, 32)
				for _, k := range keys {
					seen[k] = true
				}
			}
			repeated = seen[key]
			seen[key] = true
		}
		if repeated {
			dup = true
			if key == "id" {
				idOK = false
			}
			return true
		}
		switch key {
		case "jsonrpc":
			version = val
		case "id":
			if !bytes.Equal(val, []byte("null")) {
				idOK = rpcwire.ValidID(val)
				if idOK {
					env.id = val
				}
			}
		case "method":
			env.hasMethod = true
			methodOK = val[0] == '"'
			if methodOK {
				env.method = decodeString(val)
			}
		case "params":
			env.params = val
		case "error":
			hasErr = true
			errorOK = validWireError(val)
		}
		return true
	})
	switch {
	case dup, twin:
		if !idOK {
			env.id = nil // which id is meant cannot be told
		}
		return env, discovery.CodeInvalidRequest
	case !idOK, version == nil || version[0] != '"' || decodeString(version) != "2.0", !methodOK:
		return env, discovery.CodeInvalidRequest
	case !env.hasMethod && (env.id == nil || hasErr && !errorOK):
		env.id = nil // a response is answered with a null id: its id names the client's request
		return env, discovery.CodeInvalidRequest
	}
	return env, ""
}

// validWireError reports whether raw decodes into the SDK's wire error: null, or an
// object whose code is null or an int64 and whose message is null or a string.
func validWireError(raw []byte) bool {
	switch raw[0] {
	case 'n':
		return true
	case '{':
	default:
		return false
	}
	ok := true
	members(raw, func(key string, val []byte) bool {
		switch key {
		case "code":
			if val[0] != 'n' {
				_, err := strconv.ParseInt(string(val), 10, 64)
				ok = err == nil
			}
		case "message":
			ok = val[0] == 'n' || val[0] == '"'
		}
		return ok
	})
	return ok
}

// stringParam reads params[key] exactly: params must be an object with one member
// named key, a string, and no other spelling of key (rpcwire.ExactMembers). ok is false
// otherwise (invalid params).
func stringParam(params []byte, key string) (value string, ok bool) {
	m, ok := rpcwire.ExactMembers(params, []string{key})
	if v := m[key]; !ok || v == nil || v[0] != '"' {
		return "", false
	}
	return decodeString(m[key]), true
}

// logLevels are the levels of MCP's logging/setLevel (RFC 5424 severities).
var logLevels = map[string]bool{"debug": true, "info": true, "notice": true, "warning": true,
	"error": true, "critical": true, "alert": true, "emergency": true}

// plainASCII reports a string token without escapes or bytes beyond ASCII: its text
// is its value.
func plainASCII(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}
