package validate

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// FullOptions configure the full draft 2020-12 Compiler. The zero value (or nil) means
// default Limits.
type FullOptions struct {
	// Limits bound the schemas and arguments the full validator accepts, checked by
	// this package before github.com/google/jsonschema-go sees them. MaxSteps is the
	// budget of the library's estimated work, in steps of at most about 75 ns (see
	// NewFull); raise it to trade SPEC PERF-4 for larger arguments.
	Limits Limits
}

// NewFull returns a Compiler backed by github.com/google/jsonschema-go for hosts that
// need all of JSON Schema draft 2020-12 (and draft-07) rather than the bounded subset
// (SPEC CALL-7). opts is copied; nil means defaults.
//
// It keeps this package's contract around the library: schemas over the depth, node,
// code unit or pattern bounds answer ErrLimit before the library parses them; a schema
// whose $ref or $dynamicRef can lead back to itself without descending into the
// instance (a cycle the library would follow until the stack overflows) answers an
// *UnsupportedError for "$ref", as does a reference this package cannot resolve inside
// the schema; a duplicate member, and a member that differs from a keyword the library
// reads only by case ("MaxLength", "TYPE", which the library's encoding/json decoding
// would enforce as maxLength and type, so the schema served would not be the schema
// enforced), answer an *UnsupportedError naming no keyword; arguments are checked for
// the bounds, duplicate keys (SPEC CALL-8) and string encoding before the library
// decodes them; and no error carries schema or argument text (SPEC ERR-2): a failure
// is a *ValidationError naming the keyword when it can be told, with an empty Path.
//
// Numbers: the library decodes them as float64 and compares those. NewFull decodes
// the arguments itself and hands the library float64 values chosen so that equal
// float64 values mean equal numbers: a number sharing its nearest float64 with a
// different number (of the arguments, or of the schema's enum and const values) moves
// to the nearest float64 no other number uses, on its own side of the schema's value
// or else of the number that float64 prints as, so enum, const and uniqueItems
// compare numbers exactly (8,000 distinct 30-digit decimals are unique; 1, 1.0 and
// 1e0 are equal) and a bound at that float64 ("maximum": 1 against
// 0.99999999999999999999) gives the verdict it gives the number alone. A schema whose
// enum and const values hold two different numbers sharing a float64 answers an
// *UnsupportedError for that keyword. The numeric bounds, multipleOf and "integer"
// stay float64 comparisons, as in the library (1e-400 is 0, an integer); a number
// beyond float64's range, or one that would move past it, answers ErrLimit. Patterns
// run with Go's regexp syntax as written.
//
// Work budget (SPEC PERF-4): before the library runs, NewFull estimates its work from
// the arguments and the schema, applying the schemas as the library would and
// assuming every applicator applies (every anyOf branch, then and else, every
// patternProperties schema), so the estimate is an upper bound: per argument node
// decoded, per schema applied to a value and per object member, per enum value
// compared, per node hashed for uniqueItems, a pattern's worst case ((bytes + 1)
// × the program's instructions), and per argument number when some number has more
// than 15 significant digits (moving numbers apart, above). The charges are the library's measured costs (an
// application to a number about 775 ns, an object member 2.4 µs, an enum comparison
// up to 300 ns, a uniqueItems item up to 3 µs), in steps of at most about 75 ns, so
// Limits.MaxSteps (65,536) is about 5 ms. Arguments whose estimate passes MaxSteps
// answer ErrLimit at once: 3,000 enum values × 3,000 items (1.2 s of library CPU
// time), references that apply one schema 2^14 times, 250,000 characters against a
// large pattern, and, the library being slow per node, about 5,000 numbers under
// "items" or 1,500 under uniqueItems or 450 small objects. The estimate stops at the
// budget, so refusing costs under a millisecond. A host that needs PERF-4 at the full
// node bound keeps the bounded validator; one that needs larger arguments here
// raises MaxSteps and gives up PERF-4.
func NewFull(opts *FullOptions) Compiler {
	c := &fullCompiler{}
	if opts != nil {
		c.lim = opts.Limits
	}
	c.lim = c.lim.withDefaults()
	return c
}

type fullCompiler struct{ lim Limits }

type fullValidator struct {
	rs    *jsonschema.Resolved
	root  *fnode // the schema's cost graph, for the work budget
	exact *exactNumbers
	nodes int
	lim   Limits
}

