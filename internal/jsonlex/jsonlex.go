// Package jsonlex holds the JSON lexing primitives (whitespace, strings, escapes, exact
// member names, skipping values, and Valid, the grammar check of a whole value) that the
// module's hand-written JSON readers share.
package jsonlex

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// Fault says why ScanString refused a string; the zero Fault means it did not.
type Fault uint8

const (
	None          Fault = iota
	Unterminated        // the text ends inside the string or inside an escape
	Control             // an unescaped control character (below U+0020)
	BadEscape           // an unknown escape letter, or \u without four hex digits
	LoneSurrogate       // a \u escape of a surrogate that is not half of a pair
	BadUTF8             // invalid UTF-8, including encoded surrogates and overlong forms
)

// IsSpace reports whether c is JSON whitespace (RFC 8259: space, tab, LF, CR).
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte at or after i that is not whitespace,
// or len(b).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// hexVal maps a byte to its hex digit value, or -1, which makes any rune it is ORed
// into (shifted left or not) negative.
var hexVal = func() (t [256]rune) {
	for c := range t {
		t[c] = -1
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = c - 'a' + 10
		t[c-'a'+'A'] = c - 'a' + 10
	}
	return t
}()

// Hex4 decodes the four hexadecimal digits (either case) at b[i:]; ok is false when
// fewer than four bytes remain or one is not a hex digit. It is small enough to inline.
func Hex4(b []byte, i int) (r rune, ok bool) {
	if i < 0 || len(b)-i < 4 {
		return 0, false
	}
	h := [4]byte(b[i:])
	r = hexVal[h[0]]<<12 | hexVal[h[1]]<<8 | hexVal[h[2]]<<4 | hexVal[h[3]]
	return r, r >= 0
}

// String describes a string ScanString accepted.
type String struct {
	End     int  // index just past the closing quote
	Units   int  // UTF-16 code units of the decoded text
	Astral  int  // decoded characters beyond U+FFFF (two units, one code point each)
	Escaped bool // the text holds an escape, so its decoded form is not its raw bytes
}

// ScanString checks the JSON string whose opening quote is b[i] exactly as RFC 8259 and
// I-JSON define it: valid UTF-8, no unescaped control character, only the standard
// escapes, and every surrogate escape half of a pair. It allocates nothing. The decoded
// text of an accepted string is b[i+1:s.End-1] itself when !s.Escaped, else what
// Unescape makes of it. On a fault, s is meaningless.
func ScanString(b []byte, i int) (s String, f Fault) {
	i++
	for {
		j := plainRun(b, i)
		s.Units += j - i
		i = j
		if i >= len(b) {
			return s, Unterminated
		}
		switch c := b[i]; {
		case c == '"':
			s.End = i + 1
			return s, None
		case c == '\\':
			s.Escaped = true
			r, next, f := escape(b, i)
			if f != None {
				return s, f
			}
			s.count(r >= 0x10000)
			i = next
		case c < 0x20:
			return s, Control
		default:
			j := s.chars(b, i)
			if j == i {
				return s, BadUTF8
			}
			i = j
		}
	}
}

// chars counts the multi-byte characters of the run of bytes from 0x80 at b[i] and
// returns the run's end, or i when the run is not UTF-8. A byte below 0x80 is never
// inside a character, so the run is whole characters when it is valid; checking and
// counting it at once, not a character at a time, reads text in other scripts several
// times faster.
func (s *String) chars(b []byte, i int) int {
	j := i
	for j < len(b) && b[j] >= utf8.RuneSelf {
		j++
	}
	run := b[i:j]
	if !utf8.Valid(run) {
		return i
	}
	for _, c := range run {
		if c&0xC0 != 0x80 { // the first byte of a character: one unit
			s.Units++
		}
		if c >= 0xF0 { // of four bytes: beyond the BMP, a second unit
			s.Units++
			s.Astral++
		}
	}
	return j
}

// count adds one character: one UTF-16 unit, or two for an astral one.
func (s *String) count(astral bool) {
	s.Units++
	if astral {
		s.Units++
		s.Astral++
	}
}

// DecodeString is ScanString that also decodes, in the same single pass (a reader that
// keeps the text reads it once): when the string holds an escape, its decoded text, as
// Unescape makes it, is appended to dst; otherwise dst comes back unchanged and the
// text is b[i+1:s.End-1] itself. The decoded text is never longer than the raw, and
// with room in dst it allocates nothing. On a fault, dst may hold a partial decoding.
func DecodeString(dst, b []byte, i int) ([]byte, String, Fault) {
	i++
	return DecodeStringFrom(dst, b, i, i)
}

