package validate

import (
	"math"
	"regexp/syntax"
)

// Work-step charges of the full validator (see NewFull). A step is at most about
// 75 ns of google/jsonschema-go's work (process CPU time on the 2-core development
// machine under load), so MaxSteps (65,536) is about SPEC PERF-4's 5 ms. Measured
// with BenchmarkFullHeavy, cpu-ns/op over steps/op of its "unbudgeted" cases:
//
//	go test ./validate -run '^$' -bench 'FullHeavy/.*/unbudgeted' -benchtime 2x
//
// an application to a number 775 ns, an object member 2.4 µs (the library's
// annotations), a uniqueItems item 2.3-3.1 µs, an enum comparison 128 ns quiet but
// 240-300 ns under load (128 B allocated each, so the collector's share grows): on
// 2026-12-01 under load, 32-57 ns a step for every case but enum3000x3000, which
// measured 81-102 ns a step at 2 steps a comparison and is charged 4 since; moving
// apart numbers that share a float64 (numbers30digits) about 1 µs a number, 42-62 ns
// a step at fullExact 16.
const (
	fullNode    = 2  // decoding one argument node into the value the library reads
	fullApply   = 10 // the library applying one schema to one value
	fullMember  = 32 // ... and to each member of an object value
	fullCompare = 4  // one enum value compared (two big.Rat for a number)
	fullHash    = 40 // uniqueItems: one node hashed (big.Rat for a number, sorted keys)
	fullRegexp  = 2  // pattern: Go regexp work units, (bytes + 1) × instructions, per step
	fullExact   = 16 // one argument number, when some number has more than 15 digits (exactNumbers)
)

// fnode is one schema of a NewFull schema reduced to what applying it costs: its
// assertions' sizes and the schemas it applies, in place or to members and items.
type fnode struct {
	enumN     int // enum values
	enumNodes int // nodes over all enum values
	constN    int // nodes of the const value, 0 when absent
	unique    bool
	length    bool // minLength or maxLength: the library counts code points
	pattern   int  // instructions of the pattern's program, 0 when absent
	required  int
	inPlace   []*fnode // allOf, anyOf, oneOf, not, if, then, else, dependentSchemas, $ref, $dynamicRef
	props     map[string]*fnode
	patProps  []fpattern
	others    []*fnode // additionalProperties, unevaluatedProperties (charged for every member)
	names     *fnode   // propertyNames
	prefix    []*fnode // prefixItems, or draft-07 items as an array
	rest      []*fnode // items, additionalItems, unevaluatedItems, contains (charged for every item)
}

type fpattern struct {
	size int
	sub  *fnode
}

// costGraph builds the fnode of every schema of g, reached from the root; it answers
// an *UnsupportedError for a pattern Go's regexp cannot parse.
func (g *refGraph) costGraph() (*fnode, error) {
	b := &costBuilder{g: g, nodes: map[string]*fnode{}}
	root, err := b.node("")
	if root == nil && err == nil {
		root = &fnode{}
	}
	return root, err
}

// costBuilder builds the fnodes of a refGraph, one per schema pointer.
type costBuilder struct {
	g     *refGraph
	nodes map[string]*fnode
}

