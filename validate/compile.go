package validate

import (
	"math"
	"slices"
)

// Type bits of the "type" keyword.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tInteger
	tNumber
	tString
	tArray
	tObject
)

var typeNames = map[string]uint8{
	"null": tNull, "boolean": tBoolean, "integer": tInteger, "number": tNumber,
	"string": tString, "array": tArray, "object": tObject,
}

// bound is one of minimum, maximum, exclusiveMinimum, exclusiveMaximum.
type bound struct {
	keyword string
	num     decimal
	// ok reports whether cmpDecimal(instance, num) satisfies the bound.
	ok func(c int) bool
}

var boundOK = map[string]func(int) bool{
	"minimum":          func(c int) bool { return c >= 0 },
	"maximum":          func(c int) bool { return c <= 0 },
	"exclusiveMinimum": func(c int) bool { return c > 0 },
	"exclusiveMaximum": func(c int) bool { return c < 0 },
}

// entry is a property name the schema declares in properties or required.
type entry struct {
	name    string
	sub     *schema // nil when the name appears only in required
	inProps bool
}

// schema is one compiled subschema.
type schema struct {
	never bool  // the false schema
	types uint8 // 0 when there is no type keyword

	entries    []entry
	index      map[string]int32 // name → entries index, for many entries
	required   []int32          // entries indexes
	additional *schema          // nil when absent

	minLen, maxLen int64 // -1 when absent
	pattern        *compiledPattern

	bounds []bound

	items              *schema
	minItems, maxItems int64 // -1 when absent
	unique             bool

	// kinds holds the type bits of the kinds that keywords of s constrain besides
	// type and enum: tString for minLength, maxLength or pattern, tNumber for
	// bounds, tArray for minItems or maxItems. Validation looks no further for
	// values of other kinds.
	kinds uint8

	enum  []int32 // tokens of the owning program's schema tape
	anyOf []*schema
	oneOf []*schema

	enumH []hpair // large enums: (hash, token) of each value, sorted by hash (see indexEnum)
}

// lookup answers the entries index of the member name, or -1.
func (s *schema) lookup(name []byte) int32 {
	if s.index != nil {
		if i, ok := s.index[string(name)]; ok {
			return i
		}
		return -1
	}
	for i := range s.entries {
		if s.entries[i].name == string(name) {
			return int32(i)
		}
	}
	return -1
}

// program is a compiled Validator.
type program struct {
	root   *schema
	schema *tape // the schema's own tape, for enum values
	nodes  int   // schema nodes, charged against MaxNodes
	lim    Limits
}

type compiler struct {
	opts  Options
	annot map[string]bool
}

// NewCompiler returns the bounded Compiler of exactly the SPEC CALL-3 keyword subset.
// opts is copied; nil means the strict subset with default Limits. Names in
// opts.Annotations that are assertion, applicator or core keywords of JSON Schema
// ($ref, allOf, const, ...) are ignored: accepting them as annotations would silently
// weaken validation.
func NewCompiler(opts *Options) Compiler {
	c := &compiler{annot: map[string]bool{"description": true, "default": true}}
	if opts != nil {
		c.opts = *opts
		c.opts.Annotations = slices.Clone(opts.Annotations)
	}
	c.opts.Limits = c.opts.Limits.withDefaults()
	for _, a := range c.opts.Annotations {
		if !assertionKeywords[a] {
			c.annot[a] = true
		}
	}
	return c
}

func (l Limits) withDefaults() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = 32
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = 8192
	}
	if l.MaxStringUnits <= 0 {
		l.MaxStringUnits = 262144
	}
	if l.MaxSteps <= 0 {
		l.MaxSteps = 65536
	}
	if l.MaxPattern <= 0 {
		l.MaxPattern = 512
	}
	return l
}

// maxBytes bounds the JSON text of arguments or a schema: six bytes per string code
// unit (the longest escape) plus sixteen per node.
// Offsets in a tape are int32, so the bound never exceeds 1 GiB.
func (l Limits) maxBytes() int { return min(6*l.MaxStringUnits+16*l.MaxNodes, 1<<30) }

func (l Limits) tape() tapeLimits {
	return tapeLimits{depth: l.MaxDepth, nodes: l.MaxNodes, units: l.MaxStringUnits, bytes: l.maxBytes()}
}

