package discovery

import (
	"bytes"
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// This file reads the members of JSON objects by their exact names, without a decoder:
// the discover params, the JSON-RPC envelope and tool definitions. Every function here
// takes text that json.Valid (or schemaguard.Canonicalize) has already accepted, so it
// only needs to find boundaries, never to report syntax.

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

// caseTwins reports whether two of the member names in keys, which holds no exact
// duplicate, differ only by case: equal under Unicode simple case folding, as
// bytes.EqualFold and encoding/json's struct field matching compare names (so "ſ" is
// "s"). keys are raw canonical names, which fold alike exactly when the decoded names
// do: their escapes are spelled one way, in letters no other case of which is valid.
func caseTwins(keys [][]byte) bool {
	if len(keys) <= 16 { // the usual tool, annotations and _meta: no allocation
		for i, k := range keys {
			for _, l := range keys[i+1:] {
				if bytes.EqualFold(k, l) {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		f := foldName(k)
		if seen[f] {
			return true
		}
		seen[f] = true
	}
	return false
}

// foldName returns a key that two names share exactly when bytes.EqualFold deems them
// equal: each rune replaced by the smallest rune of its simple case-folding orbit.
func foldName(name []byte) string {
	b := make([]byte, 0, len(name))
	for len(name) > 0 {
		r, n := utf8.DecodeRune(name)
		name = name[n:]
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b = utf8.AppendRune(b, least)
	}
	return string(b)
}
