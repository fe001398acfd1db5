package validate

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// ecmaSpace is the set ECMA-262 \s matches (WhiteSpace and LineTerminator), written for
// a Go character class.
const ecmaSpace = `\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`

// ecmaDot is what ECMA-262 "." matches in Unicode mode: any code point but a line terminator.
const ecmaDot = `[^\n\r\x{2028}\x{2029}]`

// compiledPattern is a pattern ready to run, with its cost per input byte.
type compiledPattern struct {
	re    *regexp.Regexp
	lit   []byte      // the pattern's text when it is a plain literal (isLit)
	isLit bool        // searched with bytes.Contains
	seq   *seqMatcher // a faster exact matcher for simple anchored patterns, or nil
	dfa   *dfa        // a deterministic automaton when one of bounded size exists, or nil
	size  int         // instructions of the compiled program
}

// match reports whether s matches the pattern.
func (p *compiledPattern) match(s []byte) bool {
	switch {
	case p.isLit:
		return bytes.Contains(s, p.lit)
	case p.seq != nil:
		return p.seq.match(s)
	case p.dfa != nil:
		return p.dfa.match(s)
	}
	return p.re.Match(s)
}

// linearBytes is how many input bytes a step pays for on a linear matcher: about
// 16 × 5 ns (a non-ASCII code point decoded and classified), the time of the
// costliest single step elsewhere.
const linearBytes = 16

// cost answers the work steps of matching an n-byte string, charged before the
// match runs: on a linear matcher one step plus one per linearBytes; on Go's regexp
// the worst case of its simulation, (n + 1) × the program's instructions (measured
// at up to about 35 ns per unit on the development machine under load).
func (p *compiledPattern) cost(n int) int {
	if p.linear() {
		return 1 + n/linearBytes
	}
	return (n + 1) * p.size
}

// linear reports whether the pattern runs on a matcher whose work per input byte is a
// small constant whatever the pattern (a literal search, the sequence matcher or the
// automaton), rather than on Go's regexp, whose work per byte can grow with the
// program's size.
func (p *compiledPattern) linear() bool { return p.isLit || p.seq != nil || p.dfa != nil }

// compilePattern translates an ECMA-262 pattern (the JSON Schema dialect, Unicode mode)
// into RE2 syntax with the same meaning, or answers ok == false when it uses a construct
// RE2 cannot run as written (lookaround, backreferences, ...) or one whose meaning
// differs between the two engines and has no exact translation.
func compilePattern(p string) (compiledPattern, bool) {
	tr, ok := translatePattern(p)
	if !ok {
		return compiledPattern{}, false
	}
	re, err := regexp.Compile(tr)
	if err != nil {
		return compiledPattern{}, false
	}
	sre, err := syntax.Parse(tr, syntax.Perl)
	if err != nil {
		return compiledPattern{}, false
	}
	prog, err := syntax.Compile(sre.Simplify())
	if err != nil {
		return compiledPattern{}, false
	}
	cp := compiledPattern{re: re, size: len(prog.Inst)}
	switch {
	case sre.Op == syntax.OpLiteral && sre.Flags&syntax.FoldCase == 0:
		cp.lit, cp.isLit = []byte(string(sre.Rune)), true
		return cp, true
	case sre.Op == syntax.OpEmptyMatch:
		cp.isLit = true // the empty pattern: found in every string
		return cp, true
	}
	if cp.seq = buildSeq(tr); cp.seq == nil {
		cp.dfa = buildDFA(prog)
	}
	return cp, true
}

// seqItem is one step of a seqMatcher: between min and max (-1: no bound) code
// points of a set.
type seqItem struct {
	ascii    [2]uint64 // members below 0x80
	ranges   []rune    // all members, as sorted lo, hi pairs
	min, max int
}

