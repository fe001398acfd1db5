package rank

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// A wordMemo analyses each distinct word of an index build once. In a description or
// the parameters (fields without pairs of words) the terms emitWord makes of a folded
// word depend on that word alone: the inverter's analyzer, told to (analyzer.memo), gives
// it the folded words as they are, and the memo gives each one the ids of its terms,
// looked up in the lexicon, stemmed and numbered at the word's first occurrence. The
// terms are numbered in the order the inverter would number them without the memo.
//
// The words are kept in an open-addressing table whose slots hold what a word met again
// needs: its length, its first 8 bytes and its terms' ids, so that finding it reads one
// slot (and, for a word of more than 8 bytes, the rest of its bytes).
type wordMemo struct {
	v     *inverter
	seed  uint64     // the hash's, random
	slots []memoSlot // a power of two of them, at most half full
	n     int        // the words held
	rest  []byte     // the bytes after the 8th of the words held, one after another
	ids   []uint32   // the ids of the entries of more than one term
	an    *analyzer  // analyses one word at a time, into the terms of its entry
	buf   []byte     // a copy of the word being analysed, which stemming rewrites

	// doc and field are those being analysed, found the number of their word terms
	// (termKind.isWord) so far; surface says whether the field keeps words as
	// written.
	doc, field, found int
	surface           bool
}

// A memoSlot is one word of the memo, and what emitWord makes of it: the ids of its
// word terms (its stem, or the words it abbreviates; none for a stop word),
// and of the word as written.
type memoSlot struct {
	head    uint64 // the word's first 8 bytes, zero padded (load)
	hash    uint32 // the low 32 bits of the word's hash
	size    uint8  // the word's length, at most maxTokenBytes; 0 for an empty slot
	differs bool   // the word as written is not its stem: fields keeping words as written add it
	nids    uint16 // the number of word terms (termKind.isWord)
	id      uint32 // the id of the one term, or where the nids ids are in wordMemo.ids
	surf    uint32 // the id of the word as written; noTerm until a field keeping it met it
	rest    uint32 // where the word's bytes after the 8th are in wordMemo.rest
}

// A memoSlot's size holds a word's length: this stops compiling if maxTokenBytes
// outgrows a uint8.
const _ = uint8(maxTokenBytes)

// memoSlots is the number of slots a memo starts with (32 KiB): enough for the words
// of the few docs an Update analyses.
const memoSlots = 1 << 10

func newWordMemo(v *inverter) *wordMemo {
	an := newAnalyzer(v.p.Off)
	an.surface = true // to learn whether a word as written differs from its stem
	m := &wordMemo{v: v, seed: rand.Uint64(), slots: make([]memoSlot, memoSlots), an: an}
	return m
}

// add analyses text, field f (without pairs of words) of doc i, with v's analyzer as
// set for that field, and counts each of its terms in the doc's field; it returns the
// number of words of the field (its word terms).
func (m *wordMemo) add(i, f int, text string) int {
	an := m.v.an
	m.doc, m.field, m.found, m.surface = i, f, 0, an.surface
	an.memo = m
	an.add(text)
	an.memo = nil
	return m.found
}

// addPieces is add for text held as pieces: each piece analysed where it is. The
// pieces are joined by spaces, which end every word, CJK run and camelCase part, and
// start a new segment of the NFKD decomposition: the text's terms are its pieces'.
func (m *wordMemo) addPieces(i, f int, p *Pieces) int {
	an := m.v.an
	m.doc, m.field, m.found, m.surface = i, f, 0, an.surface
	an.memo = m
	for k := 0; k+1 < len(p.Spans); k += 2 {
		if s, e := p.Spans[k], p.Spans[k+1]; s <= e && uint64(e) <= uint64(len(p.Src)) {
			an.add(p.Src[s:e])
		}
	}
	an.memo = nil
	return m.found
}

// count counts term, of kind kind, as the analyzer emits it.
func (m *wordMemo) count(term []byte, kind termKind) {
	if kind.isWord() {
		m.found++
	}
	m.v.count(m.doc, m.field, m.v.id(term))
}

// countWord counts the terms emitWord makes of the folded word w, from its entry.
func (m *wordMemo) countWord(w []byte) {
	head := load(w)
	m.countSlot(m.lookup(w, head, uint32(m.hash(w, head))))
}

// countSlot counts the terms of the word of slot s.
func (m *wordMemo) countSlot(s *memoSlot) {
	if s.nids == 1 && !(m.surface && s.differs) {
		m.found++
		m.v.count(m.doc, m.field, s.id)
		return
	}
	m.countTerms(s)
}

