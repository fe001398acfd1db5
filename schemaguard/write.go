package schemaguard

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file writes the canonical form (RFC 8785) of the tape canonical.go parses.

// write appends the canonical form of the tape's value at i to dst and returns the index
// past its subtree.
func (c *canon) write(dst []byte, i int) ([]byte, int, error) {
	n := c.tape[i]
	switch n.kind {
	case kNull:
		return append(dst, "null"...), i + 1, nil
	case kFalse:
		return append(dst, "false"...), i + 1, nil
	case kTrue:
		return append(dst, "true"...), i + 1, nil
	case kNumber:
		return appendNumber(dst, n.num), i + 1, nil
	case kString, kPlain:
		return c.appendStringNode(dst, &n), i + 1, nil
	case kRaw:
		return append(dst, c.src[n.a:n.b]...), i + 1, nil
	case kArray:
		dst = append(dst, '[')
		j := i + 1
		for k := range n.a {
			if k > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, j, err = c.write(dst, j); err != nil {
				return dst, 0, err
			}
		}
		return append(dst, ']'), n.b, nil
	default: // kObject
		base := len(c.members)
		for j, k := i+1, 0; k < n.a; k++ {
			c.members = append(c.members, member{at: j, key: prefixKey(c.text(&c.tape[j]))})
			j = c.next(j + 1)
		}
		if err := c.sortMembers(c.members[base:]); err != nil {
			return dst, 0, err
		}
		dst = append(dst, '{')
		for k := range n.a {
			if k > 0 {
				dst = append(dst, ',')
			}
			key := c.members[base+k].at // re-read: a nested object may have grown c.members
			dst = c.appendStringNode(dst, &c.tape[key])
			dst = append(dst, ':')
			var err error
			if dst, _, err = c.write(dst, key+1); err != nil {
				return dst, 0, err
			}
		}
		c.members = c.members[:base]
		return append(dst, '}'), n.b, nil
	}
}

// A member is an object member being sorted: the tape index of its name, and key, the
// name's first 8 bytes (prefixKey), which order most pairs of names without reading them.
type member struct {
	at  int
	key uint64
}

// prefixKey returns the first 8 bytes of name as a big-endian number, zeros past its
// end: two names whose keys differ and hold no byte of 0x80 or more are in the order
// of their keys (their first differing byte is ASCII, or one name is a shorter prefix
// of the other), which is their UTF-16 order.
func prefixKey(name []byte) uint64 {
	if len(name) >= 8 {
		return binary.BigEndian.Uint64(name)
	}
	if cap(name) >= 8 { // the bytes past the name are there to load, then masked off
		return binary.BigEndian.Uint64(name[:8]) &^ (^uint64(0) >> (8 * len(name)))
	}
	var k uint64
	for i, ch := range name {
		k |= uint64(ch) << (56 - 8*i)
	}
	return k
}

// insertionMax is the most members sortMembers sorts by insertion, quadratic in the
// worst case; a schema's objects mostly hold a handful.
const insertionMax = 16

// compareMembers orders two members by name (compareUTF16), by their keys when those
// decide.
func (c *canon) compareMembers(x, y member) int {
	if d, ok := keyOrder(x.key, y.key); ok {
		return d
	}
	return c.compareKeys(x.at, y.at)
}

// keyOrder orders two names by their prefixKeys x and y; ok is false when the keys do
// not decide: equal, or holding a byte of 0x80 or more.
func keyOrder(x, y uint64) (d int, ok bool) {
	if x == y || (x|y)&hiBytes != 0 {
		return 0, false
	}
	if x < y {
		return -1, true
	}
	return 1, true
}

// hiBytes is the high bit of every byte of a word.
const hiBytes = 0x8080808080808080

// sortMembers sorts the members of one object by name, or returns errDuplicate if two
// names are equal.
func (c *canon) sortMembers(members []member) error {
	if len(members) > insertionMax {
		// Members already in order (as many writers leave them) need no sort, and
		// strictly increasing names hold no duplicate.
		sorted := true
		for k := 1; k < len(members) && sorted; k++ {
			sorted = c.compareMembers(members[k-1], members[k]) < 0
		}
		if sorted {
			return nil
		}
		slices.SortFunc(members, c.compareMembers)
		for k := 1; k < len(members); k++ {
			if c.compareMembers(members[k-1], members[k]) == 0 {
				return errDuplicate
			}
		}
		return nil
	}
	// Insertion sort: members in order cost one comparison each, and every pair of
	// names adjacent at the end was compared (by the later of the two to be inserted,
	// with each of its neighbours), so no equal pair goes unseen.
	for k := 1; k < len(members); k++ {
		m := members[k]
		j := k
		for ; j > 0; j-- {
			d := c.compareMembers(members[j-1], m)
			if d == 0 {
				return errDuplicate
			}
			if d < 0 {
				break
			}
			members[j] = members[j-1]
		}
		members[j] = m
	}
	return nil
}

