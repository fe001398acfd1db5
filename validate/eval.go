package validate

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// status is the outcome of checking one value against one subschema.
type status uint8

const (
	pass status = iota
	fail
	over // a bound was hit: no verdict
)

// seg is one step of the path to the value being checked: a declared property name
// when idx == segName, an array index when idx >= 0, or an undeclared member (which
// adds nothing to the path, so no argument text reaches an error) when idx == -1.
type seg struct {
	name string
	idx  int32
}

const segName = -2

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// hpair is a slot of the hash tables that find duplicates: a value's (or key's) hash
// and its token index, 0 for a free slot (no value or key is token 0).
type hpair struct {
	h uint64
	i int32
}

// state is the scratch of one validation, pooled so that a steady-state validation
// allocates nothing.
type state struct {
	t        tape
	p        *program
	steps    int
	max      int
	quiet    int // > 0 inside anyOf/oneOf branches: failures are not recorded
	kw       string
	failPath string
	path     []seg
	bits     []uint64
	table    []hpair // uniqueItems hash table; i == 0 marks a free slot
}

var statePool = sync.Pool{New: func() any { return new(state) }}

// Validate validates args, the JSON text of one call's arguments. Empty text (or only
// white space) means the call had no arguments and is validated as {}; any other text,
// including null, is validated as the JSON value it is.
func (p *program) Validate(args []byte) error {
	_, err := p.run(args)
	return err
}

// run validates args and answers the work steps it spent (tests read them).
func (p *program) run(args []byte) (int, error) {
	st := statePool.Get().(*state)
	err := st.run(p, args)
	steps := st.steps
	st.t.src = nil
	st.p = nil
	if cap(st.t.toks) > 1<<15 || cap(st.t.arena) > 4<<20 {
		st.t = tape{}
	}
	statePool.Put(st)
	return steps, err
}

var emptyObject = []byte("{}")

func (st *state) run(p *program, args []byte) error {
	a, b := 0, len(args)
	for a < b && jsonlex.IsSpace(args[a]) {
		a++
	}
	for b > a && jsonlex.IsSpace(args[b-1]) {
		b--
	}
	if a == b {
		args = emptyObject
	}
	st.p = p
	st.steps, st.max = 0, p.lim.MaxSteps
	st.quiet, st.kw, st.failPath = 0, "", ""
	st.path, st.bits = st.path[:0], st.bits[:0]
	lim := p.lim.tape()
	lim.nodes -= p.nodes
	if err := st.t.parse(args, lim, &st.steps); err != nil {
		return err
	}
	if st.steps > st.max {
		return errSteps
	}
	switch st.check(p.root, 0) {
	case pass:
		return nil
	case over:
		return errSteps
	}
	return &ValidationError{Keyword: st.kw, Path: st.failPath}
}

// reject records the first failure outside anyOf/oneOf branches and answers fail.
func (st *state) reject(kw string) status {
	if st.quiet == 0 && st.kw == "" {
		st.kw = kw
		var b strings.Builder
		for _, s := range st.path {
			switch {
			case s.idx == segName:
				b.WriteByte('/')
				b.WriteString(pointerEscaper.Replace(s.name))
			case s.idx >= 0:
				b.WriteByte('/')
				b.WriteString(strconv.Itoa(int(s.idx)))
			}
		}
		st.failPath = b.String()
	}
	return fail
}

// spend charges n steps before the work they pay for. Past the budget it leaves the
// count at max+1 (the work is not done) and answers false.
func (st *state) spend(n int) bool {
	if n > st.max-st.steps {
		st.steps = st.max + 1
		return false
	}
	st.steps += n
	return true
}