// node answers the fnode of the schema at ptr, built on first use, or nil when g has
// no schema there.
func (b *costBuilder) node(ptr string) (*fnode, error) {
	if n, ok := b.nodes[ptr]; ok {
		return n, nil
	}
	v, ok := b.g.nodes[ptr]
	if !ok {
		return nil, nil
	}
	n := &fnode{}
	b.nodes[ptr] = n // before the children: references may lead back here
	m, ok := v.(map[string]any)
	if !ok {
		return n, nil // true or false
	}
	for k, child := range m {
		if err := n.measure(k, child); err != nil {
			return nil, err
		}
		if err := b.link(n, ptr, k, child); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// measure records in n the size of assertion keyword k with value v; it ignores
// other keywords.
func (n *fnode) measure(k string, v any) error {
	var err error
	switch k {
	case "enum":
		if arr, ok := v.([]any); ok {
			n.enumN = len(arr)
			n.enumNodes = countNodes(v)
		}
	case "const":
		n.constN = countNodes(v)
	case "uniqueItems":
		n.unique = v == true
	case "minLength", "maxLength":
		n.length = true
	case "pattern":
		if p, ok := v.(string); ok {
			n.pattern, err = progSize(p)
		}
	case "required", "dependentRequired":
		n.required += countNodes(v)
	}
	return err
}

// link adds to n the schemas that applicator keyword k of the schema at ptr, with
// value v, applies: in place, to members or to items; it ignores other keywords.
func (b *costBuilder) link(n *fnode, ptr, k string, v any) error {
	kp := ptr + "/" + escapePointer(k)
	switch k {
	case "allOf", "anyOf", "oneOf":
		return b.addItems(&n.inPlace, kp, v)
	case "not", "if", "then", "else":
		return b.add(&n.inPlace, kp)
	case "dependentSchemas", "dependencies":
		return b.addMembers(&n.inPlace, kp, v)
	case "$ref", "$dynamicRef":
		return b.addRefs(n, ptr, k, v)
	case "properties":
		return b.properties(n, kp, v)
	case "patternProperties":
		return b.patternProperties(n, kp, v)
	case "additionalProperties", "unevaluatedProperties":
		return b.add(&n.others, kp)
	case "propertyNames":
		var err error
		n.names, err = b.node(kp)
		return err
	case "prefixItems":
		return b.addItems(&n.prefix, kp, v)
	case "items":
		if _, ok := v.([]any); ok {
			return b.addItems(&n.prefix, kp, v)
		}
		return b.add(&n.rest, kp)
	case "additionalItems", "unevaluatedItems", "contains":
		return b.add(&n.rest, kp)
	}
	return nil
}

// add appends the fnode of the schema at ptr, if any, to list.
func (b *costBuilder) add(list *[]*fnode, ptr string) error {
	c, err := b.node(ptr)
	if c != nil {
		*list = append(*list, c)
	}
	return err
}

// addItems adds to list the schemas of v, when v is an array of them at kp.
func (b *costBuilder) addItems(list *[]*fnode, kp string, v any) error {
	arr, _ := v.([]any)
	for i := range arr {
		if err := b.add(list, kp+"/"+itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

// addMembers adds to list the schemas of v, when v is an object of them at kp.
func (b *costBuilder) addMembers(list *[]*fnode, kp string, v any) error {
	mm, _ := v.(map[string]any)
	for name := range mm {
		if err := b.add(list, kp+"/"+escapePointer(name)); err != nil {
			return err
		}
	}
	return nil
}

// addRefs adds to n.inPlace the schemas that $ref or $dynamicRef (k) v of the schema
// at ptr may resolve to: its static target and, for $dynamicRef, every dynamic anchor
// of its name.
func (b *costBuilder) addRefs(n *fnode, ptr, k string, v any) error {
	g := b.g
	ref, _ := v.(string)
	targets := []string{}
	if p, ok := g.resolve(ref, g.bases[ptr]); ok {
		targets = append(targets, p)
	}
	if k == "$dynamicRef" {
		if _, name, ok := cutFragment(ref); ok {
			targets = append(targets, g.dynamic[name]...)
		}
	}
	for _, p := range targets {
		if err := b.add(&n.inPlace, p); err != nil {
			return err
		}
	}
	return nil
}

// properties records in n.props the schema of each property of v, at kp.
func (b *costBuilder) properties(n *fnode, kp string, v any) error {
	mm, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	n.props = map[string]*fnode{}
	for name := range mm {
		c, err := b.node(kp + "/" + escapePointer(name))
		if err != nil {
			return err
		}
		if c != nil {
			n.props[name] = c
		}
	}
	return nil
}

// patternProperties records in n.patProps each pattern of v, by its program size, and
// its schema at kp.
func (b *costBuilder) patternProperties(n *fnode, kp string, v any) error {
	mm, _ := v.(map[string]any)
	for name := range mm {
		size, err := progSize(name)
		if err != nil {
			return err
		}
		c, err := b.node(kp + "/" + escapePointer(name))
		if err != nil {
			return err
		}
		if c != nil {
			n.patProps = append(n.patProps, fpattern{size: size, sub: c})
		}
	}
	return nil
}

func cutFragment(ref string) (string, string, bool) {
	for i := 0; i < len(ref); i++ {
		if ref[i] == '#' {
			return ref[:i], ref[i+1:], true
		}
	}
	return ref, "", false
}

// estimate answers the steps the work budget charges for args, without a budget (for
// benchmarks and tests), or -1 when args do not scan.
func (v *fullValidator) estimate(args []byte) int {
	t := &tape{}
	steps := 0
	lim := v.lim.tape()
	lim.nodes -= v.nodes
	if err := t.parse(args, lim, &steps); err != nil {
		return -1
	}
	b := fullBudget{t: t, steps: steps + fullNode*t.nodes, max: math.MaxInt}
	b.apply(v.root, 0)
	if nums := t.numbers(); !v.exact.plainFor(t, nums) {
		b.spend(fullExact * len(nums))
	}
	return b.steps
}

// numbers answers the indexes of t's number tokens.
func (t *tape) numbers() []int32 {
	var nums []int32
	for k := range t.toks {
		if t.toks[k].kind == kNumber {
			nums = append(nums, int32(k))
		}
	}
	return nums
}

// countNodes counts the JSON values of a decoded value, keys excluded.
func countNodes(v any) int {
	switch v := v.(type) {
	case []any:
		n := 1
		for _, e := range v {
			n += countNodes(e)
		}
		return n
	case map[string]any:
		n := 1
		for _, e := range v {
			n += countNodes(e)
		}
		return n
	}
	return 1
}

// progSize answers the instruction count of the program Go's regexp compiles for p,
// as the library runs patterns: Go syntax as written.
func progSize(p string) (int, error) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return 0, &UnsupportedError{Keyword: "pattern"}
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0, &UnsupportedError{Keyword: "pattern"}
	}
	return len(prog.Inst), nil
}

// fullBudget estimates, before the library runs, the work of validating the
// arguments on tape t: it applies the schemas as the library would, assuming every
// applicator applies (every branch of anyOf, both then and else, every
// patternProperties schema to every member), so the estimate bounds the work from
// above, and stops as soon as the estimate passes max.
type fullBudget struct {
	t          *tape
	steps, max int
}

func (b *fullBudget) spend(n int) bool {
	b.steps += n
	return b.steps <= b.max
}

// apply charges schema n applied to value i and everything it applies.
func (b *fullBudget) apply(n *fnode, i int32) bool {
	t := b.t
	tk := &t.toks[i]
	size := int(tk.next - i)
	c := fullApply
	if n.enumN > 0 {
		c += n.enumN*fullCompare + min(n.enumNodes, n.enumN*size)
	}
	if n.constN > 0 {
		c += min(n.constN, size)
	}
	switch tk.kind {
	case kString:
		l := int(tk.end - tk.off)
		if n.length {
			c += l / 64
		}
		c += (l + 1) * n.pattern / fullRegexp
	case kObject:
		c += n.required + int(tk.n)*fullMember
	case kArray:
		if n.unique {
			c += size * fullHash
		}
	}
	if !b.spend(c) {
		return false
	}
	switch tk.kind {
	case kArray:
		k := 0
		for e := i + 1; e < tk.next; e = t.toks[e].next {
			if k < len(n.prefix) && !b.apply(n.prefix[k], e) {
				return false
			}
			for _, r := range n.rest {
				if !b.apply(r, e) {
					return false
				}
			}
			k++
		}
	case kObject:
		for j, m := i+1, int32(0); m < tk.n; m++ {
			key, val := j, j+1
			j = t.toks[val].next
			name := t.str(key)
			if sub, ok := n.props[string(name)]; ok && !b.apply(sub, val) {
				return false
			}
			for _, pp := range n.patProps {
				if !b.spend((len(name)+1)*pp.size/fullRegexp) || !b.apply(pp.sub, val) {
					return false
				}
			}
			for _, o := range n.others {
				if !b.apply(o, val) {
					return false
				}
			}
			if n.names != nil && !b.apply(n.names, key) {
				return false
			}
		}
	}
	for _, sub := range n.inPlace {
		if !b.apply(sub, i) {
			return false
		}
	}
	return true
}
