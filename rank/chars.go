package rank

import (
	"encoding/binary"
	"sync"
	"unicode"
	"unicode/utf8"
)

// This file holds the classes of characters the analyzer splits words by.

// rune classes seen by the word splitter.
const (
	clsSep = iota
	clsLower
	clsUpper
	clsDigit
	clsCJK
	clsMark
)

// asciiClass is the class of each ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for b := range t {
		switch {
		case 'a' <= b && b <= 'z':
			t[b] = clsLower
		case 'A' <= b && b <= 'Z':
			t[b] = clsUpper
		case '0' <= b && b <= '9':
			t[b] = clsDigit
		}
	}
	return t
}()

// lowerOrDigit reports the bytes of a run addLowerRun reads: ASCII lower-case letters
// and digits.
var lowerOrDigit = func() (t [256]bool) {
	for b := range utf8.RuneSelf {
		t[b] = asciiClass[b] == clsLower || asciiClass[b] == clsDigit
	}
	return t
}()

// memoByte is what each byte is to memoWords: a separator that ends a word, an
// apostrophe (which may join one), an ASCII letter or digit, or another byte.
var memoByte = func() (t [256]uint8) {
	for b := range utf8.RuneSelf {
		switch {
		case b == '\'':
			t[b] = memoApostrophe
		case asciiClass[b] == clsSep:
			t[b] = memoSep
		default:
			t[b] = memoWord
		}
	}
	return t
}()

// The kinds of byte of memoByte.
const (
	memoOther = iota
	memoSep
	memoApostrophe
	memoWord
)

// classify returns the class of r for the word splitter.
func classify(r rune) int {
	if r < utf8.RuneSelf {
		return int(asciiClass[r])
	}
	if r < twoByteRunes {
		return int(twoByteClass()[r])
	}
	return classifyWide(r)
}

// twoByteRunes bounds the code points of two bytes in UTF-8 (Latin, Greek, Cyrillic,
// Armenian, Hebrew, Arabic...), whose classes twoByteClass holds: classifyWide, a few
// table searches each, took a quarter of the time of the search of 500 x U+FDFA (NFKD:
// 9,000 Arabic code points).
const twoByteRunes = 0x800

// twoByteClass returns the class of each code point below twoByteRunes (2 KiB, made
// at the first use).
var twoByteClass = sync.OnceValue(func() *[twoByteRunes]uint8 {
	var t [twoByteRunes]uint8
	for r := range rune(twoByteRunes) {
		t[r] = uint8(classifyWide(r))
	}
	return &t
})

// classifyWide is classify by Unicode's tables.
func classifyWide(r rune) int {
	if r < utf8.RuneSelf {
		return int(asciiClass[r])
	}
	switch {
	case unicode.Is(unicode.Mn, r):
		return clsMark
	case isCJK(r):
		return clsCJK
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return clsUpper
	case unicode.IsLetter(r):
		return clsLower
	case unicode.IsDigit(r):
		return clsDigit
	}
	return clsSep
}

// isCJK reports whether r belongs to a script written without spaces between words.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == 'ー' // katakana prolonged sound mark is Common script
}

// lowerAt reports whether the rune starting at src[i] is a lower-case letter.
func lowerAt(src []byte, i int) bool {
	if i >= len(src) {
		return false
	}
	if src[i] < utf8.RuneSelf {
		return asciiClass[src[i]] == clsLower
	}
	r, _ := utf8.DecodeRune(src[i:])
	return classify(r) == clsLower
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// isASCII reports whether b is all ASCII, eight bytes at a time, the last of them
// (or, in fewer than 8, the last four or three) read over the others: no loop byte
// by byte, whose exit mispredicts at each short text.
func isASCII(b []byte) bool {
	const high = 0x8080808080808080
	n := len(b)
	switch {
	case n >= 8:
		acc := binary.LittleEndian.Uint64(b[n-8:])
		for ; len(b) >= 32; b = b[32:] {
			acc |= binary.LittleEndian.Uint64(b) | binary.LittleEndian.Uint64(b[8:]) |
				binary.LittleEndian.Uint64(b[16:]) | binary.LittleEndian.Uint64(b[24:])
		}
		for ; len(b) >= 8; b = b[8:] {
			acc |= binary.LittleEndian.Uint64(b)
		}
		return acc&high == 0
	case n >= 4:
		return (binary.LittleEndian.Uint32(b)|binary.LittleEndian.Uint32(b[n-4:]))&0x80808080 == 0
	case n > 0:
		return (b[0]|b[n/2]|b[n-1])&utf8.RuneSelf == 0
	}
	return true
}
