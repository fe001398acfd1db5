package validate

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// DFA construction bounds: a pattern whose automaton would be larger runs on Go's
// regexp instead, charged by its worst case (see the package doc, Bounds).
const (
	dfaMaxProg  = 4096    // program instructions
	dfaMaxCells = 1 << 15 // states × classes (uint16 entries: 64 KiB)
	dfaMaxWork  = 1 << 17 // instructions visited and set entries built: a few milliseconds at most
)

// State flags of a dfa.
const (
	dfaAccept    = 1 << iota // a match has been seen: the answer is true
	dfaAcceptEnd             // the end of the text completes a match
	dfaDead                  // no match can start or continue: the answer is false
)

// dfa is a deterministic automaton that decides whether a pattern matches anywhere
// in a string (unanchored search, as JSON Schema's pattern), built once at compile
// time from the pattern's program by the subset construction. It reads each code
// point once: an ASCII one's class with a table lookup, another's by a search among
// the intervals of its 64-code-point block (blk; of all of them beyond the BMP), so
// its work per byte barely depends on the pattern. It is immutable and safe for
// concurrent use.
//
// Code points are grouped into classes that every instruction of the program treats
// alike; next holds, for each state and class, the following state.
type dfa struct {
	ascii [utf8.RuneSelf]uint16 // class of each ASCII code point
	lo    []rune                // non-ASCII classes: code points from lo[k] up to lo[k+1] have class cls[k]
	cls   []uint16
	// blk narrows class's search for a code point of the BMP: the intervals of block
	// r>>dfaBlockBits are lo[blk[r>>dfaBlockBits]] to lo[blk[r>>dfaBlockBits+1]]. Nil
	// when lo is short enough to search whole (dfaBlockMin).
	blk   []uint16
	n     int      // classes
	next  []uint16 // state*n + class → state
	flags []uint8  // per state
}

// match reports whether the pattern matches somewhere in s, valid UTF-8.
func (d *dfa) match(s []byte) bool {
	st := 0
	if f := d.flags[st]; f&(dfaAccept|dfaDead) != 0 {
		return f&dfaAccept != 0
	}
	for i := 0; i < len(s); {
		var c uint16
		if b := s[i]; b < utf8.RuneSelf {
			c = d.ascii[b]
			i++
		} else {
			r, size := decodeValid(s, i)
			c = d.class(r)
			i += size
		}
		st = int(d.next[st*d.n+int(c)])
		if f := d.flags[st]; f&(dfaAccept|dfaDead) != 0 {
			return f&dfaAccept != 0
		}
	}
	return d.flags[st]&dfaAcceptEnd != 0
}

// decodeValid decodes the multi-byte character at s[i] of valid UTF-8, as
// utf8.DecodeRune would, without its checks: a string of such characters matches in
// about half the time.
func decodeValid(s []byte, i int) (rune, int) {
	switch b := s[i]; {
	case b < 0xE0 && i+1 < len(s):
		return rune(b&0x1F)<<6 | rune(s[i+1]&0x3F), 2
	case b < 0xF0 && i+2 < len(s):
		return rune(b&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), 3
	}
	return utf8.DecodeRune(s[i:])
}

// class answers the class of the non-ASCII code point r.
func (d *dfa) class(r rune) uint16 {
	lo, hi := 0, len(d.lo) // d.lo[lo] <= r < d.lo[hi]
	if b := int(r >> dfaBlockBits); b+1 < len(d.blk) {
		lo, hi = int(d.blk[b]), int(d.blk[b+1])+1
	}
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if d.lo[m] <= r {
			lo = m
		} else {
			hi = m
		}
	}
	return d.cls[lo]
}

// dfaBuilder holds the scratch of one subset construction.
type dfaBuilder struct {
	prog    *syntax.Prog
	mark    []uint32 // generation of the last visit of each instruction
	gen     uint32
	work    int
	restart []uint32 // the closure of the start at positions after the first
	runeSet []int32  // per instruction: its distinct code point set (see dfa.classes), -1 for none, -2 for any
	member  []bool   // distinct set j, class c: member[j*n+c]
	stack   []uint32
	key     []byte
}