// PlainPrefix returns the index of the first byte of b[i:i+8] that is not plain
// (printable ASCII other than the quote and the backslash), or i+8 when all eight are,
// or i when fewer than eight bytes remain. It is small enough to inline, so a reader
// can finish a short string without a call and hand the rest to DecodeStringFrom.
func PlainPrefix(b []byte, i int) int {
	if i < 0 || len(b)-i < 8 {
		return i
	}
	m := special(binary.LittleEndian.Uint64(b[i:]))
	return i + bits.TrailingZeros64(m)>>3 // 8 when m == 0
}

// DecodeStringFrom is DecodeString resumed inside the string: b[start-1] is the
// opening quote and b[start:i] is text the caller already found plain (PlainPrefix),
// which is not read again.
func DecodeStringFrom(dst, b []byte, start, i int) ([]byte, String, Fault) {
	s := String{Units: i - start}
	for {
		j := plainRun(b, i)
		s.Units += j - i
		i = j
		if i >= len(b) {
			return dst, s, Unterminated
		}
		c := b[i]
		if c == '"' {
			s.End = i + 1
			return dst, s, None
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return dst, s, Control
		}
		j = s.chars(b, i)
		if j == i {
			return dst, s, BadUTF8
		}
		i = j
	}
	s.Escaped = true
	dst = append(dst, b[start:i]...)
	for {
		// b[i] is neither plain nor the closing quote.
		switch c := b[i]; {
		case c == '"':
			s.End = i + 1
			return dst, s, None
		case c == '\\':
			if i+1 < len(b) && b[i+1] == 'u' {
				d, next, units, astral := appendURun(dst, b, i)
				if next > i {
					dst, i = d, next
					s.Units += units
					s.Astral += astral
					break
				}
			}
			r, next, f := escape(b, i)
			if f != None {
				return dst, s, f
			}
			s.count(r >= 0x10000)
			dst = utf8.AppendRune(dst, r)
			i = next
		case c < 0x20:
			return dst, s, Control
		default:
			j := s.chars(b, i)
			if j == i {
				return dst, s, BadUTF8
			}
			dst = append(dst, b[i:j]...)
			i = j
		}
		j := plainRun(b, i)
		s.Units += j - i
		dst = append(dst, b[i:j]...)
		if i = j; i >= len(b) {
			return dst, s, Unterminated
		}
	}
}

// escape decodes the escape whose backslash is b[i], strictly, and returns the rune and
// the index past the escape (past both halves of a surrogate pair).
func escape(b []byte, i int) (r rune, next int, f Fault) {
	if i+1 >= len(b) {
		return 0, i, Unterminated
	}
	if e := b[i+1]; e != 'u' {
		d := unescape[e]
		if d == 0 {
			return 0, i, BadEscape
		}
		return rune(d), i + 2, None
	}
	r, ok := Hex4(b, i+2)
	if !ok {
		return 0, i, BadEscape
	}
	i += 6
	if r < 0xD800 || r >= 0xE000 {
		return r, i, None
	}
	if r >= 0xDC00 || i+1 >= len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, i, LoneSurrogate // a low half first, or a high half alone
	}
	lo, ok := Hex4(b, i+2)
	if !ok {
		return 0, i, BadEscape
	}
	if lo < 0xDC00 || lo >= 0xE000 {
		return 0, i, LoneSurrogate
	}
	return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), i + 6, None
}

// unescape maps the letter of a one-character escape to its byte (0: not an escape).
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// plainRun returns the end of the run of bytes from i that need no care inside a
// string: printable ASCII other than the quote and the backslash. It looks at eight
// bytes at a time, and takes the end from the word that holds it (special's lowest
// flag is exact).
func plainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && plain[b[i]] {
		i++
	}
	return i
}

// special flags the high bit of each byte of x (eight bytes of a string, little-endian)
// that is below 0x20, the quote, the backslash or at least 0x80. A borrow may also flag
// a byte above a flagged one, never one below: the lowest flag is exact.
func special(x uint64) uint64 {
	return ((x - lo8*0x20) | ((x ^ lo8*'"') - lo8) | ((x ^ lo8*'\\') - lo8) | x) & hi8
}

// lo8 and hi8 repeat 0x01 and 0x80 in every byte of a word.
const lo8, hi8 = 0x0101010101010101, 0x8080808080808080

