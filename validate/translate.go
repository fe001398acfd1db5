package validate

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// This file translates an ECMA-262 pattern (Unicode mode) into Go's regexp syntax with
// the same meaning, refusing what has no exact translation; compilePattern runs it.

// translatePattern rewrites p for Go's regexp package; see compilePattern. It also
// refuses what Unicode mode refuses and Go's regexp would read some other way (a
// class escape as an end of a range, lone braces and brackets, a quantified assertion,
// a repeated or malformed group name): ECMA-262 calls such a pattern an early error.
func translatePattern(p string) (string, bool) {
	if !utf8.ValidString(p) {
		return "", false
	}
	t := translator{p: p}
	for t.i < len(p) {
		var ok bool
		if t.inClass {
			ok = t.classItem()
		} else {
			ok = t.item()
		}
		if !ok {
			return "", false
		}
	}
	if t.inClass {
		return "", false
	}
	return t.b.String(), true
}

// A translator is translatePattern's state: the output, the position in p, and what
// the early errors of Unicode mode depend on.
type translator struct {
	b        strings.Builder
	p        string
	i        int
	inClass  bool
	assert   bool      // the last item outside a class is an assertion (^ $ \b \B)
	cls      classEnds // the class being read
	groupSet map[string]bool
}

// The kinds of a class atom, for the rule that no end of a range is a class escape.
const (
	atomNone = iota // the class's start, or just after a range
	atomChar
	atomSet // \d \D \w \W \s \S \p{..} \P{..}
)

// classEnds tracks the atoms of a class: the kind of the last one and whether a "-"
// after it makes it the start of a range.
type classEnds struct {
	last, from int
	dash       bool
}

// atom records an atom of kind k; ok is false when it ends a range one of whose ends
// is a class escape.
func (c *classEnds) atom(k int) bool {
	if c.dash {
		c.dash, c.last = false, atomNone
		return k != atomSet && c.from != atomSet
	}
	c.last = k
	return true
}

// item translates one item outside a class.
func (t *translator) item() bool {
	c := t.p[t.i]
	assert := false
	switch c {
	case '\\':
		if t.i+1 >= len(t.p) {
			return false
		}
		n, ok := translateEscape(&t.b, t.p, t.i+1, false)
		if !ok {
			return false
		}
		assert = t.p[t.i+1] == 'b' || t.p[t.i+1] == 'B'
		t.i = n
		t.assert = assert
		return true
	case '[':
		rest := t.p[t.i+1:]
		if strings.HasPrefix(rest, "]") || strings.HasPrefix(rest, "^]") {
			return false // [] and [^] have no RE2 spelling
		}
		t.inClass, t.cls = true, classEnds{}
		t.b.WriteByte('[')
		if strings.HasPrefix(rest, "^") {
			t.b.WriteByte('^')
			t.i++
		}
	case ']', '}':
		return false // lone: an early error in Unicode mode, a literal in Go
	case '{':
		n, ok := quantifierEnd(t.p, t.i)
		if !ok || t.assert {
			return false // not a quantifier, or one of an assertion
		}
		t.b.WriteString(t.p[t.i:n])
		t.i, t.assert = n, false
		return true
	case '*', '+', '?':
		if t.assert {
			return false // a quantified assertion
		}
		t.b.WriteByte(c)
	case '^', '$':
		assert = true
		t.b.WriteByte(c)
	case '.':
		t.b.WriteString(ecmaDot)
	case '(':
		return t.group()
	default:
		t.b.WriteByte(c)
	}
	t.i++
	t.assert = assert
	return true
}

// group translates the opening of a group at p[i]: a plain or non-capturing one, or
// a named one, whose name must not begin with a digit nor repeat an earlier one.
func (t *translator) group() bool {
	t.assert = false
	if !strings.HasPrefix(t.p[t.i+1:], "?") {
		t.b.WriteByte('(')
		t.i++
		return true
	}
	rest := t.p[t.i+2:]
	switch {
	case strings.HasPrefix(rest, ":"):
		t.b.WriteString("(?:")
		t.i += 3
		return true
	case strings.HasPrefix(rest, "<") && !strings.HasPrefix(rest, "<=") && !strings.HasPrefix(rest, "<!"):
		name, _, ok := strings.Cut(rest[1:], ">")
		if !ok || name == "" || name[0] >= '0' && name[0] <= '9' || t.groupSet[name] {
			return false
		}
		if t.groupSet == nil {
			t.groupSet = map[string]bool{}
		}
		t.groupSet[name] = true
		t.b.WriteString("(?P<")
		t.i += 3
		return true
	}
	return false // lookaround, inline flags
}