// next returns the index past the subtree at i.
func (c *canon) next(i int) int {
	if k := c.tape[i].kind; k == kArray || k == kObject {
		return c.tape[i].b
	}
	return i + 1
}

func (c *canon) compareKeys(x, y int) int {
	return compareUTF16(c.text(&c.tape[x]), c.text(&c.tape[y]))
}

// compareUTF16 orders two valid UTF-8 strings as their UTF-16 encodings compare code
// unit by code unit (RFC 8785 §3.2.3). UTF-8 byte order is code point order, which
// differs from UTF-16 order only between a supplementary character (a surrogate pair,
// D800–DBFF first) and one in E000–FFFF.
func compareUTF16(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	// The first differing byte, found 8 bytes at a time: names of one object often
	// share a long prefix (repo_owner, repo_name).
	for i+8 <= n {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			i += bits.TrailingZeros64(x) / 8
			break
		}
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		return int(a[i]) - int(b[i])
	}
	for i > 0 && !utf8.RuneStart(a[i]) { // back to the start of the differing rune
		i--
	}
	ra, _ := utf8.DecodeRune(a[i:])
	rb, _ := utf8.DecodeRune(b[i:])
	if (ra < 0x10000) != (rb < 0x10000) {
		// One is a surrogate pair: compare its first code unit instead. The other
		// rune cannot equal it, since valid UTF-8 holds no surrogate code point.
		ra, rb = utf16Lead(ra), utf16Lead(rb)
	}
	return int(ra) - int(rb)
}

// utf16Lead returns the first UTF-16 code unit of r.
func utf16Lead(r rune) rune {
	if r < 0x10000 {
		return r
	}
	hi, _ := utf16.EncodeRune(r)
	return hi
}

// noEscape reports the bytes JCS writes unchanged inside a string.
var noEscape = func() (t [256]bool) {
	for i := range t {
		t[i] = i >= 0x20 && i != '"' && i != '\\'
	}
	return t
}()

// appendString appends s, valid UTF-8, as a JCS string: the two-character escapes for
// \b \t \n \f \r " and \, \u00xx with lower-case hex for other control characters, and
// every other character as itself.
func appendString(dst, s []byte) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	run := 0
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if noEscape[ch] {
			continue
		}
		dst = append(dst, s[run:i]...)
		run = i + 1
		switch ch {
		case '"', '\\':
			dst = append(dst, '\\', ch)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[ch>>4], hexDigits[ch&0xF])
		}
	}
	dst = append(dst, s[run:]...)
	return append(dst, '"')
}

// appendNumber appends f, finite, as ECMAScript's Number.prototype.toString writes it
// (ECMA-262 Number::toString, radix 10), which RFC 8785 §3.2.2.3 adopts. strconv's
// shortest representation gives the digits and exponent ECMAScript asks for: the
// fewest digits that round-trip, the closest of them to f.
func appendNumber(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0') // both zeros
	}
	if math.Abs(f) < 1<<53 && f == math.Trunc(f) {
		// An integer, exact in an int64: ECMAScript writes integers below 1e21 as
		// their digits, what AppendInt writes without formatting a float.
		return strconv.AppendInt(dst, int64(f), 10)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d[.ddd]e±xx
	var digits [17]byte
	k := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[k] = e[i]
			k++
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	n := exp + 1 // f = 0.d1d2...dk × 10^n
	s := digits[:k]
	switch {
	case k <= n && n <= 21: // an integer: the digits, then n-k zeros
		dst = append(dst, s...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21: // a point inside the digits
		dst = append(dst, s[:n]...)
		dst = append(dst, '.')
		dst = append(dst, s[n:]...)
	case -6 < n && n <= 0: // 0.000ddd
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, s...)
	default: // d[.ddd]e±x
		dst = append(dst, s[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, s[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
