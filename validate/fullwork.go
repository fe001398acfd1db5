package validate

import (
	"encoding/json"
	"math"
	"regexp/syntax"
	"slices"
	"strconv"
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

// exactNumbers makes float64 equality exact for the numbers enum, const and
// uniqueItems compare. google/jsonschema-go decodes numbers as float64 and compares
// those, so two different numbers that round to the same float64 (8,000 distinct
// 30-digit decimals) would be equal to it. owners maps the float64 of each number in
// the schema's enum and const values to that number's literal (Compile refuses two
// different ones sharing a float64).
type exactNumbers struct {
	owners map[float64][]byte
	plain  bool // every owner has at most 15 significant digits
}

// plainDigits reports whether the number literal has at most 15 significant digits
// and a float64 of normal range: distinct such numbers have distinct float64 values
// (float64 holds 15 decimal digits exactly).
func plainDigits(lit []byte) bool {
	d := parseDecimal(lit)
	return d.zero() || d.sig1-d.sig0 <= 15 && d.exp > -300 && d.exp < 300
}

// floats answers the float64 each number token of t decodes to: its nearest float64,
// except that when different numbers share a nearest float64, all but one of them
// (the schema's own value, else the one a float64 prints as, else the least) move to
// the nearest float64 values no other number uses, on their own side, so equal
// float64 values mean equal numbers. Other keywords (bounds, multipleOf, "integer")
// see float64 values, as in the library, within a few units in the last place of
// the number's own value. ok is false for a number beyond float64's range.
func (x *exactNumbers) floats(t *tape, nums []int32) (map[int32]float64, bool) {
	out := make(map[int32]float64, len(nums))
	fast := x.plain
	for _, i := range nums {
		f, err := strconv.ParseFloat(string(t.lit(i)), 64)
		if err != nil {
			return nil, false
		}
		out[i] = f
		if fast && !plainDigits(t.lit(i)) {
			fast = false
		}
	}
	if fast {
		return out, true
	}
	if !x.separate(t, nums, out) {
		return nil, false
	}
	return out, true
}

// separate moves apart the numbers of out that share a float64 with a different
// number; see floats.
func (x *exactNumbers) separate(t *tape, nums []int32, out map[int32]float64) bool {
	groups := map[float64][]int32{}
	taken := map[float64]bool{}
	for f := range x.owners {
		taken[f] = true
	}
	for _, i := range nums {
		f := out[i]
		groups[f] = append(groups[f], i)
		taken[f] = true
	}
	cmpTok := func(a, b int32) int {
		da, db := parseDecimal(t.lit(a)), parseDecimal(t.lit(b))
		return cmpDecimal(&da, &db)
	}
	for f, g := range groups {
		var owner decimal
		hasOwner := false
		if lit, ok := x.owners[f]; ok {
			owner, hasOwner = parseDecimal(lit), true
		}
		if !hasOwner && !x.collides(t, g, cmpTok) {
			continue
		}
		slices.SortFunc(g, cmpTok)
		if !hasOwner {
			// The number a float64 prints as, else the least.
			owner = parseDecimal(t.lit(g[0]))
			short := parseDecimal([]byte(strconv.FormatFloat(f, 'g', -1, 64)))
			for _, i := range g {
				if d := parseDecimal(t.lit(i)); cmpDecimal(&d, &short) == 0 {
					owner = d
					break
				}
			}
		}
		// Above the owner, upwards in increasing order; below it, downwards in
		// decreasing order; equal numbers share one new value.
		up, down := f, f
		var last decimal
		var lastF float64
		for pass := 0; pass < 2; pass++ {
			first := true
			for k := range g {
				i := g[k]
				if pass == 1 {
					i = g[len(g)-1-k]
				}
				d := parseDecimal(t.lit(i))
				c := cmpDecimal(&d, &owner)
				if c == 0 || (pass == 0) != (c > 0) {
					continue
				}
				if !first && cmpDecimal(&d, &last) == 0 {
					out[i] = lastF
					continue
				}
				first, last = false, d
				var ok bool
				if pass == 0 {
					up, ok = nextFree(up, math.Inf(1), taken)
					lastF = up
				} else {
					down, ok = nextFree(down, math.Inf(-1), taken)
					lastF = down
				}
				if !ok {
					return false
				}
				out[i] = lastF
			}
		}
	}
	return true
}

// collides reports whether the tokens of g (numbers of one float64) hold two
// different numbers.
func (x *exactNumbers) collides(t *tape, g []int32, cmpTok func(a, b int32) int) bool {
	for _, i := range g[1:] {
		if cmpTok(g[0], i) != 0 {
			return true
		}
	}
	return false
}

// nextFree answers the nearest float64 beyond f towards dir that no number uses,
// and marks it used; ok is false past the largest finite float64.
func nextFree(f, dir float64, taken map[float64]bool) (float64, bool) {
	for {
		f = math.Nextafter(f, dir)
		if math.IsInf(f, 0) {
			return 0, false
		}
		if !taken[f] {
			taken[f] = true
			return f, true
		}
	}
}

// newExactNumbers collects the numbers of the enum and const values of the schemas of
// g; two different numbers sharing a float64 are unsupported (the library could not
// tell them apart).
func newExactNumbers(g *refGraph) (*exactNumbers, error) {
	x := &exactNumbers{owners: map[float64][]byte{}, plain: true}
	var visit func(v any, kw string) error
	visit = func(v any, kw string) error {
		switch v := v.(type) {
		case json.Number:
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				return &UnsupportedError{Keyword: kw}
			}
			lit := []byte(string(v))
			if old, ok := x.owners[f]; ok {
				a, b := parseDecimal(old), parseDecimal(lit)
				if cmpDecimal(&a, &b) != 0 {
					return &UnsupportedError{Keyword: kw}
				}
				return nil
			}
			x.owners[f] = lit
			if !plainDigits(lit) {
				x.plain = false
			}
		case []any:
			for _, e := range v {
				if err := visit(e, kw); err != nil {
					return err
				}
			}
		case map[string]any:
			for _, e := range v {
				if err := visit(e, kw); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, n := range g.nodes {
		if m, ok := n.(map[string]any); ok {
			for _, kw := range []string{"enum", "const"} {
				if v, ok := m[kw]; ok {
					if err := visit(v, kw); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return x, nil
}

// fullValue builds the value the library validates from value i of t: nil, bool,
// float64 (from nums), string, []any and map[string]any, as encoding/json decodes.
func fullValue(t *tape, i int32, nums map[int32]float64) any {
	tk := &t.toks[i]
	switch tk.kind {
	case kNull:
		return nil
	case kTrue:
		return true
	case kFalse:
		return false
	case kNumber:
		return nums[i]
	case kString:
		return string(t.str(i))
	case kArray:
		out := make([]any, 0, tk.n)
		for e := i + 1; e < tk.next; e = t.toks[e].next {
			out = append(out, fullValue(t, e, nums))
		}
		return out
	}
	out := make(map[string]any, tk.n)
	for j, m := i+1, int32(0); m < tk.n; m++ {
		out[string(t.str(j))] = fullValue(t, j+1, nums)
		j = t.toks[j+1].next
	}
	return out
}
