package tooldef

import (
	"bytes"
	"slices"
	"sync"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// maxParamDepth is rank's bound on how deep ParamText looks into nested schemas.
const maxParamDepth = 16

// ParamText returns the text rank.ParamText reads from a tool's inputSchema, read from
// schema, the schema's canonical form (schemaguard.Canonicalize), in one pass with
// exact member names and no decoding into maps. It equals rank.ParamText of any JSON
// text whose canonical form schema is (FuzzParamText checks). A schema that is not an
// object gives "".
func ParamText(schema []byte) string {
	w := getWalker()
	w.walkAt(schema, jsonlex.SkipSpace(schema, 0), 0)
	s := string(w.out)
	w.release()
	return s
}

// getWalker returns a paramWalker from the pool, its text empty.
func getWalker() *paramWalker {
	w := paramPool.Get().(*paramWalker)
	w.out = w.out[:0]
	return w
}

// release returns w to the pool, unless it holds an outsized buffer.
func (w *paramWalker) release() {
	if cap(w.out) <= 1<<16 && cap(w.props) <= 1<<12 && cap(w.names) <= 1<<16 {
		paramPool.Put(w)
	}
}

var paramPool = sync.Pool{New: func() any { return new(paramWalker) }}

// paramWalker holds one ParamText call's buffers: the text written so far, and a stack
// of the properties of the schemas being walked, their decoded names in names. With
// base set (ReadParamSpans) it writes no text: each piece of it is a span of base,
// appended to spans, and plain says whether every piece so far is its own text (no
// escape to decode).
type paramWalker struct {
	out   []byte
	props []paramProp
	names []byte

	base  []byte
	spans []uint32
	plain bool
	// noEsc says base holds no backslash (span mode): no piece needs checking, and the
	// props' names index base itself instead of decoded copies in names.
	noEsc bool
}

// nameText returns the text the props' names index (paramProp.a, b).
func (w *paramWalker) nameText() []byte {
	if w.noEsc {
		return w.base
	}
	return w.names
}

// A paramProp is one member of a properties object: its decoded name, nameText()[a:b],
// where its raw name starts in the walker's base (span mode), and the members ParamText
// reads of its value, ok when that value is an object.
type paramProp struct {
	a, b int
	raw  int
	m    schemaMembers
	ok   bool
}

// schemaMembers are the raw values of the members of a schema object ParamText reads,
// nil when absent.
type schemaMembers struct {
	properties, items, additionalProperties, anyOf, oneOf, allOf []byte
	title, description, constant, enum                           []byte
}

// readSchemaAt reads into m, zero, the members ParamText reads of the value starting
// at b[i], which it also skips: end is the index past it, ok false when the value is
// not an object. A properties object's values are read so, in the one pass that finds
// where each ends.
func (w *paramWalker) readSchemaAt(m *schemaMembers, b []byte, i int) (end int, ok bool) {
	if i >= len(b) || b[i] != '{' {
		return w.skipValue(b, i), false
	}
	i++
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for i < len(b) {
		kend := w.skipString(b, i)
		j := kend + 1 // past the colon
		if j >= len(b) {
			break
		}
		vend := w.skipValue(b, j)
		m.set(b[i:kend], b[j:vend])
		if vend >= len(b) {
			break
		}
		if b[vend] == '}' {
			return vend + 1, true
		}
		i = vend + 1 // past the comma
	}
	return len(b), true
}

// set keeps val as the member key (raw, quotes included) when ParamText reads it.
func (m *schemaMembers) set(key, val []byte) {
	if len(key) < 2 {
		return
	}
	switch string(key[1 : len(key)-1]) {
	case "properties":
		m.properties = val
	case "items":
		m.items = val
	case "additionalProperties":
		m.additionalProperties = val
	case "anyOf":
		m.anyOf = val
	case "oneOf":
		m.oneOf = val
	case "allOf":
		m.allOf = val
	case "title":
		m.title = val
	case "description":
		m.description = val
	case "const":
		m.constant = val
	case "enum":
		m.enum = val
	}
}

// The walker reads canonical text only (schemaguard.Canonicalize's output, as every
// caller gives it): no whitespace, and escapes only for quotes, backslashes and control
// characters. So a member is its name, a colon and its value, and, when noEsc says the
// text holds no backslash, a string ends at the next quote. On other text it reads
// something unspecified, and never panics.

// skipString returns the index past the string whose opening quote is b[i], or len(b).
func (w *paramWalker) skipString(b []byte, i int) int {
	if !w.noEsc {
		return jsonlex.SkipString(b, i)
	}
	if i+1 >= len(b) {
		return len(b)
	}
	if k := bytes.IndexByte(b[i+1:], '"'); k >= 0 {
		return i + k + 2
	}
	return len(b)
}

// skipValue returns the index past the value starting at b[i], or len(b).
func (w *paramWalker) skipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return w.skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = w.skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	default: // number, true, false, null
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
			i++
		}
		return i
	}
}