// Compile compiles schema, the JSON text of one input schema.
func (c *compiler) Compile(schemaText []byte) (Validator, error) {
	t := &tape{}
	steps := 0
	if err := t.parse(slices.Clone(schemaText), c.opts.Limits.tape(), &steps); err != nil {
		if isLimit(err) {
			return nil, err
		}
		return nil, &UnsupportedError{}
	}
	p := &program{schema: t, nodes: t.nodes, lim: c.opts.Limits}
	root, err := c.compile(t, 0)
	if err != nil {
		return nil, err
	}
	p.root = root
	return p, nil
}

// compile compiles the subschema at token i: true, false or an object whose keywords
// it reads in document order, one keyword family at a time, so the first keyword in
// error decides the UnsupportedError.
func (c *compiler) compile(t *tape, i int32) (*schema, error) {
	tk := t.toks[i]
	switch tk.kind {
	case kTrue:
		return newSchema(), nil
	case kFalse:
		return &schema{never: true}, nil
	case kObject:
	default:
		return nil, &UnsupportedError{}
	}
	s := newSchema()
	var required []int32
	for j, m := i+1, int32(0); m < tk.n; m++ {
		key, val := j, j+1
		j = t.toks[val].next
		kw := string(t.str(key))
		var err error
		switch kw {
		case "type":
			err = s.compileType(t, val)
		case "enum":
			err = s.compileEnum(t, val)
		case "properties", "additionalProperties", "required":
			err = c.compileObject(s, t, kw, val, &required)
		case "minLength", "maxLength", "pattern":
			err = c.compileString(s, t, kw, val)
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			err = s.compileBound(t, kw, val)
		case "items", "minItems", "maxItems", "uniqueItems":
			err = c.compileArray(s, t, kw, val)
		case "anyOf", "oneOf":
			err = c.compileCombinator(s, t, kw, val)
		default:
			err = c.compileAnnotation(t, kw, val)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := s.resolveRequired(t, required); err != nil {
		return nil, err
	}
	s.finish()
	return s, nil
}

// newSchema returns the schema that accepts everything: no keyword, no bound.
func newSchema() *schema {
	return &schema{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
}

// malformed answers the UnsupportedError of keyword kw with a value of the wrong shape.
func malformed(kw string) error { return &UnsupportedError{Keyword: knownKeyword(kw)} }

// compileType reads the "type" keyword at token val: one type name or a non-empty array
// of distinct ones.
func (s *schema) compileType(t *tape, val int32) error {
	vt := t.toks[val]
	switch vt.kind {
	case kString:
		b, ok := typeNames[string(t.str(val))]
		if !ok {
			return malformed("type")
		}
		s.types = b
	case kArray:
		if vt.n == 0 {
			return malformed("type")
		}
		for e := val + 1; e < vt.next; e = t.toks[e].next {
			if t.toks[e].kind != kString {
				return malformed("type")
			}
			b, ok := typeNames[string(t.str(e))]
			if !ok || s.types&b != 0 {
				return malformed("type")
			}
			s.types |= b
		}
	default:
		return malformed("type")
	}
	return nil
}

// compileEnum reads the "enum" keyword at token val: the tokens of its values, compared
// against the instance at validation time.
func (s *schema) compileEnum(t *tape, val int32) error {
	vt := t.toks[val]
	if vt.kind != kArray {
		return malformed("enum")
	}
	s.enum = []int32{}
	for e := val + 1; e < vt.next; e = t.toks[e].next {
		s.enum = append(s.enum, e)
	}
	s.enumH = indexEnum(t, s.enum)
	return nil
}

// compileObject reads the object keywords properties, additionalProperties and
// required; it appends the tokens of required names to *required, which
// resolveRequired matches to entries once every properties keyword is read.
func (c *compiler) compileObject(s *schema, t *tape, kw string, val int32, required *[]int32) error {
	vt := t.toks[val]
	switch kw {
	case "properties":
		if vt.kind != kObject {
			return malformed(kw)
		}
		for pj, pm := val+1, int32(0); pm < vt.n; pm++ {
			sub, err := c.compile(t, pj+1)
			if err != nil {
				return err
			}
			name := string(t.str(pj))
			if e := findEntry(s.entries, name); e >= 0 {
				s.entries[e].sub, s.entries[e].inProps = sub, true
			} else {
				s.entries = append(s.entries, entry{name: name, sub: sub, inProps: true})
			}
			pj = t.toks[pj+1].next
		}
	case "required":
		if vt.kind != kArray {
			return malformed(kw)
		}
		for e := val + 1; e < vt.next; e = t.toks[e].next {
			if t.toks[e].kind != kString {
				return malformed(kw)
			}
			*required = append(*required, e)
		}
	default: // additionalProperties
		sub, err := c.compileSub(t, kw, val)
		if err != nil {
			return err
		}
		s.additional = sub
	}
	return nil
}

// compileSub compiles the subschema value of keyword kw (items, additionalProperties),
// which must be an object or a boolean.
func (c *compiler) compileSub(t *tape, kw string, val int32) (*schema, error) {
	if k := t.toks[val].kind; k != kObject && k != kTrue && k != kFalse {
		return nil, malformed(kw)
	}
	return c.compile(t, val)
}

// compileCount reads the value of a count keyword (minLength, maxLength, minItems,
// maxItems): a non-negative integer, saturated at MaxInt64.
func compileCount(t *tape, kw string, val int32) (int64, error) {
	if t.toks[val].kind != kNumber {
		return 0, malformed(kw)
	}
	d := parseDecimal(t.lit(val))
	if !d.isInteger() || d.neg && !d.zero() {
		return 0, malformed(kw)
	}
	return d.intValue(math.MaxInt64), nil
}

// compileString reads the string keywords minLength, maxLength and pattern; a pattern
// longer than Limits.MaxPattern is a limit error, not an unsupported one.
func (c *compiler) compileString(s *schema, t *tape, kw string, val int32) error {
	if kw != "pattern" {
		n, err := compileCount(t, kw, val)
		if err != nil {
			return err
		}
		if kw == "minLength" {
			s.minLen = n
		} else {
			s.maxLen = n
		}
		return nil
	}
	if t.toks[val].kind != kString {
		return malformed(kw)
	}
	src := t.str(val)
	if patternUnits(src) > c.opts.Limits.MaxPattern {
		return errPattern
	}
	cp, ok := compilePattern(string(src))
	if !ok {
		return malformed(kw)
	}
	s.pattern = &cp
	return nil
}

// compileBound reads a numeric bound: minimum, maximum, exclusiveMinimum or
// exclusiveMaximum.
func (s *schema) compileBound(t *tape, kw string, val int32) error {
	if t.toks[val].kind != kNumber {
		return malformed(kw)
	}
	s.bounds = append(s.bounds, bound{keyword: knownKeyword(kw), num: parseDecimal(t.lit(val)), ok: boundOK[kw]})
	return nil
}

// compileArray reads the array keywords items, minItems, maxItems and uniqueItems.
func (c *compiler) compileArray(s *schema, t *tape, kw string, val int32) error {
	switch kw {
	case "items":
		sub, err := c.compileSub(t, kw, val)
		if err != nil {
			return err
		}
		s.items = sub
	case "uniqueItems":
		switch t.toks[val].kind {
		case kTrue:
			s.unique = true
		case kFalse:
		default:
			return malformed(kw)
		}
	default: // minItems, maxItems
		n, err := compileCount(t, kw, val)
		if err != nil {
			return err
		}
		if kw == "minItems" {
			s.minItems = n
		} else {
			s.maxItems = n
		}
	}
	return nil
}

// compileCombinator reads anyOf or oneOf: a non-empty array of subschemas.
func (c *compiler) compileCombinator(s *schema, t *tape, kw string, val int32) error {
	vt := t.toks[val]
	if vt.kind != kArray || vt.n == 0 {
		return malformed(kw)
	}
	var subs []*schema
	for e := val + 1; e < vt.next; e = t.toks[e].next {
		sub, err := c.compile(t, e)
		if err != nil {
			return err
		}
		subs = append(subs, sub)
	}
	if kw == "anyOf" {
		s.anyOf = subs
	} else {
		s.oneOf = subs
	}
	return nil
}

// compileAnnotation accepts kw when it is an accepted annotation (and, for $schema, a
// known dialect URI) and refuses every other keyword.
func (c *compiler) compileAnnotation(t *tape, kw string, val int32) error {
	if !c.annot[kw] {
		return &UnsupportedError{Keyword: knownKeyword(kw)}
	}
	if kw == "$schema" {
		if t.toks[val].kind != kString || !schemaURIs[string(t.str(val))] {
			return &UnsupportedError{Keyword: "$schema"}
		}
	}
	return nil
}

// resolveRequired records the required names (tokens of the schema tape) as entries
// of s, adding entries for names properties does not declare; a name listed twice is
// unsupported.
func (s *schema) resolveRequired(t *tape, required []int32) error {
	seen := map[string]bool{}
	for _, e := range required {
		name := string(t.str(e))
		if seen[name] {
			return &UnsupportedError{Keyword: "required"}
		}
		seen[name] = true
		x := findEntry(s.entries, name)
		if x < 0 {
			x = len(s.entries)
			s.entries = append(s.entries, entry{name: name})
		}
		s.required = append(s.required, int32(x))
	}
	return nil
}

// finish derives what validation reads from the keywords: kinds, and for a schema of
// many entries a name → entry map for lookup.
func (s *schema) finish() {
	if s.minLen >= 0 || s.maxLen >= 0 || s.pattern != nil {
		s.kinds |= tString
	}
	if len(s.bounds) > 0 {
		s.kinds |= tNumber
	}
	if s.minItems >= 0 || s.maxItems >= 0 {
		s.kinds |= tArray
	}
	if len(s.entries) > 8 {
		s.index = make(map[string]int32, len(s.entries))
		for k, e := range s.entries {
			s.index[e.name] = int32(k)
		}
	}
}

// findEntry answers the index of the entry called name in es, or -1.
func findEntry(es []entry, name string) int {
	for k := range es {
		if es[k].name == name {
			return k
		}
	}
	return -1
}

var errPattern = &limitError{what: "pattern length"}

// limitError is a bound hit at compile time.
type limitError struct{ what string }

func (e *limitError) Error() string { return "validate: limit exceeded: " + e.what }
func (e *limitError) Unwrap() error { return ErrLimit }

// schemaURIs are the $schema values accepted when "$schema" is an accepted annotation.
var schemaURIs = map[string]bool{
	"https://json-schema.org/draft/2020-12/schema":  true,
	"https://json-schema.org/draft/2020-12/schema#": true,
	"http://json-schema.org/draft-07/schema#":       true,
	"http://json-schema.org/draft-07/schema":        true,
	"https://json-schema.org/draft-07/schema#":      true,
	"https://json-schema.org/draft-07/schema":       true,
}

// assertionKeywords are the JSON Schema keywords (draft 2020-12 and draft-07) that
// assert, apply subschemas or change identifiers: never accepted as annotations.
var assertionKeywords = map[string]bool{}

// vocabulary is every keyword of drafts 2020-12 and 07: an UnsupportedError names a
// keyword only from this list, so no schema text reaches an error.
var vocabulary = map[string]string{}

func init() {
	for _, k := range []string{
		"$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef",
		"$recursiveAnchor", "$vocabulary", "$defs", "definitions",
		"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas",
		"dependencies", "prefixItems", "items", "additionalItems", "contains",
		"properties", "patternProperties", "additionalProperties", "propertyNames",
		"unevaluatedItems", "unevaluatedProperties", "type", "enum", "const",
		"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
		"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
		"maxContains", "minContains", "maxProperties", "minProperties", "required",
		"dependentRequired",
	} {
		assertionKeywords[k] = true
		vocabulary[k] = k
	}
	for _, k := range []string{
		"$schema", "$comment", "title", "description", "default", "deprecated",
		"readOnly", "writeOnly", "examples", "format", "contentEncoding",
		"contentMediaType", "contentSchema",
	} {
		vocabulary[k] = k
	}
	// contentSchema applies a schema; it stays out of the annotation option.
	assertionKeywords["contentSchema"] = true
}

// knownKeyword answers kw when it is a JSON Schema keyword, else "".
func knownKeyword(kw string) string { return vocabulary[kw] }
