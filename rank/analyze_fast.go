package rank

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// addLowerRun reads the run of ASCII lower-case letters and digits at src[i] at once,
// as add would one byte at a time (such a run splits nowhere), and returns where it
// ends. A run that is a whole word, already folded, is emitted from src, as flushWord and
// flushWhole would after copying it; then, when the separator ending it is followed by
// another run, that run is read too (add would step over the separator, as no word is
// pending), and so on.
func (a *analyzer) addLowerRun(src []byte, i int) int {
	for {
		j := i + 1
		for j+8 <= len(src) {
			n := lowerRunLen(binary.LittleEndian.Uint64(src[j:]))
			j += n
			if n < 8 {
				break
			}
		}
		for j < len(src) && lowerOrDigit[src[j]] {
			j++
		}
		if len(a.word) > 0 || len(a.whole) > 0 || !a.endsWord(src, j) {
			a.word = append(a.word, src[i:j]...)
			a.whole = append(a.whole, src[i:j]...)
			return j
		}
		w := src[i:j]
		if len(w) > maxTokenBytes {
			w = w[:maxTokenBytes]
		}
		a.emitWord(w)
		if j+1 >= len(src) || !lowerOrDigit[src[j+1]] {
			return j
		}
		i = j + 1
	}
}

// memoWords reads, for the memo, the words at src[i] (an ASCII letter or digit, no word
// pending, words split at every separator) that are ASCII, an optional upper-case letter
// followed by lower-case letters and digits, each ended by a separator other than an
// apostrophe or by the end of src, and the separators after them. It counts their
// terms as add would (such a word splits nowhere, folds to its bytes with the first
// one lowered, and makes no whole-word term) and returns where it stopped: i when the
// word at i is not one of them. Each word is hashed by the 8-byte reads that find its
// end.
func (a *analyzer) memoWords(src []byte, i int) int {
	m := a.memo
words:
	for {
		var x uint64
		if i+8 <= len(src) {
			x = binary.LittleEndian.Uint64(src[i:])
		} else {
			x = load(src[i:])
		}
		// Lowered, an upper-case letter is lower case; a lower-case letter or a digit
		// is itself: the 0x20 bit is set in each.
		x |= 0x20
		n := lowerRunLen(x) // 1 or more
		j := i + n
		// end is the byte after the word, zero (a separator) past the end of src.
		end := byte(x >> (8 * n))
		// The word's first 8 bytes (all of x when n is 8: no branch, whose outcome the
		// lengths of words make unpredictable), and its last 8 after them.
		head, tail := x&(1<<(8*n)-1), uint64(0)
		h := mix(m.seed ^ head)
		for n == 8 {
			var y uint64
			if j+8 <= len(src) {
				y = binary.LittleEndian.Uint64(src[j:])
			} else {
				y = load(src[j:])
			}
			k := lowerRunLen(y)
			if k < 8 {
				end = byte(y >> (8 * k))
				if k == 0 {
					break
				}
				y &= 1<<(8*k) - 1
			}
			h = mix(h ^ y)
			j += k
			tail = y
			if k < 8 {
				break
			}
		}
		if memoByte[end] != memoSep {
			return i // the word goes on: add reads it
		}
		switch size := j - i; {
		case size < 2: // no word (emitWord)
		case size <= 16:
			// countSlot's common cases inlined (a stop word, one term, one term and
			// the word as written), and lookup's for a word in its first slot: a slot
			// of size bytes holding head and tail is the word's (no word has a zero
			// byte).
			s := &m.slots[uint32(h)&uint32(len(m.slots)-1)]
			if s.head != head || int(s.size) != size ||
				size > 8 && load(m.rest[s.rest:s.rest+uint32(size-8)]) != tail {
				s = m.lookup(src[i:j], head, uint32(h))
			}
			if s.nids > 1 || m.surface && s.differs && s.surf == noTerm {
				m.countSlot(s)
				break
			}
			if s.nids == 1 {
				m.found++
				m.v.count(m.doc, m.field, s.id)
				if m.surface && s.differs {
					m.v.count(m.doc, m.field, s.surf)
				}
			}
		case size <= maxTokenBytes:
			m.countSlot(m.lookup(src[i:j], head, uint32(h)))
		default:
			a.word = append(a.word[:0], src[i:i+maxTokenBytes]...)
			a.word[0] |= 0x20
			m.countWord(a.word)
			a.word = a.word[:0]
		}
		// The separators after the word, then the next word.
		for j++; j < len(src); j++ {
			switch memoByte[src[j]] {
			case memoWord:
				i = j
				continue words
			case memoOther:
				return j
			}
		}
		return len(src)
	}
}

// lowerRunLen returns how many of the 8 bytes of x, little-endian, are ASCII lower-case
// letters or digits before the first that is not; 8 when all are. A word's length is
// unpredictable: a loop ending at it a byte at a time mispredicts its last branch.
func lowerRunLen(x uint64) int {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	// Each byte's low 7 bits plus a constant below 0x81: no carry into the next byte,
	// and the high bit set where the byte is at least the bound.
	y := x &^ high
	geA, gtZ := y+(0x80-'a')*ones, y+(0x80-'z'-1)*ones
	ge0, gt9 := y+(0x80-'0')*ones, y+(0x80-'9'-1)*ones
	in := (geA&^gtZ | ge0&^gt9) &^ x & high
	return bits.TrailingZeros64(^in&high) / 8
}

// endsWord reports whether the word being read ends before src[j], the way add ends it:
// at the end of the text, or at an ASCII separator other than an apostrophe (which may
// join a word), only white space when words split nowhere else.
func (a *analyzer) endsWord(src []byte, j int) bool {
	if j == len(src) {
		return true
	}
	c := src[j]
	if c >= utf8.RuneSelf || asciiClass[c] != clsSep || c == '\'' {
		return false
	}
	return a.off&featSplit == 0 || c == ' ' || c == '\n' || c == '\t'
}
