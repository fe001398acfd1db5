package rank

// A wordMemo analyses each distinct word of an index build once. In a description or
// the parameters (fields without pairs of words) the terms emitWord makes of a folded
// word depend on that word alone: the inverter's analyzer, told to (analyzer.raw), emits
// the folded words as they are, and the memo gives each one the ids of its terms,
// looked up in the lexicon, stemmed and numbered at the word's first occurrence. The
// terms are numbered in the order the inverter would number them without the memo.
type wordMemo struct {
	v     *inverter
	words *termTable // the distinct folded words met, numbered in order of first occurrence
	n     uint32     // the number of words in words
	at    []memoWord // at[w] is the entry of word w
	ids   []uint32   // the ids of the entries' terms, ids[at[w].start:at[w].end]
	an    *analyzer  // analyses one word at a time, into the terms of its entry
	buf   []byte     // a copy of the word being analysed, which stemming rewrites

	// take is count, the sink of v's analyzer in add; doc and field are those being
	// analysed, found the number of their terms of kind termWord so far.
	take              func(term []byte, kind termKind)
	doc, field, found int
}

// A memoWord is what emitWord makes of one folded word: the ids of its terms of kind
// termWord (its stem, or the words it abbreviates), and of the word as written.
type memoWord struct {
	start, end uint32
	surf       uint32 // the id of the word as written; noTerm until a field keeping it met it
	differs    bool   // the word as written is not its stem: fields keeping words as written add it
}

func newWordMemo(v *inverter) *wordMemo {
	an := newAnalyzer(v.p.Off)
	an.surface = true // to learn whether a word as written differs from its stem
	m := &wordMemo{v: v, words: newTermTable(), an: an}
	m.take = m.count
	return m
}

// add analyses text, field f (without pairs of words) of doc i, with v's analyzer as
// set for that field, and counts each of its terms in the doc's field; it returns the
// number of words of the field (its terms of kind termWord).
func (m *wordMemo) add(i, f int, text string) int {
	an := m.v.an
	m.doc, m.field, m.found = i, f, 0
	an.raw, an.sink = true, m.take
	an.add(text)
	an.raw, an.sink = false, nil
	return m.found
}

// count counts the terms of term, as the analyzer emits it: those of a folded word
// from its entry.
func (m *wordMemo) count(term []byte, kind termKind) {
	v := m.v
	if kind != termFolded {
		if kind == termWord {
			m.found++
		}
		v.count(m.doc, m.field, v.id(term))
		return
	}
	ids, surf := m.terms(term, v.an.surface)
	m.found += len(ids)
	for _, id := range ids {
		v.count(m.doc, m.field, id)
	}
	if surf != noTerm {
		v.count(m.doc, m.field, surf)
	}
}

// terms returns the ids of the terms of kind termWord that emitWord makes of the folded
// word w, and the id of w as written (noTerm when it is its stem or surface is false),
// numbering through the inverter the terms never met before. The slice aliases the memo.
func (m *wordMemo) terms(w []byte, surface bool) (ids []uint32, surf uint32) {
	v := m.v
	k := m.words.id(w, &m.n)
	if int(k) == len(m.at) {
		m.at = append(m.at, m.analyse(w))
	}
	e := &m.at[k]
	surf = noTerm
	if surface && e.differs {
		if e.surf == noTerm {
			e.surf = v.id(w)
		}
		surf = e.surf
	}
	return m.ids[e.start:e.end], surf
}

// analyse returns the entry of the folded word w, met for the first time, numbering its
// terms of kind termWord through the inverter (the word as written is numbered when a
// field keeping it meets it, as the inverter would number it).
func (m *wordMemo) analyse(w []byte) memoWord {
	v := m.v
	m.buf = append(m.buf[:0], w...)
	m.an.reset()
	m.an.emitWord(m.buf)
	e := memoWord{start: uint32(len(m.ids)), surf: noTerm}
	for k := range m.an.n() {
		if m.an.kind[k] == termSurface {
			e.differs = true
			continue
		}
		m.ids = append(m.ids, v.id(m.an.term(k)))
	}
	e.end = uint32(len(m.ids))
	return e
}
