package validate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"unicode/utf8"
)

// kind is the JSON type of one tape token.
type kind uint8

const (
	kNull kind = iota + 1
	kFalse
	kTrue
	kNumber
	kString
	kArray
	kObject
)

// token is one JSON value (or object key) of a tape. Containers are followed by their
// children in document order; an object's children alternate key, value.
type token struct {
	kind kind
	esc  bool  // string content was decoded into the arena (it had escapes)
	off  int32 // string content or number literal: [off, end) in src or arena
	end  int32
	n    int32 // array: elements; object: members; string: code points (minLength, maxLength)
	next int32 // index of the first token after this value's subtree
}

// tape is a JSON text flattened into tokens in one pass. It is reused through a pool,
// so a steady-state parse allocates nothing.
type tape struct {
	src   []byte
	arena []byte
	toks  []token
	stack []int32
	keys  []int32
	table []hpair // duplicate-key hash table; i == 0 marks a free slot
	nodes int     // JSON values, keys excluded
	units int     // UTF-16 code units over all strings, keys included
}

// tapeLimits bound one parse.
type tapeLimits struct {
	depth, nodes, units, bytes int
}

// Errors of the parser. They carry no input text (SPEC ERR-2).
var (
	errSyntax    = fmt.Errorf("%w: malformed JSON", ErrInvalid)
	errEncoding  = fmt.Errorf("%w: invalid UTF-8 or lone surrogate in a string", ErrInvalid)
	errDuplicate = fmt.Errorf("%w: duplicate object key", ErrInvalid)
	errDepth     = fmt.Errorf("%w: nesting depth", ErrLimit)
	errNodes     = fmt.Errorf("%w: node count", ErrLimit)
	errUnits     = fmt.Errorf("%w: string code units", ErrLimit)
	errBytes     = fmt.Errorf("%w: text size", ErrLimit)
	errExponent  = fmt.Errorf("%w: number exponent", ErrLimit)
	errSteps     = fmt.Errorf("%w: work steps", ErrLimit)
)

// str returns the decoded content of string token i.
func (t *tape) str(i int32) []byte {
	tk := &t.toks[i]
	if tk.esc {
		return t.arena[tk.off:tk.end]
	}
	return t.src[tk.off:tk.end]
}

// lit returns the literal of number token i.
func (t *tape) lit(i int32) []byte { return t.src[t.toks[i].off:t.toks[i].end] }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(src []byte, i int) int {
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	return i
}

// parse fills t from src, enforcing lim, and charges duplicate-key checks to *steps.
// It accepts exactly RFC 8259 JSON with one top-level value, valid UTF-8 and no lone
// surrogate escapes, and rejects duplicate keys in any object.
func (t *tape) parse(src []byte, lim tapeLimits, steps *int) error {
	t.src = src
	t.arena = t.arena[:0]
	t.toks = t.toks[:0]
	t.stack = t.stack[:0]
	t.nodes, t.units = 0, 0
	if len(src) > lim.bytes {
		return errBytes
	}
	i := skipSpace(src, 0)
	for {
		// A value starts at i.
		if i >= len(src) {
			return errSyntax
		}
		t.nodes++
		if t.nodes > lim.nodes {
			return errNodes
		}
		c := src[i]
		switch {
		case c == '{' || c == '[':
			if len(t.stack) >= lim.depth {
				return errDepth
			}
			k := kArray
			if c == '{' {
				k = kObject
			}
			t.stack = append(t.stack, int32(len(t.toks)))
			t.toks = append(t.toks, token{kind: k})
			i = skipSpace(src, i+1)
			if i < len(src) && (src[i] == '}' && k == kObject || src[i] == ']' && k == kArray) {
				i++
				if err := t.close(steps); err != nil {
					return err
				}
				goto after
			}
			t.toks[t.stack[len(t.stack)-1]].n++
			if k == kObject {
				var err error
				if i, err = t.key(src, i, lim); err != nil {
					return err
				}
			}
			continue
		case c == '"':
			var err error
			if i, err = t.string(src, i, lim); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9':
			var err error
			if i, err = t.number(src, i, lim); err != nil {
				return err
			}
		case c == 't':
			if !hasLit(src, i, "true") {
				return errSyntax
			}
			t.toks = append(t.toks, token{kind: kTrue, next: int32(len(t.toks) + 1)})
			i += 4
		case c == 'f':
			if !hasLit(src, i, "false") {
				return errSyntax
			}
			t.toks = append(t.toks, token{kind: kFalse, next: int32(len(t.toks) + 1)})
			i += 5
		case c == 'n':
			if !hasLit(src, i, "null") {
				return errSyntax
			}
			t.toks = append(t.toks, token{kind: kNull, next: int32(len(t.toks) + 1)})
			i += 4
		default:
			return errSyntax
		}
	after:
		// A value ended just before i.
		for {
			i = skipSpace(src, i)
			if len(t.stack) == 0 {
				if i != len(src) {
					return errSyntax
				}
				return nil
			}
			if i >= len(src) {
				return errSyntax
			}
			top := t.stack[len(t.stack)-1]
			k := t.toks[top].kind
			switch c := src[i]; {
			case c == ',':
				i = skipSpace(src, i+1)
				t.toks[top].n++
				if k == kObject {
					var err error
					if i, err = t.key(src, i, lim); err != nil {
						return err
					}
				}
			case c == '}' && k == kObject, c == ']' && k == kArray:
				i++
				if err := t.close(steps); err != nil {
					return err
				}
				continue
			default:
				return errSyntax
			}
			break
		}
	}
}