// classItem translates one item inside a class.
func (t *translator) classItem() bool {
	c := t.p[t.i]
	switch {
	case c == '\\':
		if t.i+1 >= len(t.p) {
			return false
		}
		k := atomChar
		if strings.IndexByte("dDwWsSpP", t.p[t.i+1]) >= 0 {
			k = atomSet
		}
		n, ok := translateEscape(&t.b, t.p, t.i+1, true)
		if !ok || !t.cls.atom(k) {
			return false
		}
		t.i = n
		return true
	case c == ']':
		t.inClass = false
		t.b.WriteByte(']')
	case c == '-' && !t.cls.dash && t.cls.last != atomNone && t.i+1 < len(t.p) && t.p[t.i+1] != ']':
		t.cls.dash, t.cls.from, t.cls.last = true, t.cls.last, atomNone // a range
		t.b.WriteByte('-')
	case c == '[':
		if t.i+1 < len(t.p) && (t.p[t.i+1] == ':' || t.p[t.i+1] == '=' || t.p[t.i+1] == '.') {
			return false // POSIX class syntax in Go, literal in ECMA
		}
		if !t.cls.atom(atomChar) {
			return false
		}
		t.b.WriteString(`\[`)
	default:
		if !t.cls.atom(atomChar) {
			return false
		}
		t.b.WriteByte(c)
	}
	t.i++
	return true
}

// quantifierEnd answers the index after the quantifier {n}, {n,} or {n,m} at p[i], or
// ok == false when the brace begins none (an early error in Unicode mode).
func quantifierEnd(p string, i int) (int, bool) {
	j := i + 1
	digits := func() int {
		k := j
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
		return j - k
	}
	if digits() == 0 {
		return 0, false
	}
	if j < len(p) && p[j] == ',' {
		j++
		digits()
	}
	if j >= len(p) || p[j] != '}' {
		return 0, false
	}
	return j + 1, true
}

// translateEscape writes the translation of the escape whose letter is at p[i] and
// answers the index after it, dispatching on the escape's class.
func translateEscape(b *strings.Builder, p string, i int, inClass bool) (int, bool) {
	switch c := p[i]; c {
	case 'd', 'D', 'w', 'W', 's', 'S':
		return classEscape(b, c, i, inClass)
	case 'b', 'B':
		return boundaryEscape(b, c, i, inClass)
	case 't', 'n', 'r', 'f', 'v', '0', 'c':
		return controlEscape(b, p, i)
	case 'x':
		return hexEscape(b, p, i)
	case 'u':
		return unicodeEscape(b, p, i)
	case 'p', 'P':
		return propertyEscape(b, p, i)
	case '-':
		if !inClass {
			return 0, false // a syntax character inside a class only
		}
		return syntaxEscape(b, c, i)
	default:
		return syntaxEscape(b, c, i)
	}
}