// check checks the value at token i against s: first the assertions on the value
// itself (type, enum, then the keywords of its kind), then the subschemas s applies
// to its items or members, then anyOf and oneOf. The assertions run in helpers, called
// only when s has such a keyword; the loops that recurse stay here, so a level of
// nesting costs one frame (recursing through helper frames as well measured 20-55%
// slower on the deepest anyOf, oneOf and items schemas).
func (st *state) check(s *schema, i int32) status {
	if !st.spend(1) {
		return over
	}
	if s.never {
		return st.reject("false")
	}
	t := &st.t
	tk := t.toks[i]
	if s.types != 0 && s.types&kindType[tk.kind] == 0 {
		if r := st.checkInteger(s, i); r != pass {
			return r
		}
	}
	if s.enum != 0 {
		if r := st.checkEnum(s, i); r != pass {
			return r
		}
	}
	if s.kinds&kindType[tk.kind] != 0 {
		// Keywords of the value's kind (s.kinds says there are some).
		var r status
		switch tk.kind {
		case kString:
			r = st.checkString(s, i)
		case kNumber:
			r = st.checkBounds(s, i)
		default:
			r = st.checkItemCount(s, tk.n)
		}
		if r != pass {
			return r
		}
	}
	switch tk.kind {
	case kArray:
		if s.items != nil {
			for e, idx := i+1, int32(0); e < tk.next; e, idx = t.toks[e].next, idx+1 {
				st.path = append(st.path, seg{idx: idx})
				r := st.check(s.items, e)
				st.path = st.path[:len(st.path)-1]
				if r != pass {
					return r
				}
			}
		}
		if s.unique && tk.n > 1 {
			if r := st.unique(i); r != pass {
				return r
			}
		}
	case kObject:
		if s.obj != nil {
			if r := st.object(s.obj, i); r != pass {
				return r
			}
		}
	}
	if s.x == nil {
		return pass
	}
	if s.x.anyOf != nil {
		// The branches run quietly: only anyOf's own failure is recorded.
		st.quiet++
		r := fail
		for _, sub := range s.x.anyOf {
			if r = st.check(sub, i); r != fail {
				break
			}
		}
		st.quiet--
		if r == fail {
			return st.reject("anyOf")
		}
		if r == over {
			return over
		}
	}
	if s.x.oneOf != nil {
		// Quietly, as for anyOf; a second passing branch ends the loop.
		st.quiet++
		r, n := pass, 0
		for _, sub := range s.x.oneOf {
			if r = st.check(sub, i); r == pass {
				n++
			}
			if r == over || n > 1 {
				break
			}
		}
		st.quiet--
		if r == over {
			return over
		}
		if n != 1 {
			return st.reject("oneOf")
		}
	}
	return pass
}

// kindType maps a token kind to its bit of the "type" keyword; a number also matches
// "integer" when its value is whole.
var kindType = [...]uint8{
	kNull: tNull, kFalse: tBoolean, kTrue: tBoolean, kNumber: tNumber,
	kString: tString, kArray: tArray, kObject: tObject,
}

// checkInteger checks the value at token i, whose kind is none of the types of s,
// against "integer": it passes only a number of whole value when s allows integers.
func (st *state) checkInteger(s *schema, i int32) status {
	if st.t.toks[i].kind == kNumber && s.types&tInteger != 0 {
		lit := st.t.lit(i)
		if !st.spend(len(lit) / 64) {
			return over
		}
		if d := parseDecimal(lit); d.isInteger() {
			return pass
		}
	}
	return st.reject("type")
}

// checkItemCount checks the n items of an array against minItems and maxItems.
func (st *state) checkItemCount(s *schema, n int32) status {
	x := s.x
	if x.minItems >= 0 && int64(n) < x.minItems {
		return st.reject("minItems")
	}
	if x.maxItems >= 0 && int64(n) > x.maxItems {
		return st.reject("maxItems")
	}
	return pass
}

// checkString checks string i against minLength, maxLength and pattern.
func (st *state) checkString(s *schema, i int32) status {
	// n is the string's length in code points, counted by the scan.
	n := int64(st.t.toks[i].n)
	x := s.x
	if x.minLen >= 0 && n < x.minLen {
		return st.reject("minLength")
	}
	if x.maxLen >= 0 && n > x.maxLen {
		return st.reject("maxLength")
	}
	if x.pattern != nil {
		str := st.t.str(i)
		if !st.spend(x.pattern.cost(len(str))) {
			return over
		}
		if !x.pattern.match(str) {
			return st.reject("pattern")
		}
	}
	return pass
}