func hasLit(src []byte, i int, lit string) bool {
	return len(src)-i >= len(lit) && string(src[i:i+len(lit)]) == lit
}

// key parses an object key and its colon at i and answers the index of the value.
func (t *tape) key(src []byte, i int, lim tapeLimits) (int, error) {
	if i >= len(src) || src[i] != '"' {
		return 0, errSyntax
	}
	i, err := t.string(src, i, lim)
	if err != nil {
		return 0, err
	}
	i = skipSpace(src, i)
	if i >= len(src) || src[i] != ':' {
		return 0, errSyntax
	}
	return skipSpace(src, i+1), nil
}

// close ends the container on top of the stack and, for an object, rejects a duplicate key.
func (t *tape) close(steps *int) error {
	top := t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
	tk := &t.toks[top]
	tk.next = int32(len(t.toks))
	if tk.kind != kObject || tk.n < 2 {
		return nil
	}
	t.keys = t.keys[:0]
	for j, m := top+1, int32(0); m < tk.n; m++ {
		t.keys = append(t.keys, j)
		j = t.toks[j+1].next
	}
	n := len(t.keys)
	if n <= 16 {
		*steps += n * n / 2
		for a := 0; a < n; a++ {
			ka := t.str(t.keys[a])
			for b := a + 1; b < n; b++ {
				if string(ka) == string(t.str(t.keys[b])) {
					return errDuplicate
				}
			}
		}
		return nil
	}
	// Many keys: an open-addressing table of key hashes, one step per key and per probe.
	*steps += n
	size := 1 << bitsLen(2*n)
	mask := size - 1
	t.table = slices.Grow(t.table[:0], size)[:size]
	clear(t.table)
	for _, k := range t.keys {
		key := t.str(k)
		h := maphash.Bytes(hashSeed, key)
		for p := int(h) & mask; ; p = (p + 1) & mask {
			slot := &t.table[p]
			if slot.i == 0 {
				slot.h, slot.i = h, k
				break
			}
			*steps++
			if slot.h == h && string(t.str(slot.i)) == string(key) {
				return errDuplicate
			}
		}
	}
	return nil
}

func bitsLen(n int) int {
	b := 1
	for n > 1 {
		n >>= 1
		b++
	}
	return b
}

