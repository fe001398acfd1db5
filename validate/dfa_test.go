package validate

import (
	"regexp/syntax"
	"strings"
	"testing"
	"unicode/utf8"
)

// dfaPatterns are ECMA-262 patterns of the shapes schemas use, beside ones that stress
// the automaton (anchors in odd places, empty matches, classes of many ranges).
var dfaPatterns = []string{
	``, `^`, `$`, `^$`, `a^b`, `a$b`, `^a|b$`, `(?:^|x)y`, `y(?:$|x)`, `^(?:$|a)`,
	`^[a-z]+(?:-[a-z]+)*$`, `^(GET|POST|PUT|DELETE)$`, `^https?://`, `\S`, `.`,
	`^v\d+\.\d+\.\d+(?:-[a-z0-9.]+)?$`, `^[^@\s]+@[^@\s]+\.[a-z]{2,}$`,
	`^[\p{L}\p{N} _-]+$`, `\p{Lu}\p{Ll}`, `[^\u{1F600}-\u{1F64F}]x`, `(a|aa){0,5}b`,
	`[a-q][^u-z]{3}x`, `^(?:a?){5}a{5}$`, `é+.$`, `^\u2028?$`, `(?:ab)*c`,
	`\p{L}+!`, `(\p{Lu}\p{Ll})+$`, // classes of many intervals: the block index (dfa.blk)
}

var dfaInputs = []string{
	"", "a", "b", "x", "y", "xy", "ab", "aab", "abc", "GET", "GETS", "post", "POST",
	"https://x", "http:/", " ", "\t", "v1.2.3", "v1.2.3-rc.1", "v1.2", "a@b.io", "a@b",
	"Été", "Aa", "ÉA", "ab-cd", "ab--cd", "😀x", "éx", "ééé\n", "ééé", "\u2028",
	"aaaaab", "aaaaaaaaaa", "ababc", "azzzx", "zzzzzz", "qabcx",
	"ĀāĂă", "Āāă", "一丁!", "жЖ!", "\u0100\u0101\U00010400\U00010428",
}

// TestDFAAgreesWithRegexp: the automaton answers as Go's regexp on the same
// translated pattern, for every pattern it is built for.
//
// SPEC CALL-3
func TestDFAAgreesWithRegexp(t *testing.T) {
	built := 0
	for _, p := range dfaPatterns {
		cp, ok := compilePattern(p)
		if !ok {
			t.Errorf("compilePattern(%q) failed", p)
			continue
		}
		tr, _ := translatePattern(p)
		d := buildDFA(mustProg(t, tr))
		if d == nil {
			t.Logf("no automaton for %q", p)
			continue
		}
		built++
		for _, s := range dfaInputs {
			if got, want := d.match([]byte(s)), cp.re.MatchString(s); got != want {
				t.Errorf("pattern %q on %q: automaton %v, regexp %v", p, s, got, want)
			}
		}
	}
	if built < len(dfaPatterns)-2 {
		t.Errorf("automaton built for %d of %d patterns", built, len(dfaPatterns))
	}
}

// TestDFABounds: a pattern whose automaton would be too large runs on Go's regexp
// (no automaton), and word boundaries, which the automaton does not model, too.
func TestDFABounds(t *testing.T) {
	for _, p := range []string{`(a|aa){0,1000}b`, `\bword\b`, `(?:a|b)*a(?:a|b){20}`} {
		cp, ok := compilePattern(p)
		if !ok {
			t.Fatalf("compilePattern(%q) failed", p)
		}
		if cp.dfa != nil || cp.seq != nil {
			t.Errorf("compilePattern(%q): linear matcher built, want Go's regexp", p)
		}
	}
	for _, p := range []string{`^(?:` + strings.Repeat("alpha|beta|gamma|delta|", 20) + `omega)$`, strings.Repeat("[a-z0-9]", 100)} {
		cp, ok := compilePattern(p)
		if !ok || cp.dfa == nil {
			t.Errorf("compilePattern(%.40q): no automaton", p)
		}
	}
}

// TestPatternMatchersAgree: whichever matcher runs a pattern (a literal search, the
// sequence matcher, the automaton or Go's regexp), it answers as Go's regexp.
//
// SPEC CALL-3
func TestPatternMatchersAgree(t *testing.T) {
	for _, p := range append([]string{"abc", "a", "é😀", "aaaa", "^abc$", "^abc", "abc$", "\\d", "\\."}, dfaPatterns...) {
		cp, ok := compilePattern(p)
		if !ok {
			t.Errorf("compilePattern(%q) failed", p)
			continue
		}
		for _, s := range append([]string{"abc\n", "xabcx", "aaa", "aaaaa", "xé😀", "3", "."}, dfaInputs...) {
			if got, want := cp.match([]byte(s)), cp.re.MatchString(s); got != want {
				t.Errorf("pattern %q on %q: match %v, regexp %v", p, s, got, want)
			}
		}
	}
}

// FuzzPatternDFA checks the matcher each pattern runs on (literal search, sequence
// matcher, automaton) against Go's regexp.
func FuzzPatternDFA(f *testing.F) {
	for _, p := range dfaPatterns {
		for _, s := range dfaInputs[:12] {
			f.Add(p, s)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > 64 || !utf8.ValidString(s) {
			return
		}
		cp, ok := compilePattern(pattern)
		if !ok {
			return
		}
		if got, want := cp.match([]byte(s)), cp.re.MatchString(s); got != want {
			t.Errorf("pattern %q on %q: automaton %v, regexp %v", pattern, s, got, want)
		}
	})
}

func mustProg(t *testing.T, tr string) *syntax.Prog {
	t.Helper()
	re, err := syntax.Parse(tr, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// TestDFAClassByBlock: the class of every non-ASCII code point, found through the
// block index (dfa.blk), is the one a search of all the intervals finds, for patterns
// of many intervals, and decodeValid decodes every code point as utf8.DecodeRune.
func TestDFAClassByBlock(t *testing.T) {
	indexed := 0
	for _, p := range []string{`\p{L}+!`, `(\p{Lu}\p{Ll}|\p{Lo}\p{Nd}|\p{Lm}\p{Mn})+!`, `[\p{Greek}\p{Cyrillic}]x`, `^[\p{L}\p{N} _-]+$`, `é+.$`} {
		tr, _ := translatePattern(p)
		d := buildDFA(mustProg(t, tr))
		if d == nil {
			t.Fatalf("no automaton for %q", p)
		}
		if d.blk != nil {
			indexed++
		}
		whole := &dfa{lo: d.lo, cls: d.cls}
		for r := rune(utf8.RuneSelf); r <= utf8.MaxRune; r++ {
			if got, want := d.class(r), whole.class(r); got != want {
				t.Fatalf("%q: class(%U) = %d by block, %d by search", p, r, got, want)
			}
		}
	}
	if indexed < 3 {
		t.Errorf("block index built for %d patterns, want the 3 of many intervals", indexed)
	}
	var b []byte
	for r := rune(utf8.RuneSelf); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		b = utf8.AppendRune(b[:0], r)
		for _, s := range [][]byte{b, append(b, 'x')} {
			got, gotSize := decodeValid(s, 0)
			want, wantSize := utf8.DecodeRune(s)
			if got != want || gotSize != wantSize {
				t.Fatalf("decodeValid(%U) = %U, %d; want %U, %d", r, got, gotSize, want, wantSize)
			}
		}
	}
}