// plain marks the bytes plainRun skips.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Unescape appends the decoded text of s, the raw content of a JSON string (between
// its quotes), to dst and returns it; with room in dst it allocates nothing. It decodes
// as encoding/json does: invalid UTF-8 and lone surrogate escapes become U+FFFD. For s
// that json.Valid would not accept inside quotes the result is unspecified, but
// Unescape never panics.
func Unescape(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] < utf8.RuneSelf && s[j] != '\\' {
			j++
		}
		dst = append(dst, s[i:j]...)
		if i = j; i >= len(s) {
			break
		}
		var r rune
		if s[i] == '\\' {
			r, i = looseEscape(s, i)
		} else {
			var size int
			r, size = utf8.DecodeRune(s[i:]) // invalid: RuneError, one byte
			i += size
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// appendURun decodes onto dst the run of \uXXXX escapes from i whose code points are
// not surrogates or are well-formed surrogate pairs, and returns dst, the end of the
// run, its UTF-16 code units and its characters beyond U+FFFF. It stops at anything
// else, for escape to judge. A long run of escapes is the slowest string to decode
// (SPEC PERF-4's worst case), so it gets this short loop.
func appendURun(dst, s []byte, i int) (out []byte, next, units, astral int) {
	for len(s)-i >= 6 && s[i] == '\\' && s[i+1] == 'u' {
		r := hexRune([4]byte(s[i+2 : i+6]))
		if r < 0 {
			break
		}
		if uint32(r)-0xD800 < 0x800 {
			// A surrogate: only a well-formed pair stays on this loop.
			if r >= 0xDC00 || len(s)-i < 12 || s[i+6] != '\\' || s[i+7] != 'u' {
				break
			}
			lo := hexRune([4]byte(s[i+8 : i+12]))
			if lo < 0xDC00 || lo >= 0xE000 {
				break
			}
			r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			// The four bytes of UTF-8 in one store, first byte lowest.
			dst = binary.LittleEndian.AppendUint32(dst, uint32(0xF0|r>>18)|uint32(0x80|r>>12&0x3F)<<8|uint32(0x80|r>>6&0x3F)<<16|uint32(0x80|r&0x3F)<<24)
			astral++
			i += 12
			continue
		}
		switch {
		case r < 0x80:
			dst = append(dst, byte(r))
		case r < 0x800:
			dst = binary.LittleEndian.AppendUint16(dst, uint16(0xC0|r>>6)|uint16(0x80|r&0x3F)<<8)
		default:
			dst = append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
		}
		units++
		i += 6
	}
	return dst, i, units + 2*astral, astral
}

// hexRune decodes four hexadecimal digits (either case), or is negative if one is not.
func hexRune(h [4]byte) rune {
	return hexVal[h[0]]<<12 | hexVal[h[1]]<<8 | hexVal[h[2]]<<4 | hexVal[h[3]]
}

// looseEscape decodes the escape whose backslash is s[i] as encoding/json does: a
// surrogate escape that is not half of a pair is U+FFFD, and the escape after a lone
// high half is decoded on its own. A malformed escape decodes its backslash as itself.
func looseEscape(s []byte, i int) (r rune, next int) {
	if i+1 >= len(s) {
		return '\\', i + 1
	}
	if e := s[i+1]; e != 'u' {
		if d := unescape[e]; d != 0 {
			return rune(d), i + 2
		}
		return '\\', i + 1
	}
	r, ok := Hex4(s, i+2)
	if !ok {
		return '\\', i + 1
	}
	i += 6
	if r < 0xD800 || r >= 0xE000 {
		return r, i
	}
	if r < 0xDC00 && len(s)-i >= 6 && s[i] == '\\' && s[i+1] == 'u' {
		if lo, ok := Hex4(s, i+2); ok && lo >= 0xDC00 && lo < 0xE000 {
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), i + 6
		}
	}
	return utf8.RuneError, i
}

// Equal reports whether s, the raw content of a JSON string (between its quotes),
// decodes to exactly name: byte for byte, no case folding or normalisation. It decodes
// as Unescape does and allocates nothing.
func Equal(s []byte, name string) bool {
	k := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf && c != '\\' {
			if k >= len(name) || name[k] != c {
				return false
			}
			i++
			k++
			continue
		}
		var r rune
		if c == '\\' {
			r, i = looseEscape(s, i)
		} else {
			var size int
			r, size = utf8.DecodeRune(s[i:])
			i += size
		}
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		if len(name)-k < n || name[k:k+n] != string(buf[:n]) {
			return false
		}
		k += n
	}
	return k == len(name)
}

// SkipString returns the index just past the string whose opening quote is b[i], for
// text already known to be valid JSON; for other text it returns at most len(b).
func SkipString(b []byte, i int) int {
	// Most of a tool's text is in strings (descriptions), read this way on every catalog
	// build: the next quote is found many bytes at a time (bytes.IndexByte), and closes
	// the string unless an odd run of backslashes before it escapes it.
	for j := i + 1; j < len(b); j++ {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		n := 0
		for n < j-i-1 && b[j-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
	}
	return len(b)
}

// SkipValue returns the index just past the value that starts at b[i], for text
// already known to be valid JSON (whitespace inside the value is skipped with it); for
// other text it returns some index in [i, len(b)] and never panics.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = SkipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	default: // number, true, false, null
		for i < len(b) && !IsSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
			i++
		}
		return i
	}
}