// number scans a number literal at i.
// The literal's bytes count against the string code units bound: a long number is a
// long string of digits.
func (t *tape) number(src []byte, i int, lim tapeLimits) (int, error) {
	start := i
	if src[i] == '-' {
		i++
	}
	if i >= len(src) {
		return 0, errSyntax
	}
	switch c := src[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i = digitRun(src, i)
	default:
		return 0, errSyntax
	}
	if i < len(src) && src[i] == '.' {
		i++
		d := i
		i = digitRun(src, i)
		if i == d {
			return 0, errSyntax
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		d := i
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		if i == d {
			return 0, errSyntax
		}
		for d < i-1 && src[d] == '0' {
			d++
		}
		if i-d > maxExpDigits {
			return 0, errExponent
		}
	}
	if i < len(src) {
		// A number must end at a delimiter, which the caller checks; letters are
		// rejected there too, but "01" must fail here.
		if c := src[i]; c >= '0' && c <= '9' {
			return 0, errSyntax
		}
	}
	t.units += i - start
	if t.units > lim.units {
		return 0, errUnits
	}
	t.toks = append(t.toks, token{kind: kNumber, off: int32(start), end: int32(i), next: int32(len(t.toks) + 1)})
	return i, nil
}

// digitRun answers the end of the run of ASCII digits from i, eight bytes at a time.
func digitRun(src []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		// Every byte is a digit when no byte of x-'0' borrows and none of
		// x+(0x7F-'9') carries into its high bit (which also rules out bytes >= 0x80).
		if ((x-lo*'0')|(x+lo*(0x7F-'9'))|x)&hi != 0 {
			break
		}
	}
	for i < len(src) && src[i] >= '0' && src[i] <= '9' {
		i++
	}
	return i
}

// plainRun answers the end of the run of bytes from i that need no care inside a
// string: printable ASCII other than the quote and the backslash. It looks at eight
// bytes at a time.
func plainRun(src []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		q := x ^ (lo * '"')
		b := x ^ (lo * '\\')
		special := ((x - lo*0x20) | (q - lo) | (b - lo) | x) & hi
		if special != 0 {
			break
		}
	}
	for i < len(src) && plain[src[i]] {
		i++
	}
	return i
}

// plain marks the bytes plainRun skips.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// string scans a string at i (the opening quote), decoding escapes into the arena.
func (t *tape) string(src []byte, i int, lim tapeLimits) (int, error) {
	i++
	start := i
	// units counts UTF-16 code units (the CALL-5 bound); astral counts characters
	// beyond the BMP, two units but one code point.
	units, astral := 0, 0
	for {
		j := plainRun(src, i)
		units += j - i
		i = j
		if i >= len(src) {
			return 0, errSyntax
		}
		c := src[i]
		if c == '"' {
			break
		}
		if c == '\\' {
			return t.escString(src, start, i, units, astral, lim)
		}
		if c < 0x20 {
			return 0, errSyntax
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			return 0, errEncoding
		}
		units++
		if r >= 0x10000 {
			units++
			astral++
		}
		i += size
	}
	t.units += units
	if t.units > lim.units {
		return 0, errUnits
	}
	t.toks = append(t.toks, token{kind: kString, off: int32(start), end: int32(i), n: int32(units - astral), next: int32(len(t.toks) + 1)})
	return i + 1, nil
}

