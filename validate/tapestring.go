package validate

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
)

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
// units and astral are the counts of string so far. It decodes the rest of the string
// into the arena: runs of \u escapes on a short path (escScan.uRun), then each plain
// run, other escape or multi-byte character in turn.
func (t *tape) escString(src []byte, start, i, units, astral int, lim tapeLimits) (int, error) {
	off := len(t.arena)
	// The decoded text is never longer than the rest of the source, so after this Grow
	// the appends never reallocate.
	d := escScan{out: slices.Grow(t.arena, len(src)-start), units: units, astral: astral}
	d.out = append(d.out, src[start:i]...)
	for {
		if len(src)-i >= 6 && src[i] == '\\' && src[i+1] == 'u' {
			i = d.uRun(src, i)
		}
		if i < len(src) && src[i] != '\\' {
			if j := plainRun(src, i); j > i {
				d.units += j - i
				d.out = append(d.out, src[i:j]...)
				i = j
			}
		}
		if i >= len(src) {
			return 0, errSyntax
		}
		var err error
		switch c := src[i]; {
		case c == '"':
			t.units += d.units
			if t.units > lim.units {
				return 0, errUnits
			}
			t.arena = d.out
			t.toks = append(t.toks, token{kind: kString, esc: true, off: int32(off), end: int32(len(d.out)), n: int32(d.units - d.astral), next: int32(len(t.toks) + 1)})
			return i + 1, nil
		case c == '\\':
			i, err = d.escape(src, i)
		case c < 0x20:
			return 0, errSyntax
		default:
			i, err = d.char(src, i)
		}
		if err != nil {
			return 0, err
		}
	}
}

// escScan is the scratch of escString: the decoded text so far (in the arena's
// storage) and its UTF-16 code units and characters beyond the BMP. Its methods copy
// the fields to locals while they loop, so appends stay in registers.
type escScan struct {
	out           []byte
	units, astral int
}

// uRun decodes the run of \uXXXX escapes (and well-formed surrogate pairs) at i, the
// longest text per code unit the bounds allow, and answers the index after it. It
// stops at anything else, malformed escapes included: escape decides those.
func (d *escScan) uRun(src []byte, i int) int {
	out, units, astral := d.out, d.units, d.astral
	for len(src)-i >= 6 && src[i] == '\\' && src[i+1] == 'u' {
		h := src[i+2 : i+6 : i+6]
		a, b, c, e := hexVal[h[0]], hexVal[h[1]], hexVal[h[2]], hexVal[h[3]]
		if (a|b|c|e)&0xF0 != 0 {
			break
		}
		r := rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(e)
		if a == 0xD && r >= 0xD800 {
			// A surrogate: a well-formed pair takes the short path too.
			if r >= 0xDC00 || len(src)-i < 12 || src[i+6] != '\\' || src[i+7] != 'u' {
				break
			}
			l := src[i+8 : i+12 : i+12]
			a, b, c, e := hexVal[l[0]], hexVal[l[1]], hexVal[l[2]], hexVal[l[3]]
			r2 := rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(e)
			if (a|b|c|e)&0xF0 != 0 || r2 < 0xDC00 || r2 >= 0xE000 {
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
	d.out, d.units, d.astral = out, units, astral
	return i
}

// escape decodes the escape at i (a backslash) and answers the index after it: a
// one-character escape, \uXXXX of a non-surrogate, or a \uXXXX\uXXXX surrogate pair.
// A lone or reversed surrogate is an encoding error; anything else malformed is a
// syntax error.
func (d *escScan) escape(src []byte, i int) (int, error) {
	if i+1 >= len(src) {
		return 0, errSyntax
	}
	e := src[i+1]
	i += 2
	d.units++
	if e != 'u' {
		b := unescape[e]
		if b == 0 {
			return 0, errSyntax
		}
		d.out = append(d.out, b)
		return i, nil
	}
	r, ok := hex4(src, i)
	if !ok {
		return 0, errSyntax
	}
	i += 4
	switch {
	case r < 0xD800 || r >= 0xE000:
		d.out = utf8.AppendRune(d.out, r)
		return i, nil
	case r >= 0xDC00:
		return 0, errEncoding // a low surrogate first
	}
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
	d.units++
	d.astral++
	d.out = utf8.AppendRune(d.out, 0x10000+(r-0xD800)<<10+(r2-0xDC00))
	return i + 6, nil
}

// char copies the multi-byte UTF-8 character at i and answers the index after it; an
// invalid encoding (including an encoded surrogate) is an error.
func (d *escScan) char(src []byte, i int) (int, error) {
	r, size := utf8.DecodeRune(src[i:])
	if r == utf8.RuneError && size == 1 {
		return 0, errEncoding
	}
	d.units++
	if r >= 0x10000 {
		d.units++
		d.astral++
	}
	d.out = append(d.out, src[i:i+size]...)
	return i + size, nil
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

// hex4 decodes the four hex digits at src[i:]; ok is false when fewer than four bytes
// remain or one of them is not a hex digit.
func hex4(src []byte, i int) (r rune, ok bool) {
	if i < 0 || len(src)-i < 4 {
		return 0, false
	}
	h := src[i : i+4 : i+4]
	a, b, c, d := hexVal[h[0]], hexVal[h[1]], hexVal[h[2]], hexVal[h[3]]
	return rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(d), (a|b|c|d)&0xF0 == 0
}