// buildDFA answers the automaton of prog, or nil when prog has a construct the
// automaton does not model (word boundaries, line anchors, case folding) or the
// automaton would exceed the construction bounds.
func buildDFA(prog *syntax.Prog) *dfa {
	if len(prog.Inst) > dfaMaxProg {
		return nil
	}
	for _, in := range prog.Inst {
		switch in.Op {
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^(syntax.EmptyBeginText|syntax.EmptyEndText) != 0 {
				return nil
			}
		case syntax.InstRune:
			if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				return nil
			}
		}
	}
	d := &dfa{}
	b := &dfaBuilder{prog: prog, mark: make([]uint32, len(prog.Inst))}
	if !d.classes(b) {
		return nil
	}
	b.restart = b.closure(nil, []uint32{uint32(prog.Start)}, false)
	start := b.closure(nil, []uint32{uint32(prog.Start)}, true)
	// The start state is never shared with a later one: only there is the text's
	// beginning true, which the end-of-text check of an empty string needs.
	sets := [][]uint32{start}
	index := map[string]int{}
	for s := 0; s < len(sets); s++ {
		if (len(sets)+1)*d.n > dfaMaxCells || b.work > dfaMaxWork {
			return nil
		}
		set := sets[s]
		d.flags = append(d.flags, b.flags(set, s == 0))
		var outs, next []uint32
		for c := 0; c < d.n; c++ {
			outs = outs[:0]
			b.work += len(set)
			for _, pc := range set {
				switch j := b.runeSet[pc]; {
				case j == -2 || j >= 0 && b.member[int(j)*d.n+c]:
					outs = append(outs, prog.Inst[pc].Out)
				}
			}
			next = b.closure(append(next[:0], b.restart...), outs, false)
			b.work += len(next)
			if b.work > dfaMaxWork {
				return nil
			}
			b.key = b.key[:0]
			for _, pc := range next {
				b.key = append(b.key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
			}
			t, ok := index[string(b.key)]
			if !ok {
				t = len(sets)
				if t > 0xFFFF {
					return nil
				}
				index[string(b.key)] = t
				sets = append(sets, slices.Clone(next))
			}
			d.next = append(d.next, uint16(t))
		}
	}
	return d
}

// classes groups code points into the classes d reads: intervals between the
// boundary points that every rune instruction of prog treats alike (\p{L} has
// hundreds of ranges but two classes). It fills b.runeSet and b.member and answers
// false past the construction bounds.
func (d *dfa) classes(b *dfaBuilder) bool {
	// One instruction per distinct set of code points: [a-z]{100} has 100 rune
	// instructions but one set.
	var runes []*syntax.Inst
	seen := map[string]int32{}
	b.runeSet = make([]int32, len(b.prog.Inst))
	for k := range b.prog.Inst {
		in := &b.prog.Inst[k]
		b.runeSet[k] = -1
		switch in.Op {
		case syntax.InstRuneAny:
			b.runeSet[k] = -2
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAnyNotNL:
			key := string(rune(in.Op)) + string(in.Rune)
			j, ok := seen[key]
			if !ok {
				j = int32(len(runes))
				seen[key] = j
				runes = append(runes, in)
			}
			b.runeSet[k] = j
		}
	}
	points := []rune{0, utf8.RuneSelf, utf8.MaxRune + 1}
	for _, in := range runes {
		switch {
		case in.Op == syntax.InstRuneAnyNotNL:
			points = append(points, '\n', '\n'+1)
		case len(in.Rune) == 1:
			points = append(points, in.Rune[0], in.Rune[0]+1)
		default:
			for k := 0; k+1 < len(in.Rune); k += 2 {
				points = append(points, in.Rune[k], in.Rune[k+1]+1)
			}
		}
	}
	slices.Sort(points)
	points = slices.Compact(points)
	if len(runes)*len(points) > dfaMaxWork {
		return false
	}
	ids := map[string]uint16{}
	var sigs [][]bool
	sig := make([]bool, len(runes))
	intervals := make([]uint16, len(points)-1)
	for k := 0; k+1 < len(points); k++ {
		for j, in := range runes {
			sig[j] = in.MatchRune(points[k])
		}
		id, ok := ids[boolKey(sig)]
		if !ok {
			if len(ids) >= dfaMaxCells/2 {
				return false
			}
			id = uint16(len(ids))
			ids[boolKey(sig)] = id
			sigs = append(sigs, slices.Clone(sig))
		}
		intervals[k] = id
	}
	d.n = len(ids)
	b.member = make([]bool, len(runes)*d.n)
	for c, sg := range sigs {
		for j, in := range sg {
			b.member[j*d.n+c] = in
		}
	}
	for k := 0; k+1 < len(points); k++ {
		lo, hi := points[k], points[k+1]
		if lo < utf8.RuneSelf {
			for r := lo; r < hi && r < utf8.RuneSelf; r++ {
				d.ascii[r] = intervals[k]
			}
			continue
		}
		if n := len(d.cls); n > 0 && d.cls[n-1] == intervals[k] {
			continue // same class as the interval before: merge
		}
		d.lo = append(d.lo, lo)
		d.cls = append(d.cls, intervals[k])
	}
	d.blocks()
	return true
}