// escString continues a string whose content starts at start and holds an escape at i;
// units and astral are the counts of string so far.
func (t *tape) escString(src []byte, start, i, units, astral int, lim tapeLimits) (int, error) {
	off := len(t.arena)
	// The decoded text is never longer than the rest of the source.
	// out is the arena in a local variable, so appends stay in registers; the Grow
	// above means they never reallocate.
	out := slices.Grow(t.arena, len(src)-start)
	out = append(out, src[start:i]...)
	for {
		// A run of \uXXXX escapes (and well-formed surrogate pairs), the longest text
		// per code unit the bounds allow, takes this short path.
		for len(src)-i >= 6 && src[i] == '\\' && src[i+1] == 'u' {
			h := src[i+2 : i+6 : i+6]
			a, b, c, d := hexVal[h[0]], hexVal[h[1]], hexVal[h[2]], hexVal[h[3]]
			if (a|b|c|d)&0xF0 != 0 {
				break // malformed: the general path decides
			}
			r := rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(d)
			if a == 0xD && r >= 0xD800 {
				// A surrogate: a well-formed pair takes the short path too.
				if r >= 0xDC00 || len(src)-i < 12 || src[i+6] != '\\' || src[i+7] != 'u' {
					break
				}
				l := src[i+8 : i+12 : i+12]
				a, b, c, d := hexVal[l[0]], hexVal[l[1]], hexVal[l[2]], hexVal[l[3]]
				r2 := rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(d)
				if (a|b|c|d)&0xF0 != 0 || r2 < 0xDC00 || r2 >= 0xE000 {
					break
				}
				r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
				out = append(out, 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
				units += 2
				astral++
				i += 12
				continue
			}
			switch {
			case r < 0x80:
				out = append(out, byte(r))
			case r < 0x800:
				out = append(out, 0xC0|byte(r>>6), 0x80|byte(r)&0x3F)
			default:
				out = append(out, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
			}
			units++
			i += 6
		}
		j := i
		if i < len(src) && src[i] != '\\' {
			j = plainRun(src, i)
		}
		if j > i {
			units += j - i
			out = append(out, src[i:j]...)
			i = j
		}
		if i >= len(src) {
			return 0, errSyntax
		}
		c := src[i]
		switch {
		case c == '"':
			t.units += units
			if t.units > lim.units {
				return 0, errUnits
			}
			t.arena = out
			t.toks = append(t.toks, token{kind: kString, esc: true, off: int32(off), end: int32(len(out)), n: int32(units - astral), next: int32(len(t.toks) + 1)})
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(src) {
				return 0, errSyntax
			}
			e := src[i+1]
			i += 2
			units++
			if e != 'u' {
				d := unescape[e]
				if d == 0 {
					return 0, errSyntax
				}
				out = append(out, d)
				continue
			}
			if len(src)-i < 4 {
				return 0, errSyntax
			}
			h := src[i : i+4 : i+4]
			a, b, c, d := hexVal[h[0]], hexVal[h[1]], hexVal[h[2]], hexVal[h[3]]
			if (a|b|c|d)&0xF0 != 0 {
				return 0, errSyntax
			}
			r := rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(d)
			i += 4
			switch {
			case r < 0x80:
				out = append(out, byte(r))
			case r < 0x800:
				out = append(out, 0xC0|byte(r>>6), 0x80|byte(r)&0x3F)
			case r < 0xD800 || r >= 0xE000:
				out = append(out, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
			case r >= 0xDC00:
				return 0, errEncoding // a low surrogate first
			default:
				if len(src)-i < 6 || src[i] != '\\' || src[i+1] != 'u' {
					return 0, errEncoding
				}
				r2, ok := hex4(src, i+2)
				if !ok {
					return 0, errSyntax
				}
				if r2 < 0xDC00 || r2 >= 0xE000 {
					return 0, errEncoding
				}
				i += 6
				r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
				units++
				astral++
				out = append(out, 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
			}
		case c < 0x20:
			return 0, errSyntax
		default:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, errEncoding
			}
			units++
			if r >= 0x10000 {
				units++
				astral++
			}
			out = append(out, src[i:i+size]...)
			i += size
		}
	}
}

// unescape maps the letter of a one-character escape to its byte (0: not an escape).
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hexVal maps a byte to its hex digit value, or 0xFF.
var hexVal = func() (t [256]byte) {
	for c := range t {
		t[c] = 0xFF
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
		t[c-'a'+'A'] = byte(c - 'a' + 10)
	}
	return t
}()

func hex4(src []byte, i int) (rune, bool) {
	if i < 0 || len(src)-i < 4 {
		return 0, false
	}
	h := src[i : i+4 : i+4]
	a, b, c, d := hexVal[h[0]], hexVal[h[1]], hexVal[h[2]], hexVal[h[3]]
	return rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(d), (a|b|c|d)&0xF0 == 0
}

// isLimit reports whether err is a bound error (as opposed to a verdict).
func isLimit(err error) bool { return errors.Is(err, ErrLimit) }