func (c *fullCompiler) Compile(schemaText []byte) (Validator, error) {
	t := &tape{}
	steps := 0
	if err := t.parse(schemaText, c.lim.tape(), &steps); err != nil {
		if isLimit(err) {
			return nil, err
		}
		return nil, &UnsupportedError{}
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(schemaText))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, &UnsupportedError{}
	}
	g := &refGraph{
		lim:     c.lim,
		nodes:   map[string]any{},
		bases:   map[string]*url.URL{},
		ids:     map[string]string{},
		anchors: map[string]string{},
		dynamic: map[string][]string{},
	}
	if err := g.walk(doc, "", &url.URL{}); err != nil {
		return nil, err
	}
	if err := g.checkCycles(); err != nil {
		return nil, err
	}
	root, err := g.costGraph()
	if err != nil {
		return nil, err
	}
	exact, err := newExactNumbers(g)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schemaText, &s); err != nil {
		return nil, &UnsupportedError{}
	}
	switch s.Schema {
	case "", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#":
	default:
		return nil, &UnsupportedError{Keyword: "$schema"}
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, &UnsupportedError{}
	}
	return &fullValidator{rs: rs, root: root, exact: exact, nodes: t.nodes, lim: c.lim}, nil
}

func (v *fullValidator) Validate(args []byte) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = emptyObject
	}
	st := statePool.Get().(*state)
	defer func() {
		st.t.src = nil
		statePool.Put(st)
	}()
	lim := v.lim.tape()
	lim.nodes -= v.nodes
	st.steps = 0
	if err := st.t.parse(args, lim, &st.steps); err != nil {
		return err
	}
	// The work budget, estimated before the library runs (see NewFull).
	b := fullBudget{t: &st.t, steps: st.steps + fullNode*st.t.nodes, max: v.lim.MaxSteps}
	if b.steps > b.max || !b.apply(v.root, 0) {
		return errSteps
	}
	nums := st.t.numbers()
	plain := v.exact.plainFor(&st.t, nums)
	if !plain && !b.spend(fullExact*len(nums)) {
		return errSteps
	}
	floats, ok := v.exact.floats(&st.t, nums, plain)
	if !ok {
		return &limitError{what: "number beyond float64 range"}
	}
	if err := v.rs.Validate(fullValue(&st.t, 0, func(i int32) any { return floats[i] })); err != nil {
		return &ValidationError{Keyword: fullKeyword(err.Error())}
	}
	return nil
}

// fullKeyword extracts the failing keyword from a google/jsonschema-go error message,
// answering only a vocabulary keyword (never text of the message) or "".
func fullKeyword(msg string) string {
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		_, after, ok := strings.Cut(rest, ": ")
		if !ok {
			return ""
		}
		msg = after
	}
	kw, _, _ := strings.Cut(msg, ":")
	return knownKeyword(kw)
}

// refGraph finds the schemas of a document and the references between them.
type refGraph struct {
	lim     Limits
	nodes   map[string]any // JSON pointer → schema (object or boolean)
	bases   map[string]*url.URL
	ids     map[string]string   // absolute URI without fragment → pointer
	anchors map[string]string   // URI#anchor → pointer
	dynamic map[string][]string // dynamic anchor name → pointers
}

var (
	schemaValued = map[string]bool{
		"additionalProperties": true, "items": true, "contains": true, "not": true,
		"if": true, "then": true, "else": true, "propertyNames": true,
		"unevaluatedItems": true, "unevaluatedProperties": true, "additionalItems": true,
		"contentSchema": true,
	}
	schemaArrays = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "items": true}
	schemaMaps   = map[string]bool{
		"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
		"dependentSchemas": true, "dependencies": true,
	}
	// inPlace are the applicators that apply a subschema to the same instance: a
	// cycle through them alone never ends.
	inPlaceSingle = map[string]bool{"not": true, "if": true, "then": true, "else": true}
	inPlaceArrays = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true}
	inPlaceMaps   = map[string]bool{"dependentSchemas": true, "dependencies": true}
)

// fullKeywords are the member names github.com/google/jsonschema-go (v0.4.3) reads
// from a schema object: the json names of jsonschema.Schema's fields, and type, items
// and dependencies, which its UnmarshalJSON reads through a wrapper. It decodes with
// encoding/json, which matches struct fields case-insensitively: see caseVariant.
var fullKeywords = []string{
	"$id", "$schema", "$ref", "$comment", "$defs", "definitions", "$anchor",
	"$dynamicAnchor", "$dynamicRef", "$vocabulary", "title", "description", "default",
	"deprecated", "readOnly", "writeOnly", "examples", "type", "enum", "const",
	"multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"minLength", "maxLength", "pattern", "prefixItems", "items", "minItems", "maxItems",
	"additionalItems", "uniqueItems", "contains", "minContains", "maxContains",
	"unevaluatedItems", "minProperties", "maxProperties", "required",
	"dependentRequired", "dependencies", "properties", "patternProperties",
	"additionalProperties", "propertyNames", "unevaluatedProperties", "allOf", "anyOf",
	"oneOf", "not", "if", "then", "else", "dependentSchemas", "contentEncoding",
	"contentMediaType", "contentSchema", "format",
}

// caseVariant reports whether k differs from a keyword of fullKeywords only by case
// (Unicode simple folding, as encoding/json matches: "MaxLength", "TYPE", "itemſ").
// The library would enforce such a member as that keyword while every other reader
// sees an unknown one, so NewFull refuses it.
func caseVariant(k string) bool {
	if slices.Contains(fullKeywords, k) {
		return false
	}
	for _, kw := range fullKeywords {
		if strings.EqualFold(k, kw) {
			return true
		}
	}
	return false
}

