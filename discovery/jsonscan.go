package discovery

import (
	"bytes"
	"encoding/json"
)

// This file reads the top level of small JSON objects without a decoder: the discover
// params and the JSON-RPC envelope. Every function here takes text that json.Valid has
// already accepted, so it only needs to find boundaries, never to report syntax.

// members calls fn with the raw key (quotes included) and the raw value of each member
// of the JSON object b, in order, until fn answers false. It reports false when b is not
// an object or fn stopped.
func members(b []byte, fn func(key, val []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if b[i] == '}' {
		return true
	}
	for {
		kend := skipString(b, i)
		key := b[i:kend]
		i = skipSpace(b, kend) + 1 // the colon
		i = skipSpace(b, i)
		vend := skipValue(b, i)
		if !fn(key, b[i:vend]) {
			return false
		}
		i = skipSpace(b, vend)
		if b[i] == '}' {
			return true
		}
		i = skipSpace(b, i+1) // the comma
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	default: // number, true, false, null
		for i < len(b) && !bytes.ContainsRune([]byte(",}] \t\n\r"), rune(b[i])) {
			i++
		}
		return i
	}
}

// keyIs reports whether the raw key (quotes included) names name, escapes decoded.
func keyIs(raw []byte, name string) bool {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == name
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == name
}

// stringValue decodes the raw JSON string value; ok is false for any other value.
func stringValue(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}
