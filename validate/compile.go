package validate

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
)

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

// compileTapes pools the tapes Compile parses schema text into; a program keeps none.
var compileTapes = sync.Pool{New: func() any { return new(tape) }}

// build is the state of one Compile: the enum values copied so far and, per
// subschema being compiled, the properties and required names read so far.
type build struct {
	*compiler
	enums tape // token 0 is a placeholder, so that enum 0 means none
}

// draft is a subschema's object keywords while compile reads them.
type draft struct {
	names    []string
	subs     []*schema
	required []int32 // tokens of the schema tape
}

// Compile compiles schema, the JSON text of one input schema. The program keeps no
// reference to schemaText.
func (c *compiler) Compile(schemaText []byte) (Validator, error) {
	t := compileTapes.Get().(*tape)
	defer func() {
		t.src = nil
		if cap(t.toks) > 1<<15 || cap(t.arena) > 4<<20 {
			*t = tape{}
		}
		compileTapes.Put(t)
	}()
	steps := 0
	if err := t.parse(schemaText, c.opts.Limits.tape(), &steps); err != nil {
		if isLimit(err) {
			return nil, err
		}
		return nil, &UnsupportedError{}
	}
	b := &build{compiler: c}
	root, err := b.compile(t, 0)
	if err != nil {
		return nil, err
	}
	p := &program{root: root, nodes: t.nodes, lim: &c.opts.Limits}
	if len(b.enums.toks) > 0 {
		p.enums = &tape{src: slices.Clone(b.enums.src), toks: slices.Clone(b.enums.toks)}
	}
	return p, nil
}

// compile compiles the subschema at token i: true, false or an object whose keywords
// it reads in document order, one keyword family at a time, so the first keyword in
// error decides the UnsupportedError. A subschema without enum (its own or its
// subschemas') is interned: the node answered may be one compiled before.
func (b *build) compile(t *tape, i int32) (*schema, error) {
	enums := len(b.enums.toks)
	s, err := b.compileNode(t, i)
	if err != nil {
		return nil, err
	}
	if len(b.enums.toks) == enums {
		s = intern(s)
	}
	return s, nil
}

