package validate

import (
	"cmp"
	"slices"
)

// compileEnum reads the "enum" keyword at token val: its array is copied, tokens and
// the text of its strings and numbers, into the enum tape, and compared against the
// instance at validation time.
func (b *build) compileEnum(s *schema, t *tape, val int32) error {
	vt := t.toks[val]
	if vt.kind != kArray {
		return malformed("enum")
	}
	e := &b.enums
	if len(e.toks) == 0 {
		e.toks = append(e.toks, token{kind: kNull, next: 1})
	}
	base := int32(len(e.toks))
	for k := val; k < vt.next; k++ {
		tk := t.toks[k]
		tk.next += base - val
		var text []byte
		switch tk.kind {
		case kString:
			text = t.str(k)
		case kNumber:
			text = t.lit(k)
		}
		if text != nil {
			tk.esc, tk.off = false, int32(len(e.src))
			e.src = append(e.src, text...)
			tk.end = int32(len(e.src))
		}
		e.toks = append(e.toks, tk)
	}
	s.enum = base
	var vals []int32
	for k, n := base+1, e.toks[base].next; k < n; k = e.toks[k].next {
		vals = append(vals, k)
	}
	if idx := indexEnum(e, vals); idx != nil {
		s.more().enumH = idx
	}
	return nil
}

// checkEnum checks that the value at token i equals one of the enum values of s, the
// items of array s.enum of the program's enum tape.
func (st *state) checkEnum(s *schema, i int32) status {
	if s.x != nil && s.x.enumH != nil {
		return st.checkEnumIndexed(s, i)
	}
	// Most enum values differ from the value at a glance (another kind, a string or
	// array of another length): those comparisons cost a step per eight, charged up
	// front; the others are charged by equal.
	if !st.spend(1 + int(st.p.enums.toks[s.enum].n)/8) {
		return over
	}
	found := false
	tk, enums := &st.t.toks[i], st.p.enums
	for e, end := s.enum+1, enums.toks[s.enum].next; e < end; e = enums.toks[e].next {
		if !sameShape(tk, &enums.toks[e]) {
			continue
		}
		if found = st.equal(&st.t, i, enums, e); found || st.steps > st.max {
			break
		}
	}
	switch {
	case st.steps > st.max:
		return over
	case found:
		return pass
	}
	return st.reject("enum")
}

// enumIndexMin is the enum size from which an enum is looked up by hash.
const enumIndexMin = 16

// indexEnum answers the (hash, token) pairs of the enum values at tokens of t, sorted
// by hash, or nil for an enum short enough to scan.
func indexEnum(t *tape, enum []int32) []hpair {
	if len(enum) < enumIndexMin {
		return nil
	}
	idx := make([]hpair, len(enum))
	for k, e := range enum {
		idx[k] = hpair{h: hashValue(t, e), i: e}
	}
	slices.SortFunc(idx, func(a, b hpair) int { return cmp.Compare(a.h, b.h) })
	return idx
}

// checkEnumIndexed checks value i against a large enum through its hash index: it
// hashes the value (charged as one comparison), then compares it with the values of
// equal hash only.
func (st *state) checkEnumIndexed(s *schema, i int32) status {
	t := &st.t
	if !st.spend(hashCost(t, i)) {
		return over
	}
	h := hashValue(t, i)
	idx := s.x.enumH
	k, _ := slices.BinarySearchFunc(idx, h, func(p hpair, h uint64) int { return cmp.Compare(p.h, h) })
	for ; k < len(idx) && idx[k].h == h; k++ {
		if st.equal(t, i, st.p.enums, idx[k].i) {
			return pass
		}
		if st.steps > st.max {
			return over
		}
	}
	return st.reject("enum")
}
