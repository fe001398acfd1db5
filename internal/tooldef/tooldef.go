// Package tooldef reads the members of a canonical MCP tool definition by their exact
// names, the one reader that discovery (compiling a catalog) and plan (deriving a
// tool's catalog line and deferral opt-out) share.
package tooldef

import (
	"bytes"
	"encoding/json"
	"math"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// MetaEagerKey is the member of a tool's _meta object by which the tool opts in or out
// of deferral (plan.MetaEagerKey).
const MetaEagerKey = "deferredtools/eager"

// Reasons Read refuses a definition for.
const (
	Malformed  = "malformed"
	CaseReason = "member names differing only by case"
)

// Fields are the members of a tool definition the module reads.
type Fields struct {
	Name, Title, Description string          // "" when absent or null
	InputSchema              json.RawMessage // nil when absent
	AnnTitle                 string          // annotations.title when a string
	ReadOnly                 bool            // annotations.readOnlyHint is the literal true
	Destructive              bool            // annotations.destructiveHint is the literal true
	Eager                    json.RawMessage // _meta[MetaEagerKey], nil when absent
}

// Read reads the members of def, a canonical tool definition, each by its exact name:
// a member spelled in another case is another member, never read. Annotations and _meta
// are hints: a value of the wrong type is read as absent. reason is "" or why def is
// refused: Malformed when def is no object or its name, title or description is
// neither a string nor null, CaseReason when the tool object, its annotations or its
// _meta hold two names differing only by case. The returned slices alias def.
//
// In canonical form only quotes, backslashes and control characters are escaped, so a
// raw member name equals one of the plain names read here exactly when its decoded name
// does.
func Read(def []byte) (f Fields, reason string) {
	return read(def, nil)
}

// ReadParamSpans is Read, and gives the parameter text of the definition's inputSchema
// (ParamText of it), read in the pass that finds where the schema ends, as spans of def:
// it appends to spans the start and end in def of each piece of the text, which is the
// pieces joined by single spaces (def[spans[0]:spans[1]], def[spans[2]:spans[3]], ...).
// The text is whole only when reason is "". plain is false when a piece holds an
// escape, so is not its own text, or def is too long for offsets of 32 bits: spans is
// then not the text, which ParamText of f.InputSchema gives. Spans let a caller that
// keeps def hand the text on without copying it; so do Title, Description and AnnTitle,
// which share def's bytes when they hold no escape (Name is a copy): def must not be
// written while they are in use.
func ReadParamSpans(def []byte, spans []uint32) (f Fields, out []uint32, plain bool, reason string) {
	if uint64(len(def)) > math.MaxUint32 {
		f, reason = Read(def)
		return f, spans, false, reason
	}
	w := getWalker()
	w.base, w.spans, w.plain = def, spans, true
	w.noEsc = bytes.IndexByte(def, '\\') < 0 // one scan, instead of one a piece and a name
	f, reason = read(def, w)
	out, plain = w.spans, w.plain
	w.base, w.spans, w.noEsc = nil, nil, false // the caller's
	w.release()
	return f, out, plain, reason
}

// read is Read, appending the inputSchema's parameter text as spans with w (span mode)
// when w is not nil.
func read(def []byte, w *paramWalker) (f Fields, reason string) {
	var annotations, meta []byte
	keys := make([][]byte, 0, 8) // reused for annotations and _meta
	malformed := false
	// Title, description and annotations.title share def's bytes in span mode: the
	// caller keeps def unchanged (ReadParamSpans). The name is always a copy.
	value := StringValue
	if w != nil {
		value = sharedString
	}
	str := func(val []byte, dst *string, value func([]byte) (string, bool)) {
		if s, ok := value(val); ok {
			*dst = s
		} else if string(val) != "null" {
			malformed = true
		}
	}
	start := jsonlex.SkipSpace(def, 0)
	if start >= len(def) || def[start] != '{' {
		return f, Malformed
	}
	objectMembersAt(def, start, func(key []byte, i int) int {
		if w != nil && string(key) == `"inputSchema"` {
			end := w.walkAt(def, i, 0)
			f.InputSchema = def[i:end]
			keys = append(keys, key[1:len(key)-1])
			return end
		}
		end := jsonlex.SkipValue(def, i)
		val := def[i:end]
		key = key[1 : len(key)-1]
		keys = append(keys, key)
		switch string(key) {
		case "name":
			str(val, &f.Name, StringValue)
		case "title":
			str(val, &f.Title, value)
		case "description":
			str(val, &f.Description, value)
		case "inputSchema":
			f.InputSchema = val
		case "annotations":
			annotations = val
		case "_meta":
			meta = val
		}
		return end
	})
	if malformed {
		return f, Malformed
	}
	if caseTwins(keys) {
		return f, CaseReason
	}
	var twins bool
	keys, twins = hintMembers(annotations, keys, func(key, val []byte) {
		switch string(key) {
		case "title":
			f.AnnTitle, _ = value(val)
		case "readOnlyHint":
			f.ReadOnly = string(val) == "true"
		case "destructiveHint":
			f.Destructive = string(val) == "true"
		}
	})
	if twins {
		return f, CaseReason
	}
	if _, twins = hintMembers(meta, keys, func(key, val []byte) {
		if string(key) == MetaEagerKey {
			f.Eager = val
		}
	}); twins {
		return f, CaseReason
	}
	return f, ""
}

// hintMembers calls fn with the raw name (quotes stripped) and raw value of
// each member of obj, a hint object (annotations or _meta), and reports whether two of
// its names differ only by case. An obj that is no object is absent: nothing is read.
// keys is scratch space, returned for reuse.
func hintMembers(obj []byte, keys [][]byte, fn func(key, val []byte)) ([][]byte, bool) {
	if len(obj) == 0 || obj[0] != '{' {
		return keys, false
	}
	keys = keys[:0]
	Members(obj, func(key, val []byte) bool {
		key = key[1 : len(key)-1]
		keys = append(keys, key)
		fn(key, val)
		return true
	})
	return keys, caseTwins(keys)
}

// Members calls fn with the raw key (quotes included) and the raw value of each member
// of the JSON object b, in order, until fn answers false. It reports false when b is not
// an object or fn stopped. b must be text json.Valid (or schemaguard.Canonicalize) has
// accepted: Members only finds boundaries, it never reports syntax.
func Members(b []byte, fn func(key, val []byte) bool) bool {
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

// StringValue decodes the raw JSON string value; ok is false for any other value.
func StringValue(raw []byte) (string, bool) {
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

// sharedString is StringValue sharing raw's bytes, without a copy, when the string holds
// no escape: raw must not be written while the string is in use.
func sharedString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		return StringValue(raw)
	}
	return unsafe.String(unsafe.SliceData(inner), len(inner)), true
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