func (b *build) compileNode(t *tape, i int32) (*schema, error) {
	tk := t.toks[i]
	switch tk.kind {
	case kTrue:
		return &schema{}, nil
	case kFalse:
		return &schema{never: true}, nil
	case kObject:
	default:
		return nil, &UnsupportedError{}
	}
	s := &schema{}
	var d draft
	for j, m := i+1, int32(0); m < tk.n; m++ {
		key, val := j, j+1
		j = t.toks[val].next
		kw := string(t.str(key))
		var err error
		switch kw {
		case "type":
			err = s.compileType(t, val)
		case "enum":
			err = b.compileEnum(s, t, val)
		case "properties", "additionalProperties", "required":
			err = b.compileObject(s, &d, t, kw, val)
		case "minLength", "maxLength", "pattern":
			err = b.compileString(s, t, kw, val)
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			err = s.compileBound(t, kw, val)
		case "items", "minItems", "maxItems", "uniqueItems":
			err = b.compileArray(s, t, kw, val)
		case "anyOf", "oneOf":
			err = b.compileCombinator(s, t, kw, val)
		default:
			err = b.compileAnnotation(t, kw, val)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := s.resolveObject(t, &d); err != nil {
		return nil, err
	}
	s.finish()
	return s, nil
}

// more answers s.x, allocating it (every bound absent) on first use.
func (s *schema) more() *moreKeywords {
	if s.x == nil {
		s.x = &moreKeywords{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	}
	return s.x
}

// object answers s.obj, allocating it on first use.
func (s *schema) object() *objectKeywords {
	if s.obj == nil {
		s.obj = &objectKeywords{}
	}
	return s.obj
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

// compileObject reads the object keywords properties, additionalProperties and
// required into s and d; resolveObject matches required names to properties once
// every keyword is read.
func (b *build) compileObject(s *schema, d *draft, t *tape, kw string, val int32) error {
	vt := t.toks[val]
	switch kw {
	case "properties":
		if vt.kind != kObject {
			return malformed(kw)
		}
		for pj, pm := val+1, int32(0); pm < vt.n; pm++ {
			sub, err := b.compile(t, pj+1)
			if err != nil {
				return err
			}
			// The tape refuses duplicate keys: each name comes once.
			d.names, d.subs = append(d.names, string(t.str(pj))), append(d.subs, sub)
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
			d.required = append(d.required, e)
		}
	default: // additionalProperties
		sub, err := b.compileSub(t, kw, val)
		if err != nil {
			return err
		}
		s.object().additional = sub
	}
	return nil
}

// compileSub compiles the subschema value of keyword kw (items, additionalProperties),
// which must be an object or a boolean.
func (b *build) compileSub(t *tape, kw string, val int32) (*schema, error) {
	if k := t.toks[val].kind; k != kObject && k != kTrue && k != kFalse {
		return nil, malformed(kw)
	}
	return b.compile(t, val)
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
func (b *build) compileString(s *schema, t *tape, kw string, val int32) error {
	if kw != "pattern" {
		n, err := compileCount(t, kw, val)
		if err != nil {
			return err
		}
		if kw == "minLength" {
			s.more().minLen = n
		} else {
			s.more().maxLen = n
		}
		return nil
	}
	if t.toks[val].kind != kString {
		return malformed(kw)
	}
	src := t.str(val)
	if patternUnits(src) > b.opts.Limits.MaxPattern {
		return errPattern
	}
	cp, ok := internPattern(string(src))
	if !ok {
		return malformed(kw)
	}
	s.more().pattern = cp
	return nil
}

// compileBound reads a numeric bound: minimum, maximum, exclusiveMinimum or
// exclusiveMaximum.
func (s *schema) compileBound(t *tape, kw string, val int32) error {
	if t.toks[val].kind != kNumber {
		return malformed(kw)
	}
	lit := slices.Clone(t.lit(val))
	x := s.more()
	x.bounds = append(x.bounds, bound{keyword: knownKeyword(kw), lit: lit, num: parseDecimal(lit), ok: boundOK[kw]})
	return nil
}

// compileArray reads the array keywords items, minItems, maxItems and uniqueItems.
func (b *build) compileArray(s *schema, t *tape, kw string, val int32) error {
	switch kw {
	case "items":
		sub, err := b.compileSub(t, kw, val)
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
			s.more().minItems = n
		} else {
			s.more().maxItems = n
		}
	}
	return nil
}

// compileCombinator reads anyOf or oneOf: a non-empty array of subschemas.
func (b *build) compileCombinator(s *schema, t *tape, kw string, val int32) error {
	vt := t.toks[val]
	if vt.kind != kArray || vt.n == 0 {
		return malformed(kw)
	}
	subs := make([]*schema, 0, vt.n)
	for e := val + 1; e < vt.next; e = t.toks[e].next {
		sub, err := b.compile(t, e)
		if err != nil {
			return err
		}
		subs = append(subs, sub)
	}
	if kw == "anyOf" {
		s.more().anyOf = subs
	} else {
		s.more().oneOf = subs
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

// resolveObject records the properties and the required names (tokens of the schema
// tape) of d as entries of s, adding entries for names properties does not declare;
// a name listed twice in required is unsupported. The names are stored end to end,
// and sorted by name when there are many.
func (s *schema) resolveObject(t *tape, d *draft) error {
	nprops := len(d.names)
	var required []int32
	if len(d.required) > 0 {
		index := make(map[string]int, len(d.names)+len(d.required))
		for k, n := range d.names {
			index[n] = k
		}
		seen := make(map[string]bool, len(d.required))
		for _, e := range d.required {
			name := string(t.str(e))
			if seen[name] {
				return &UnsupportedError{Keyword: "required"}
			}
			seen[name] = true
			x, ok := index[name]
			if !ok {
				x = len(d.names)
				index[name] = x
				d.names = append(d.names, name)
			}
			required = append(required, int32(x))
		}
	}
	if len(d.names) == 0 {
		return nil
	}
	o := s.object()
	order := make([]int32, len(d.names)) // order[k]: the draft index of entry k
	for k := range order {
		order[k] = int32(k)
	}
	if len(order) > sortedEntries {
		slices.SortFunc(order, func(a, b int32) int {
			return cmp.Or(cmp.Compare(len(d.names[a]), len(d.names[b])), strings.Compare(d.names[a], d.names[b]))
		})
	}
	where := make([]int32, len(order)) // where[draft index]: the entry index
	size := 0
	for _, n := range d.names {
		size += len(n)
	}
	names := make([]byte, 0, size)
	o.entries = make([]entry, len(order))
	for k, di := range order {
		where[di] = int32(k)
		off := len(names)
		names = append(names, d.names[di]...)
		o.entries[k] = entry{off: uint32(off), end: uint32(len(names))}
		if int(di) < nprops {
			o.entries[k].sub = d.subs[di]
		}
	}
	o.names = string(names)
	if len(required) > 0 {
		o.required = make([]int32, len(required))
		for k, di := range required {
			o.required[k] = where[di]
		}
	}
	return nil
}

// finish derives kinds, what validation reads to skip the keywords of other kinds.
func (s *schema) finish() {
	x := s.x
	if x == nil {
		return
	}
	if x.minLen >= 0 || x.maxLen >= 0 || x.pattern != nil {
		s.kinds |= tString
	}
	if len(x.bounds) > 0 {
		s.kinds |= tNumber
	}
	if x.minItems >= 0 || x.maxItems >= 0 {
		s.kinds |= tArray
	}
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
