package mcpsdk

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/deferredtools/deferredtools/discovery"
)

// This file reads one raw JSON-RPC message before the SDK sees it: a validator of the
// JSON grammar with no depth limit of its own (so a message of any depth is measured,
// not refused halfway), and an exact reader of the envelope and of a tools/call's
// params.name. Nothing here decodes arguments.

// maxDepth is the nesting the SDK's decoder accepts (go-sdk internal/json
// defaultMaxDepth): objects and arrays deeper than this end an SDK session.
const maxDepth = 1000

// scanJSON reports whether b is exactly one JSON value (RFC 8259 grammar, surrounding
// white space allowed) and its greatest nesting depth. Like encoding/json it does not
// check that string bytes are UTF-8; the caller does. It needs no recursion: the open
// containers are kept on a stack of bytes.
func scanJSON(b []byte) (depth int, ok bool) {
	var stack []byte
	i := skipSpace(b, 0)
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			stack = append(stack, c)
			depth = max(depth, len(stack))
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				stack = stack[:len(stack)-1]
				i++
			} else if c == '{' {
				if i = scanKey(b, i); i < 0 {
					return 0, false
				}
				continue
			} else {
				continue
			}
		case c == '"':
			if i = scanString(b, i); i < 0 {
				return 0, false
			}
		case c == '-' || ('0' <= c && c <= '9'):
			if i = scanNumber(b, i); i < 0 {
				return 0, false
			}
		case bytes.HasPrefix(b[i:], []byte("true")):
			i += 4
		case bytes.HasPrefix(b[i:], []byte("false")):
			i += 5
		case bytes.HasPrefix(b[i:], []byte("null")):
			i += 4
		default:
			return 0, false
		}
		// After a value: close containers or move to the next element.
		for {
			i = skipSpace(b, i)
			if len(stack) == 0 {
				return depth, i == len(b)
			}
			if i >= len(b) {
				return 0, false
			}
			top := stack[len(stack)-1]
			if b[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return 0, false
			}
			i = skipSpace(b, i+1)
			if top == '{' {
				if i = scanKey(b, i); i < 0 {
					return 0, false
				}
			}
			break
		}
	}
}

// scanKey reads `"key" :` at b[i] and returns the index of the value after it, or -1.
func scanKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = scanString(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

// scanString returns the index just past the string starting at b[i] == '"', or -1.
func scanString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// scanNumber returns the index just past the number starting at b[i], or -1.
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return -1
		}
	}
	return i
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the value at b[i] of text scanJSON accepted.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return scanString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = scanString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	// A number or a literal: it ends at the next delimiter.
	for i < len(b) && !bytes.ContainsRune([]byte(",}] \t\n\r"), rune(b[i])) {
		i++
	}
	return i
}

// members calls fn with the decoded key and the raw value of each member of the object
// at the top of b (text scanJSON accepted), until fn answers false.
func members(b []byte, fn func(key string, val []byte) bool) {
	i := skipSpace(b, 0) + 1
	for {
		i = skipSpace(b, i)
		if b[i] == '}' {
			return
		}
		kend := scanString(b, i)
		key := decodeString(b[i:kend])
		i = skipSpace(b, skipSpace(b, kend)+1) // past the colon
		vend := skipValue(b, i)
		if !fn(key, b[i:vend]) {
			return
		}
		i = skipSpace(b, vend)
		if b[i] == ',' {
			i++
		}
	}
}

// decodeString decodes a JSON string scanJSON accepted, as the SDK's decoder does
// (escapes resolved, invalid UTF-8 replaced).
func decodeString(raw []byte) string {
	if plainASCII(raw) {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// envelope is what the front reads of one JSON-RPC message.
type envelope struct {
	id        []byte // the raw id; nil when absent or null (a notification)
	method    string
	hasMethod bool
	params    []byte // the raw params; nil when absent
	depth     int
}

// parseEnvelope reads msg as one JSON-RPC 2.0 message the SDK's decoder will take: an
// object with unique member names, "jsonrpc":"2.0", an id that is absent, null, a
// string or an integer of at most 2^53, a string method, and for a response (no
// method) a non-null id and an error member of the SDK's shape. The fault it returns
// ("" when none) is the code of the content-free refusal to answer, and id is set when
// the message's id could be read. UTF-8 and depth are left to the caller, which may
// decide on the envelope first.
func parseEnvelope(msg []byte) (env envelope, fault discovery.Code) {
	depth, ok := scanJSON(msg)
	if !ok {
		return env, discovery.CodeParseError
	}
	env.depth = depth
	first := msg[skipSpace(msg, 0)]
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
	dup := false
	members(msg, func(key string, val []byte) bool {
		// Unique member names: a map only for objects with many members.
		if seen == nil && len(keys) < 16 {
			for _, k := range keys {
				if k == key {
					dup = true
					return false
				}
			}
			keys = append(keys, key)
		} else {
			if seen == nil {
				seen = make(map[string]bool, 32)
				for _, k := range keys {
					seen[k] = true
				}
			}
			if seen[key] {
				dup = true
				return false
			}
			seen[key] = true
		}
		switch key {
		case "jsonrpc":
			version = val
		case "id":
			if !bytes.Equal(val, []byte("null")) {
				idOK = validID(val)
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
	case dup:
		env.id = nil // which id is meant cannot be told
		return env, discovery.CodeInvalidRequest
	case !idOK, version == nil || version[0] != '"' || decodeString(version) != "2.0", !methodOK:
		return env, discovery.CodeInvalidRequest
	case !env.hasMethod && (env.id == nil || hasErr && !errorOK):
		env.id = nil // a response is answered with a null id: its id names the client's request
		return env, discovery.CodeInvalidRequest
	}
	return env, ""
}

// validID reports whether raw is an id the SDK keeps exactly: a string, or an integer
// within ±2^53 (the SDK reads numbers as float64).
func validID(raw []byte) bool {
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || ('0' <= c && c <= '9'):
		f, err := strconv.ParseFloat(string(raw), 64)
		return err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53
	}
	return false
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
// named key, a string. ok is false otherwise (invalid params).
func stringParam(params []byte, key string) (value string, ok bool) {
	if len(params) == 0 || params[0] != '{' {
		return "", false
	}
	n := 0
	members(params, func(k string, val []byte) bool {
		if k != key {
			return true
		}
		n++
		if n > 1 || val[0] != '"' {
			ok = false
			return false
		}
		value, ok = decodeString(val), true
		return true
	})
	if !ok || n != 1 {
		return "", false
	}
	return value, true
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