// countTerms is countSlot for a word of no term, of several or whose stem differs.
func (m *wordMemo) countTerms(s *memoSlot) {
	m.found += int(s.nids)
	switch s.nids {
	case 0:
	case 1:
		m.v.count(m.doc, m.field, s.id)
		// A word as written that differs from its stem: always one stem.
		if m.surface && s.differs {
			if s.surf == noTerm {
				s.surf = m.v.id(m.word(s))
			}
			m.v.count(m.doc, m.field, s.surf)
		}
	default:
		for _, id := range m.ids[s.id : s.id+uint32(s.nids)] {
			m.v.count(m.doc, m.field, id)
		}
	}
}

// word returns the word of slot s, in m.buf.
func (m *wordMemo) word(s *memoSlot) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], s.head)
	m.buf = append(m.buf[:0], b[:min(8, s.size)]...)
	if s.size > 8 {
		m.buf = append(m.buf, m.rest[s.rest:s.rest+uint32(s.size)-8]...)
	}
	return m.buf
}

// find returns the slot of the folded word w, analysing w when it is new. The pointer
// is valid until the next call.
func (m *wordMemo) find(w []byte) *memoSlot {
	head := load(w)
	return m.lookup(w, head, uint32(m.hash(w, head)))
}

// lookup returns the slot of the word of len(w) bytes whose first 8, folded and zero
// padded, are head, and whose others are w[8:] (w's first 8 bytes are not read); h is
// its hash. A new word is analysed. The pointer is valid until the next call.
func (m *wordMemo) lookup(w []byte, head uint64, h uint32) *memoSlot {
	mask := uint32(len(m.slots) - 1)
	i := h & mask
	for {
		s := &m.slots[i]
		if s.size == 0 {
			break
		}
		if s.hash == h && int(s.size) == len(w) && s.head == head &&
			(len(w) <= 8 || string(m.rest[s.rest:s.rest+uint32(len(w)-8)]) == string(w[8:])) {
			return s
		}
		i = (i + 1) & mask
	}
	s := &m.slots[i]
	s.head, s.size = head, uint8(len(w))
	if len(w) > 8 {
		s.rest = uint32(len(m.rest))
		m.rest = append(m.rest, w[8:]...)
	}
	m.analyse(s)
	s.hash = h
	m.n++
	if 2*m.n > len(m.slots) {
		m.grow()
		return m.lookup(w, head, h)
	}
	return s
}

// grow doubles the slots, placing each word again by the hash its slot kept.
func (m *wordMemo) grow() {
	slots := make([]memoSlot, 2*len(m.slots))
	mask := uint32(len(slots) - 1)
	for _, s := range m.slots {
		if s.size == 0 {
			continue
		}
		i := s.hash & mask
		for slots[i].size != 0 {
			i = (i + 1) & mask
		}
		slots[i] = s
	}
	m.slots = slots
}

// analyse fills the slot s of a word met for the first time, its head, size and rest
// set: the ids of its word terms, numbered through the inverter (the word as written
// is numbered when a field keeping it meets it, as the inverter would number it).
func (m *wordMemo) analyse(s *memoSlot) {
	v := m.v
	w := m.word(s)
	m.an.reset()
	m.an.emitWord(w)
	s.surf, s.differs = noTerm, false
	start := len(m.ids)
	for k := range m.an.n() {
		if m.an.kind[k] == termSurface {
			s.differs = true
			continue
		}
		m.ids = append(m.ids, v.id(m.an.term(k)))
	}
	switch n := len(m.ids) - start; n {
	case 1:
		s.nids, s.id = 1, m.ids[start]
		m.ids = m.ids[:start]
	default:
		s.nids, s.id = uint16(n), uint32(start)
	}
}

// hash hashes w, whose first 8 bytes are head: 8 bytes at a time, zero padded, each
// mixed into the seed by one multiplication (memoWords hashes the same way as it
// reads). The length is left out: no word has a zero byte, but in evaluations where
// only spaces split words, whose lookups compare lengths.
func (m *wordMemo) hash(w []byte, head uint64) uint64 {
	h := mix(m.seed ^ head)
	for w = w[min(8, len(w)):]; len(w) > 0; w = w[min(8, len(w)):] {
		h = mix(h ^ load(w))
	}
	return h
}

// mix mixes the bits of x: the two halves of its product with an odd constant, xored.
func mix(x uint64) uint64 {
	hi, lo := bits.Mul64(x, 0x9e3779b97f4a7c15)
	return hi ^ lo
}

// load returns the first 8 bytes of w, little-endian, zero padded.
func load(w []byte) uint64 {
	switch {
	case len(w) >= 8:
		return binary.LittleEndian.Uint64(w)
	case cap(w) >= 8:
		// The bytes past the end are w's array's: read, then masked out.
		return binary.LittleEndian.Uint64(w[:8]) & (1<<(8*len(w)) - 1)
	}
	var b [8]byte
	copy(b[:], w)
	return binary.LittleEndian.Uint64(b[:])
}