func escapePointer(s string) string { return pointerEscaper.Replace(s) }

func (g *refGraph) walk(v any, ptr string, base *url.URL) error {
	switch v.(type) {
	case bool:
		g.nodes[ptr] = v
		return nil
	case map[string]any:
	default:
		return nil
	}
	m := v.(map[string]any)
	for k := range m {
		if caseVariant(k) {
			return &UnsupportedError{}
		}
	}
	if id, ok := m["$id"].(string); ok {
		u, err := base.Parse(id)
		if err != nil {
			return &UnsupportedError{Keyword: "$id"}
		}
		u.Fragment, u.RawFragment = "", ""
		base = u
		g.ids[base.String()] = ptr
	}
	if ptr == "" {
		g.ids[base.String()] = ""
	}
	g.nodes[ptr] = m
	g.bases[ptr] = base
	if a, ok := m["$anchor"].(string); ok {
		g.anchors[base.String()+"#"+a] = ptr
	}
	if a, ok := m["$dynamicAnchor"].(string); ok {
		g.anchors[base.String()+"#"+a] = ptr
		g.dynamic[a] = append(g.dynamic[a], ptr)
	}
	if p, ok := m["pattern"].(string); ok && patternUnits([]byte(p)) > g.lim.MaxPattern {
		return errPattern
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for p := range pp {
			if patternUnits([]byte(p)) > g.lim.MaxPattern {
				return errPattern
			}
		}
	}
	for k, child := range m {
		kp := ptr + "/" + escapePointer(k)
		switch {
		case schemaArrays[k]:
			if arr, ok := child.([]any); ok {
				for i, c := range arr {
					if err := g.walk(c, kp+"/"+itoa(i), base); err != nil {
						return err
					}
				}
				continue
			}
			if schemaValued[k] {
				if err := g.walk(child, kp, base); err != nil {
					return err
				}
			}
		case schemaValued[k]:
			if err := g.walk(child, kp, base); err != nil {
				return err
			}
		case schemaMaps[k]:
			if mm, ok := child.(map[string]any); ok {
				for name, c := range mm {
					if err := g.walk(c, kp+"/"+escapePointer(name), base); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func itoa(i int) string {
	return string(appendInt(nil, i))
}

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

// resolve answers the pointer of the schema ref names from a schema with base.
func (g *refGraph) resolve(ref string, base *url.URL) (string, bool) {
	u, err := base.Parse(ref)
	if err != nil {
		return "", false
	}
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	doc, ok := g.ids[u.String()]
	if !ok {
		return "", false
	}
	if frag == "" {
		return doc, true
	}
	if strings.HasPrefix(frag, "/") {
		p := doc + frag
		_, ok := g.nodes[p]
		return p, ok
	}
	p, ok := g.anchors[u.String()+"#"+frag]
	return p, ok
}

// edges answers the schemas that schema ptr applies to the same instance location.
func (g *refGraph) edges(ptr string) ([]string, error) {
	m, ok := g.nodes[ptr].(map[string]any)
	if !ok {
		return nil, nil
	}
	var out []string
	for k, child := range m {
		kp := ptr + "/" + escapePointer(k)
		switch {
		case inPlaceSingle[k]:
			out = append(out, kp)
		case inPlaceArrays[k]:
			if arr, ok := child.([]any); ok {
				for i := range arr {
					out = append(out, kp+"/"+itoa(i))
				}
			}
		case inPlaceMaps[k]:
			if mm, ok := child.(map[string]any); ok {
				for name, c := range mm {
					switch c.(type) {
					case map[string]any, bool:
						out = append(out, kp+"/"+escapePointer(name))
					}
				}
			}
		case k == "$ref" || k == "$dynamicRef":
			ref, ok := child.(string)
			if !ok {
				return nil, &UnsupportedError{Keyword: knownKeyword(k)}
			}
			target, ok := g.resolve(ref, g.bases[ptr])
			if !ok {
				return nil, &UnsupportedError{Keyword: knownKeyword(k)}
			}
			out = append(out, target)
			if k == "$dynamicRef" {
				if _, name, ok := strings.Cut(ref, "#"); ok {
					out = append(out, g.dynamic[name]...)
				}
			}
		}
	}
	return out, nil
}

// checkCycles refuses a schema whose in-place applicators and references form a cycle.
func (g *refGraph) checkCycles() error {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var visit func(p string) error
	visit = func(p string) error {
		switch color[p] {
		case grey:
			return &UnsupportedError{Keyword: "$ref"}
		case black:
			return nil
		}
		color[p] = grey
		next, err := g.edges(p)
		if err != nil {
			return err
		}
		for _, n := range next {
			if err := visit(n); err != nil {
				return err
			}
		}
		color[p] = black
		return nil
	}
	for p := range g.nodes {
		if err := visit(p); err != nil {
			return err
		}
	}
	return nil
}
