package validate

import (
	"math"
	"regexp/syntax"
)

// Work-step charges of the full validator (see NewFull). A step is at most about
// 75 ns of google/jsonschema-go's work (process CPU time on the 2-core development
// machine under load), so MaxSteps (65,536) is about SPEC PERF-4's 5 ms. Measured
// with BenchmarkFullHeavy (cpu-ns/op over steps/op, "unbudgeted"): an application
// to a number 775 ns, an object member 2.4 µs (the library's annotations), an enum
// comparison 128 ns, a uniqueItems item 2.3-3.1 µs.
const (
	fullNode    = 2  // decoding one argument node into the value the library reads
	fullApply   = 10 // the library applying one schema to one value
	fullMember  = 32 // ... and to each member of an object value
	fullCompare = 2  // one enum value compared (two big.Rat for a number)
	fullHash    = 40 // uniqueItems: one node hashed (big.Rat for a number, sorted keys)
	fullRegexp  = 2  // pattern: Go regexp work units, (bytes + 1) × instructions, per step
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
	nodes := map[string]*fnode{}
	var get func(ptr string) (*fnode, error)
	get = func(ptr string) (*fnode, error) {
		if n, ok := nodes[ptr]; ok {
			return n, nil
		}
		v, ok := g.nodes[ptr]
		if !ok {
			return nil, nil
		}
		n := &fnode{}
		nodes[ptr] = n // before the children: references may lead back here
		m, ok := v.(map[string]any)
		if !ok {
			return n, nil // true or false
		}
		add := func(list *[]*fnode, p string) error {
			c, err := get(p)
			if c != nil {
				*list = append(*list, c)
			}
			return err
		}
		for k, child := range m {
			kp := ptr + "/" + escapePointer(k)
			var err error
			switch k {
			case "enum":
				if arr, ok := child.([]any); ok {
					n.enumN = len(arr)
					n.enumNodes = countNodes(child)
				}
			case "const":
				n.constN = countNodes(child)
			case "uniqueItems":
				n.unique = child == true
			case "minLength", "maxLength":
				n.length = true
			case "pattern":
				if p, ok := child.(string); ok {
					if n.pattern, err = progSize(p); err != nil {
						return nil, err
					}
				}
			case "required", "dependentRequired":
				n.required += countNodes(child)
			case "allOf", "anyOf", "oneOf":
				if arr, ok := child.([]any); ok {
					for i := range arr {
						err = add(&n.inPlace, kp+"/"+itoa(i))
						if err != nil {
							break
						}
					}
				}
			case "not", "if", "then", "else":
				err = add(&n.inPlace, kp)
			case "dependentSchemas", "dependencies":
				if mm, ok := child.(map[string]any); ok {
					for name := range mm {
						if err = add(&n.inPlace, kp+"/"+escapePointer(name)); err != nil {
							break
						}
					}
				}
			case "$ref", "$dynamicRef":
				ref, _ := child.(string)
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
					if err = add(&n.inPlace, p); err != nil {
						break
					}
				}
			case "properties":
				if mm, ok := child.(map[string]any); ok {
					n.props = map[string]*fnode{}
					for name := range mm {
						c, err := get(kp + "/" + escapePointer(name))
						if err != nil {
							return nil, err
						}
						if c != nil {
							n.props[name] = c
						}
					}
				}
			case "patternProperties":
				if mm, ok := child.(map[string]any); ok {
					for name := range mm {
						size, err := progSize(name)
						if err != nil {
							return nil, err
						}
						c, err := get(kp + "/" + escapePointer(name))
						if err != nil {
							return nil, err
						}
						if c != nil {
							n.patProps = append(n.patProps, fpattern{size: size, sub: c})
						}
					}
				}
			case "additionalProperties", "unevaluatedProperties":
				err = add(&n.others, kp)
			case "propertyNames":
				n.names, err = get(kp)
			case "prefixItems":
				if arr, ok := child.([]any); ok {
					for i := range arr {
						if err = add(&n.prefix, kp+"/"+itoa(i)); err != nil {
							break
						}
					}
				}
			case "items":
				if arr, ok := child.([]any); ok {
					for i := range arr {
						if err = add(&n.prefix, kp+"/"+itoa(i)); err != nil {
							break
						}
					}
				} else {
					err = add(&n.rest, kp)
				}
			case "additionalItems", "unevaluatedItems", "contains":
				err = add(&n.rest, kp)
			}
			if err != nil {
				return nil, err
			}
		}
		return n, nil
	}
	root, err := get("")
	if root == nil && err == nil {
		root = &fnode{}
	}
	return root, err
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
	return b.steps
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