// objectMembersAt calls read with the raw key of each member of the object starting at
// b[i] and the index where its value starts; read returns the index past the value.
// objectMembersAt returns the index past the object. b may hold whitespace.
func objectMembersAt(b []byte, i int, read func(key []byte, j int) int) int {
	i = jsonlex.SkipSpace(b, i+1)
	if i >= len(b) {
		return len(b)
	}
	if b[i] == '}' {
		return i + 1
	}
	for i < len(b) {
		kend := jsonlex.SkipString(b, i)
		key := b[i:kend]
		i = jsonlex.SkipSpace(b, jsonlex.SkipSpace(b, kend)+1) // past the colon
		i = jsonlex.SkipSpace(b, read(key, i))
		if i >= len(b) {
			return len(b)
		}
		if b[i] == '}' {
			return i + 1
		}
		i = jsonlex.SkipSpace(b, i+1) // the comma
	}
	return len(b)
}

// add appends the raw JSON value val when it is a non-empty string, a space before it
// unless it is the first.
func (w *paramWalker) add(val []byte) {
	if len(val) <= 2 || val[0] != '"' {
		return
	}
	inner := val[1 : len(val)-1]
	if w.base != nil {
		w.span(w.offset(inner), inner)
		return
	}
	if len(w.out) > 0 {
		w.out = append(w.out, ' ')
	}
	w.out = appendString(w.out, inner)
}

// offset returns where sub, a slice of w.base (sliced with two indexes only, as every
// slice the walker reads is), starts in it.
func (w *paramWalker) offset(sub []byte) int { return cap(w.base) - cap(sub) }

// span appends the piece raw, the raw inner text of a canonical string at base[at:],
// as a span; a piece holding an escape is not its own text (plain turns false).
func (w *paramWalker) span(at int, raw []byte) {
	if !w.noEsc && w.plain && bytes.IndexByte(raw, '\\') >= 0 {
		w.plain = false
	}
	w.spans = append(w.spans, uint32(at), uint32(at+len(raw)))
}

// appendString appends the decoded inner text of a canonical JSON string.
func appendString(dst, inner []byte) []byte {
	if bytes.IndexByte(inner, '\\') < 0 {
		return append(dst, inner...)
	}
	return jsonlex.Unescape(dst, inner)
}

// walk appends the parameter text of schema, nested depth schemas deep, as rank's walk
// does: properties in byte order of their names, each its name, title, description,
// const and string enum values, then what it nests; then items, additionalProperties,
// anyOf, oneOf and allOf.
func (w *paramWalker) walk(schema []byte, depth int) {
	i := jsonlex.SkipSpace(schema, 0)
	if depth > maxParamDepth || i >= len(schema) || schema[i] != '{' {
		return // absent, or no object: no text
	}
	var m schemaMembers
	w.readSchemaAt(&m, schema, i)
	w.walkMembers(&m, depth)
}

// walkAt is walk of the schema starting at b[i], and returns the index past it. Its
// properties are read in the pass that finds where the schema ends, instead of being
// skipped then read again.
func (w *paramWalker) walkAt(b []byte, i, depth int) int {
	if depth > maxParamDepth || i >= len(b) || b[i] != '{' {
		return w.skipValue(b, i)
	}
	var m schemaMembers
	base, nameBase, props := len(w.props), len(w.names), false
	end := len(b)
	i++
	if i < len(b) && b[i] == '}' {
		end, i = i+1, len(b)
	}
	for i < len(b) {
		kend := w.skipString(b, i)
		j := kend + 1 // past the colon
		if j >= len(b) {
			break
		}
		var vend int
		if key := b[i:kend]; string(key) == `"properties"` && b[j] == '{' {
			props = true
			vend = w.readProps(b, j)
		} else {
			vend = w.skipValue(b, j)
			m.set(key, b[j:vend])
		}
		if vend >= len(b) {
			break
		}
		if b[vend] == '}' {
			end = vend + 1
			break
		}
		i = vend + 1 // past the comma
	}
	if props {
		w.writeProps(base, nameBase, depth)
	}
	w.walkNested(&m, depth)
	return end
}

