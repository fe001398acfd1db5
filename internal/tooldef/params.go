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
	w := paramPool.Get().(*paramWalker)
	w.out = w.out[:0]
	w.walk(schema, 0)
	s := string(w.out)
	if cap(w.out) <= 1<<16 && cap(w.props) <= 1<<12 && cap(w.names) <= 1<<16 {
		paramPool.Put(w) // do not keep an outsized buffer alive in the pool
	}
	return s
}

var paramPool = sync.Pool{New: func() any { return new(paramWalker) }}

// paramWalker holds one ParamText call's buffers: the text written so far, and a stack
// of the properties of the schemas being walked, their decoded names in names.
type paramWalker struct {
	out   []byte
	props []paramProp
	names []byte
}

// A paramProp is one member of a properties object: its decoded name, names[a:b], and
// its raw value.
type paramProp struct {
	a, b int
	val  []byte
}

// schemaMembers are the raw values of the members of a schema object ParamText reads,
// nil when absent.
type schemaMembers struct {
	properties, items, additionalProperties, anyOf, oneOf, allOf []byte
	title, description, constant, enum                           []byte
}

// readSchema returns the members of the object obj that ParamText reads, and false when
// obj is not an object.
func readSchema(obj []byte) (m schemaMembers, ok bool) {
	ok = Members(obj, func(key, val []byte) bool {
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
		return true
	})
	return m, ok
}

// add appends the raw JSON value val when it is a non-empty string, a space before it
// unless it is the first.
func (w *paramWalker) add(val []byte) {
	if len(val) <= 2 || val[0] != '"' {
		return
	}
	if len(w.out) > 0 {
		w.out = append(w.out, ' ')
	}
	w.out = appendString(w.out, val[1:len(val)-1])
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
	if depth > maxParamDepth {
		return
	}
	if m, ok := readSchema(schema); ok {
		w.walkMembers(m, depth)
	}
}

// walkMembers is walk of the schema whose members m holds.
func (w *paramWalker) walkMembers(m schemaMembers, depth int) {
	if len(m.properties) > 0 && m.properties[0] == '{' {
		base, nameBase := len(w.props), len(w.names)
		Members(m.properties, func(key, val []byte) bool {
			a := len(w.names)
			w.names = appendString(w.names, key[1:len(key)-1])
			w.props = append(w.props, paramProp{a, len(w.names), val})
			return true
		})
		props := w.props[base:]
		// Canonical members are in UTF-16 order; rank reads them in byte order.
		byName := func(x, y paramProp) int { return bytes.Compare(w.names[x.a:x.b], w.names[y.a:y.b]) }
		if !slices.IsSortedFunc(props, byName) {
			slices.SortFunc(props, byName)
		}
		for i := range props {
			p := w.props[base+i] // w.props may grow (and move) as nested schemas are walked
			if p.b > p.a {
				if len(w.out) > 0 {
					w.out = append(w.out, ' ')
				}
				w.out = append(w.out, w.names[p.a:p.b]...)
			}
			pm, ok := readSchema(p.val)
			w.add(pm.title)
			w.add(pm.description)
			w.add(pm.constant)
			if len(pm.enum) > 0 && pm.enum[0] == '[' {
				elements(pm.enum, func(v []byte) { w.add(v) })
			}
			if ok && depth+1 <= maxParamDepth {
				w.walkMembers(pm, depth+1) // walk(p.val, depth+1), p.val read once
			}
		}
		w.props, w.names = w.props[:base], w.names[:nameBase]
	}
	w.walk(m.items, depth+1)
	w.walk(m.additionalProperties, depth+1)
	for _, l := range [...][]byte{m.anyOf, m.oneOf, m.allOf} {
		if len(l) > 0 && l[0] == '[' {
			elements(l, func(v []byte) { w.walk(v, depth+1) })
		}
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