// classEscape translates the character class escapes \d \D \w \W \s \S at p[i] == c.
// \d and \w mean the same in both engines; \s takes ECMA's wider set of spaces, and
// \S inside a class has no RE2 spelling.
func classEscape(b *strings.Builder, c byte, i int, inClass bool) (int, bool) {
	switch {
	case c == 's' && inClass:
		b.WriteString(ecmaSpace)
	case c == 's':
		b.WriteString("[" + ecmaSpace + "]")
	case c == 'S' && inClass:
		return 0, false
	case c == 'S':
		b.WriteString("[^" + ecmaSpace + "]")
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	return i + 1, true
}

// boundaryEscape translates \b and \B at p[i] == c: word boundaries outside a class;
// inside one, \b is a backspace and \B is an error.
func boundaryEscape(b *strings.Builder, c byte, i int, inClass bool) (int, bool) {
	switch {
	case !inClass:
		b.WriteByte('\\')
		b.WriteByte(c)
	case c == 'B':
		return 0, false
	default:
		b.WriteString(`\x08`)
	}
	return i + 1, true
}

// controlEscape translates the control character escapes at p[i]: \t \n \r \f \v,
// \0 (not followed by a digit: that would be an octal or backreference) and \cX.
func controlEscape(b *strings.Builder, p string, i int) (int, bool) {
	switch c := p[i]; c {
	case '0':
		if i+1 < len(p) && p[i+1] >= '0' && p[i+1] <= '9' {
			return 0, false
		}
		b.WriteString(`\x00`)
		return i + 1, true
	case 'c':
		if i+1 < len(p) && (p[i+1] >= 'a' && p[i+1] <= 'z' || p[i+1] >= 'A' && p[i+1] <= 'Z') {
			b.WriteString(`\x{` + strconv.FormatInt(int64(p[i+1]%32), 16) + `}`)
			return i + 2, true
		}
		return 0, false
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
		return i + 1, true
	}
}

// hexEscape translates the escape \xHH at p[i].
func hexEscape(b *strings.Builder, p string, i int) (int, bool) {
	if len(p)-i < 3 || !isHex(p[i+1]) || !isHex(p[i+2]) {
		return 0, false
	}
	b.WriteString(`\x{` + p[i+1:i+3] + `}`)
	return i + 3, true
}

// unicodeEscape translates the escapes \u{H...} and \uHHHH at p[i]. A high surrogate
// must be followed by \uHHHH of a low one (the pair is one code point); a lone
// surrogate is refused.
func unicodeEscape(b *strings.Builder, p string, i int) (int, bool) {
	if strings.HasPrefix(p[i+1:], "{") {
		j := strings.IndexByte(p[i+1:], '}')
		if j < 2 {
			return 0, false
		}
		h := p[i+2 : i+1+j]
		v, err := strconv.ParseUint(h, 16, 32)
		if err != nil || v > unicode.MaxRune || v >= 0xD800 && v < 0xE000 {
			return 0, false
		}
		b.WriteString(`\x{` + h + `}`)
		return i + 2 + j, true
	}
	r, ok := jsonlex.Hex4(toBytes(p), i+1)
	if !ok {
		return 0, false
	}
	n := i + 5
	if r >= 0xD800 && r < 0xDC00 {
		if !strings.HasPrefix(p[n:], `\u`) {
			return 0, false
		}
		r2, ok := jsonlex.Hex4(toBytes(p), n+2)
		if !ok || r2 < 0xDC00 || r2 >= 0xE000 {
			return 0, false
		}
		r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
		n += 6
	} else if r >= 0xDC00 && r < 0xE000 {
		return 0, false
	}
	b.WriteString(`\x{` + strconv.FormatInt(int64(r), 16) + `}`)
	return n, true
}

// propertyEscape translates the Unicode property escapes \p{...} and \P{...} at p[i]
// to the names Go's regexp knows (see propertyName).
func propertyEscape(b *strings.Builder, p string, i int) (int, bool) {
	if !strings.HasPrefix(p[i+1:], "{") {
		return 0, false
	}
	j := strings.IndexByte(p[i+1:], '}')
	if j < 2 {
		return 0, false
	}
	name, ok := propertyName(p[i+2 : i+1+j])
	if !ok {
		return 0, false
	}
	b.WriteString(`\` + string(p[i]) + `{` + name + `}`)
	return i + 2 + j, true
}

// syntaxEscape translates an identity escape of a syntax character at p[i] == c, the
// only identity escapes Unicode mode allows. Backreferences (\1, \k<name>), Go-only
// escapes (\A, \z, \Q, \C, ...) and identity escapes of letters differ between the
// engines and are refused.
func syntaxEscape(b *strings.Builder, c byte, i int) (int, bool) {
	if c < utf8.RuneSelf && strings.IndexByte(`^$\.*+?()[]{}|/-`, c) >= 0 {
		b.WriteByte('\\')
		b.WriteByte(c)
		return i + 1, true
	}
	return 0, false
}

// propertyName maps an ECMA-262 Unicode property expression (General_Category and
// Script values, short or long) to the name Go's regexp knows.
func propertyName(expr string) (string, bool) {
	name, value, hasEq := strings.Cut(expr, "=")
	if hasEq {
		switch name {
		case "General_Category", "gc":
			expr = value
		case "Script", "sc":
			if _, ok := unicode.Scripts[value]; ok {
				return value, true
			}
			return "", false
		default:
			return "", false
		}
	}
	if long, ok := categoryAliases[expr]; ok {
		expr = long
	}
	if _, ok := unicode.Categories[expr]; !ok {
		return "", false
	}
	return expr, true
}

// categoryAliases maps long General_Category names to their short form.
var categoryAliases = map[string]string{
	"Letter": "L", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Titlecase_Letter": "Lt",
	"Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Combining_Mark": "M",
	"Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me", "Number": "N",
	"Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
	"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
	"Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
	"Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
	"Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
	"Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Private_Use": "Co", "Surrogate": "Cs",
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func toBytes(s string) []byte { return []byte(s) }