func (it *seqItem) has(r rune) bool {
	if r < 0x80 {
		return it.ascii[r>>6]&(1<<(r&63)) != 0
	}
	// Binary search over the pairs: \p{L} has hundreds.
	lo, hi := 0, len(it.ranges)/2 // pairs; r is in pair m when lo(m) <= r <= hi(m)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < it.ranges[2*m]:
			hi = m
		case r > it.ranges[2*m+1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// seqMatcher matches patterns of the shape ^item item ... item$ where each item is a
// set of code points repeated between min and max times, and each item of variable
// length is followed by an item of disjoint set with min >= 1 (or by the end). For
// such patterns a greedy left-to-right scan decides the match exactly: an item can
// never leave a code point of its own set to the next one. Most catalog patterns
// (^[a-z][a-z0-9-]{2,40}$, ^[^@]+@[^@]+$, ^\d+$) have this shape.
type seqMatcher struct {
	items []seqItem
}

func (m *seqMatcher) match(s []byte) bool {
	pos := 0
	for k := range m.items {
		it := &m.items[k]
		n := 0
		for (it.max < 0 || n < it.max) && pos < len(s) {
			r, size := rune(s[pos]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRune(s[pos:])
			}
			if !it.has(r) {
				break
			}
			pos += size
			n++
		}
		if n < it.min {
			return false
		}
	}
	return pos == len(s)
}

// buildSeq answers a seqMatcher for the translated pattern tr, or nil when tr does not
// have the shape seqMatcher decides exactly.
func buildSeq(tr string) *seqMatcher {
	re, err := syntax.Parse(tr, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 3 {
		return nil
	}
	subs := re.Sub
	if subs[0].Op != syntax.OpBeginText || subs[len(subs)-1].Op != syntax.OpEndText {
		return nil
	}
	m := &seqMatcher{}
	for _, sub := range subs[1 : len(subs)-1] {
		min, max := 1, 1
		switch sub.Op {
		case syntax.OpStar:
			min, max = 0, -1
		case syntax.OpPlus:
			min, max = 1, -1
		case syntax.OpQuest:
			min, max = 0, 1
		case syntax.OpRepeat:
			min, max = sub.Min, sub.Max
		}
		if sub.Op == syntax.OpStar || sub.Op == syntax.OpPlus || sub.Op == syntax.OpQuest || sub.Op == syntax.OpRepeat {
			sub = sub.Sub[0]
			if sub.Op == syntax.OpLiteral && len(sub.Rune) != 1 {
				return nil
			}
		}
		if sub.Flags&syntax.FoldCase != 0 {
			return nil
		}
		switch sub.Op {
		case syntax.OpLiteral:
			for i, r := range sub.Rune {
				if i > 0 && (min != 1 || max != 1) {
					return nil
				}
				m.items = append(m.items, newSeqItem([]rune{r, r}, min, max))
			}
		case syntax.OpCharClass:
			m.items = append(m.items, newSeqItem(sub.Rune, min, max))
		default:
			return nil
		}
	}
	for k := range m.items {
		it := &m.items[k]
		if it.min == it.max || k == len(m.items)-1 {
			continue
		}
		next := &m.items[k+1]
		if next.min < 1 || intersects(it.ranges, next.ranges) {
			return nil
		}
	}
	return m
}

func newSeqItem(ranges []rune, min, max int) seqItem {
	it := seqItem{ranges: append([]rune(nil), ranges...), min: min, max: max}
	for k := 0; k+1 < len(ranges); k += 2 {
		for r := ranges[k]; r <= ranges[k+1] && r < 0x80; r++ {
			it.ascii[r>>6] |= 1 << (r & 63)
		}
	}
	return it
}

// intersects reports whether two sorted range lists share a code point.
func intersects(a, b []rune) bool {
	for i, j := 0, 0; i+1 < len(a) && j+1 < len(b); {
		switch {
		case a[i+1] < b[j]:
			i += 2
		case b[j+1] < a[i]:
			j += 2
		default:
			return true
		}
	}
	return false
}

// patternUnits counts the UTF-16 code units of a pattern (SPEC CALL-5 bounds it).
func patternUnits(s []byte) int {
	n := 0
	for _, c := range s {
		switch {
		case c < 0x80 || c >= 0xC0 && c < 0xF0:
			n++
		case c >= 0xF0:
			n += 2
		}
	}
	return n
}
