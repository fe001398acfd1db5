package discovery

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// This file reads the members of JSON objects by their exact names, without a decoder:
// the discover params, the JSON-RPC envelope and tool definitions. Every function here
// takes text that json.Valid (or schemaguard.Canonicalize) has already accepted, so it
// only needs to find boundaries, never to report syntax.

// members calls fn with the raw key (quotes included) and the raw value of each member
// of the JSON object b, in order, until fn answers false. It reports false when b is not
// an object or fn stopped.
func members(b []byte, fn func(key, val []byte) bool) bool {
	i := jsonlex.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = jsonlex.SkipSpace(b, i+1)
	if b[i] == '}' {
		return true
	}
	for {
		kend := jsonlex.SkipString(b, i)
		key := b[i:kend]
		i = jsonlex.SkipSpace(b, kend) + 1 // the colon
		i = jsonlex.SkipSpace(b, i)
		vend := jsonlex.SkipValue(b, i)
		if !fn(key, b[i:vend]) {
			return false
		}
		i = jsonlex.SkipSpace(b, vend)
		if b[i] == '}' {
			return true
		}
		i = jsonlex.SkipSpace(b, i+1) // the comma
	}
}

// keyIs reports whether the raw key (quotes included) names name, escapes decoded.
func keyIs(raw []byte, name string) bool { return jsonlex.Equal(raw[1:len(raw)-1], name) }

// stringValue decodes the raw JSON string value; ok is false for any other value.
func stringValue(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	var buf [64]byte
	return string(jsonlex.Unescape(buf[:0], inner)), true
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