// Blocks of the BMP that dfa.blk indexes: 64 code points each.
const (
	dfaBlockBits = 6
	dfaBlocks    = 0x10000 >> dfaBlockBits
	// dfaBlockMin is the least number of non-ASCII intervals indexed by block: a
	// search of fewer takes a few steps anyway. \p{L} has about 650: searched whole,
	// about 20 ns a code point, far more than a step pays for (linearBytes).
	dfaBlockMin = 32
)

// blocks fills d.blk from d.lo (2 KiB), when d.lo is long: blk[b] is the interval
// holding the first code point of block b (0 before the first interval), so a code
// point of block b lies in intervals blk[b] to blk[b+1].
func (d *dfa) blocks() {
	if len(d.lo) < dfaBlockMin || len(d.lo) > 1<<16 {
		return
	}
	d.blk = make([]uint16, dfaBlocks+1)
	k := 0
	for b := range d.blk {
		first := rune(b) << dfaBlockBits
		for k+1 < len(d.lo) && d.lo[k+1] <= first {
			k++
		}
		d.blk[b] = uint16(k)
	}
}

func boolKey(sig []bool) string {
	b := make([]byte, len(sig))
	for i, v := range sig {
		if v {
			b[i] = 1
		}
	}
	return string(b)
}

// closure adds to set the instructions reachable from pcs without reading input,
// keeping the ones that read a code point, the match, and the end-of-text
// assertions (decided when the text ends); it answers set sorted. atStart tells
// whether the position is the text's beginning.
func (b *dfaBuilder) closure(set []uint32, pcs []uint32, atStart bool) []uint32 {
	b.gen++
	for _, pc := range set {
		b.mark[pc] = b.gen
	}
	stack := append(b.stack[:0], pcs...)
	defer func() { b.stack = stack[:0] }()
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b.mark[pc] == b.gen {
			continue
		}
		b.mark[pc] = b.gen
		b.work++
		in := &b.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(in.Arg)
			switch {
			case op&syntax.EmptyBeginText != 0 && !atStart:
			case op&syntax.EmptyEndText != 0:
				set = append(set, pc)
			default:
				stack = append(stack, in.Out)
			}
		case syntax.InstFail:
		default: // a rune instruction or the match
			set = append(set, pc)
		}
	}
	slices.Sort(set)
	return set
}

// flags answers the flags of the state of set; start tells whether it is the start
// state, where the text's beginning is true.
func (b *dfaBuilder) flags(set []uint32, start bool) uint8 {
	var f uint8
	if len(set) == 0 && len(b.restart) == 0 {
		f |= dfaDead
	}
	var pending []uint32
	for _, pc := range set {
		switch in := &b.prog.Inst[pc]; in.Op {
		case syntax.InstMatch:
			f |= dfaAccept
		case syntax.InstEmptyWidth:
			pending = append(pending, in.Out)
		}
	}
	// At the end of the text: follow the end-of-text assertions to a match, reading
	// no more input.
	b.gen++
	for len(pending) > 0 {
		pc := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		if b.mark[pc] == b.gen {
			continue
		}
		b.mark[pc] = b.gen
		b.work++
		in := &b.prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			f |= dfaAcceptEnd
		case syntax.InstAlt, syntax.InstAltMatch:
			pending = append(pending, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			pending = append(pending, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&syntax.EmptyBeginText == 0 || start {
				pending = append(pending, in.Out)
			}
		}
	}
	if f&dfaAccept != 0 {
		f |= dfaAcceptEnd
	}
	return f
}