// checkBounds checks number i against the numeric bounds of s, in schema order.
func (st *state) checkBounds(s *schema, i int32) status {
	lit := st.t.lit(i)
	bounds := s.x.bounds
	if !st.spend(len(bounds) * (len(lit)/64 + 1)) {
		return over
	}
	d := parseDecimal(lit)
	for k := range bounds {
		b := &bounds[k]
		if !b.ok(cmpDecimal(&d, &b.num)) {
			return st.reject(b.keyword)
		}
	}
	return pass
}

// object checks the members of object i against s's properties, additionalProperties
// and required.
func (st *state) object(s *objectKeywords, i int32) status {
	t := &st.t
	tk := t.toks[i]
	base := len(st.bits)
	for w := (len(s.entries) + 63) / 64; w > 0; w-- {
		st.bits = append(st.bits, 0)
	}
	defer func() { st.bits = st.bits[:base] }()
	for j, m := i+1, int32(0); m < tk.n; m++ {
		key, val := j, j+1
		j = t.toks[val].next
		if !st.spend(1) {
			return over
		}
		e := s.lookup(t.str(key))
		if e >= 0 {
			st.bits[base+int(e/64)] |= 1 << (e % 64)
			if ent := &s.entries[e]; ent.sub != nil {
				st.path = append(st.path, seg{name: s.names[ent.off:ent.end], idx: segName})
				r := st.check(ent.sub, val)
				st.path = st.path[:len(st.path)-1]
				if r != pass {
					return r
				}
				continue
			}
		}
		if s.additional != nil {
			if s.additional.never {
				// Name the keyword that forbids the member; its name is the caller's
				// text and never appears in the path.
				if !st.spend(1) {
					return over
				}
				return st.reject("additionalProperties")
			}
			st.path = append(st.path, seg{idx: -1})
			r := st.check(s.additional, val)
			st.path = st.path[:len(st.path)-1]
			if r != pass {
				return r
			}
		}
	}
	for _, e := range s.required {
		if st.bits[base+int(e/64)]&(1<<(e%64)) == 0 {
			st.path = append(st.path, seg{name: s.name(e), idx: segName})
			r := st.reject("required")
			st.path = st.path[:len(st.path)-1]
			return r
		}
	}
	return pass
}

// unique checks uniqueItems on array i: pairwise for short arrays, else through a
// hash table of the values, comparing only values of equal hash.
func (st *state) unique(i int32) status {
	t := &st.t
	tk := t.toks[i]
	if tk.n <= 8 {
		for a := i + 1; a < tk.next; a = t.toks[a].next {
			for b := t.toks[a].next; b < tk.next; b = t.toks[b].next {
				if st.equal(t, a, t, b) {
					return st.reject("uniqueItems")
				}
				if st.steps > st.max {
					return over
				}
			}
		}
		return pass
	}
	// Hashing visits every node once and each insertion probes an open-addressing
	// table; both are charged, and so is every probe and every deep comparison.
	n := int(tk.n)
	if !st.spend(int(tk.next - i)) {
		return over
	}
	size := 1 << bitsLen(2*n)
	mask := size - 1
	st.table = slices.Grow(st.table[:0], size)[:size]
	clear(st.table)
	for e := i + 1; e < tk.next; e = t.toks[e].next {
		h := hashValue(t, e)
		for k := int(h) & mask; ; k = (k + 1) & mask {
			slot := &st.table[k]
			if slot.i == 0 {
				slot.h, slot.i = h, e
				break
			}
			if !st.spend(1) {
				return over
			}
			if slot.h == h && st.equal(t, slot.i, t, e) {
				return st.reject("uniqueItems")
			}
			if st.steps > st.max {
				return over
			}
		}
	}
	return pass
}