// walkMembers is walk of the schema whose members m holds.
func (w *paramWalker) walkMembers(m *schemaMembers, depth int) {
	if len(m.properties) > 0 && m.properties[0] == '{' {
		base, nameBase := len(w.props), len(w.names)
		w.readProps(m.properties, 0)
		w.writeProps(base, nameBase, depth)
	}
	w.walkNested(m, depth)
}

// writeProps appends the text of the properties readProps pushed on w.props from base
// (their decoded names on w.names from nameBase, unless they index base itself), of a
// schema nested depth deep, and pops them.
func (w *paramWalker) writeProps(base, nameBase, depth int) {
	props, names := w.props[base:], w.nameText()
	// Canonical members are in UTF-16 order; rank reads them in byte order.
	sorted := true
	for k := 1; k < len(props) && sorted; k++ {
		sorted = bytes.Compare(names[props[k-1].a:props[k-1].b], names[props[k].a:props[k].b]) <= 0
	}
	if !sorted {
		slices.SortFunc(props, func(x, y paramProp) int { return bytes.Compare(names[x.a:x.b], names[y.a:y.b]) })
	}
	for i := range props {
		// Read in place, not copied: the nested walks below push and pop props past
		// base+len(props) only, so this one is never written while in use, even when
		// w.props moves (it stays in the array it was read from).
		p := &props[i]
		if p.b > p.a {
			if w.base != nil {
				w.span(p.raw, w.base[p.raw:p.raw+p.b-p.a])
			} else {
				if len(w.out) > 0 {
					w.out = append(w.out, ' ')
				}
				w.out = append(w.out, names[p.a:p.b]...)
			}
		}
		pm := &p.m
		w.add(pm.title)
		w.add(pm.description)
		w.add(pm.constant)
		if len(pm.enum) > 0 && pm.enum[0] == '[' {
			w.elements(pm.enum, func(v []byte) { w.add(v) })
		}
		if p.ok && depth+1 <= maxParamDepth {
			w.walkMembers(pm, depth+1) // walk(p.val, depth+1), p.val read once
		}
	}
	w.props, w.names = w.props[:base], w.names[:nameBase]
}

// walkNested appends the text of the schemas nested in m but for its properties: items,
// additionalProperties, anyOf, oneOf and allOf, of a schema nested depth deep.
func (w *paramWalker) walkNested(m *schemaMembers, depth int) {
	w.walk(m.items, depth+1)
	w.walk(m.additionalProperties, depth+1)
	for _, l := range [...][]byte{m.anyOf, m.oneOf, m.allOf} {
		if len(l) > 0 && l[0] == '[' {
			w.elements(l, func(v []byte) { w.walk(v, depth+1) })
		}
	}
}

// readProps pushes the members of the properties object starting at b[i] on w.props,
// each value's members read in the pass that skips it, and returns the index past it.
func (w *paramWalker) readProps(b []byte, i int) int {
	i++
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for i < len(b) {
		kend := w.skipString(b, i)
		j := kend + 1 // past the colon
		if j >= len(b) {
			break
		}
		w.props = append(w.props, paramProp{raw: w.offset(b) + i + 1})
		p := &w.props[len(w.props)-1]
		if w.noEsc {
			p.a, p.b = p.raw, p.raw+kend-i-2
		} else {
			p.a = len(w.names)
			w.names = appendString(w.names, b[i+1:kend-1])
			p.b = len(w.names)
		}
		var vend int
		vend, p.ok = w.readSchemaAt(&p.m, b, j)
		if vend >= len(b) {
			break
		}
		if b[vend] == '}' {
			return vend + 1
		}
		i = vend + 1 // past the comma
	}
	return len(b)
}

// elements calls fn with each raw element of the canonical array starting at b[0].
func (w *paramWalker) elements(b []byte, fn func(val []byte)) {
	if len(b) < 2 || b[0] != '[' || b[1] == ']' {
		return
	}
	for i := 1; i < len(b); {
		end := w.skipValue(b, i)
		fn(b[i:end])
		if end >= len(b) || b[end] == ']' {
			return
		}
		i = end + 1 // past the comma
	}
}

// elements calls fn with each raw element of the JSON array b, which must be text
// json.Valid (or schemaguard.Canonicalize) has accepted.
func elements(b []byte, fn func(val []byte)) {
	i := jsonlex.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return
	}
	i = jsonlex.SkipSpace(b, i+1)
	if i >= len(b) || b[i] == ']' {
		return
	}
	for i < len(b) {
		end := jsonlex.SkipValue(b, i)
		fn(b[i:end])
		i = jsonlex.SkipSpace(b, end)
		if i >= len(b) || b[i] == ']' {
			return
		}
		i = jsonlex.SkipSpace(b, i+1) // the comma
	}
}
