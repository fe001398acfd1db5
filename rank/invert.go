package rank

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// This file holds the index build's inversion: each doc's analysis counted into
// postings, which wait in a compact stream until every list's length is known and are
// then placed into the index's flat arrays.

// A posting is a doc holding a term, and the term's saturated, field-weighted frequency
// in it.
type posting struct {
	doc uint32
	sat float32
}

// An inverter analyses docs one at a time into their postings, numbering the terms it
// meets: a term of base keeps its id there, another is added to terms with the next id.
type inverter struct {
	p     params
	an    *analyzer
	base  map[string]uint32 // read only; nil when building from scratch
	terms map[string]uint32 // the terms base lacks, numbered from next
	next  uint32
	// tf[id] counts term id in the fields of the last doc that counted it, so that
	// the counts need no clearing between docs.
	tf   []termCount
	seen []uint32
	// tab numbers the terms instead of terms when building from scratch; its terms
	// go to terms at the end (finish).
	tab  *termTable
	memo *wordMemo // the terms of each word of the descriptions and parameters
	join []byte    // the text of a doc's ParamPieces, joined
	sats [1 << satsBits]satMemo
}

func newInverter(p params, base, terms map[string]uint32) *inverter {
	v := &inverter{p: p, an: newAnalyzer(p.Off), base: base, terms: terms, next: uint32(len(base))}
	v.memo = newWordMemo(v)
	// Room for the terms of a few new docs (Update) beside base's: growing past it
	// copies both arrays.
	room := len(base) + len(base)/16
	v.tf = make([]termCount, len(base), room)
	v.an.surface = p.Surf > 0
	return v
}

// id returns the id of term t, numbering it if it is new (and making room for its
// count).
func (v *inverter) id(t []byte) uint32 {
	if v.tab != nil {
		id := v.tab.id(t, &v.next)
		if int(id) >= len(v.tf) {
			v.tf = growFill(v.tf, int(id)+1, termCount{})
		}
		return id
	}
	if id, ok := v.base[string(t)]; ok {
		return id
	}
	id, ok := v.terms[string(t)]
	if !ok {
		id = v.next
		v.next++
		v.terms[string(t)] = id
		for int(id) >= len(v.tf) {
			v.tf = append(v.tf, termCount{})
		}
	}
	return id
}

// A termCount counts a term in the fields of one doc: the counts and the doc, 1 + its
// number (0 for none), side by side to be read together.
type termCount struct {
	doc int32
	n   [numFields]uint16
}

// count counts term id, numbered by id, once more in field f of doc i.
func (v *inverter) count(i, f int, id uint32) {
	c := &v.tf[id]
	if c.doc != int32(i+1) {
		*c = termCount{doc: int32(i + 1)}
		v.seen = append(v.seen, id)
	}
	if c.n[f] < math.MaxUint16 {
		c.n[f]++
	}
}

// doc analyses d, doc i, and calls emit with each of its distinct terms in the order
// first met: the term's id, its posting, and whether d holds it in its parameters alone.
func (v *inverter) doc(i int, d Doc, emit func(id uint32, e posting, paramOnly bool)) {
	norm := v.analyse(i, d)
	for _, id := range v.seen {
		c := v.tf[id].n
		emit(id, posting{uint32(i), v.saturation(i, c, &norm)}, paramsOnly(c))
	}
}

// saturation returns p.saturation(c, *norm) for doc i, whose fields' normalisation
// norm is: from the last term of the doc counted c times in each field, if any, found
// by the counts (terms of a doc share them: a division less each).
func (v *inverter) saturation(i int, c [numFields]uint16, norm *[numFields]float64) float32 {
	key := uint64(c[0]) | uint64(c[1])<<16 | uint64(c[2])<<32 | uint64(c[3])<<48
	s := &v.sats[key*0x9e3779b97f4a7c15>>(64-satsBits)]
	if s.doc != uint32(i+1) || s.key != key {
		*s = satMemo{key: key, doc: uint32(i + 1), sat: float32(v.p.saturation(c, *norm))}
	}
	return s.sat
}

// A satMemo is the saturation of a doc's terms counted key (4 counts of 16 bits) in
// its fields, doc-1 the doc.
type satMemo struct {
	key uint64
	doc uint32
	sat float32
}

// satsBits sets the number of saturations an inverter keeps, 1<<satsBits.
const satsBits = 5

// paramsOnly reports whether the counts c of a term are in the parameters alone.
func paramsOnly(c [numFields]uint16) bool {
	return c[fieldName] == 0 && c[fieldTitle] == 0 && c[fieldDesc] == 0
}

// analyse analyses d, doc i, into v.seen, its distinct terms in the order first met,
// and their counts in v.tf, and returns the length normalisation of its fields.
func (v *inverter) analyse(i int, d Doc) (norm [numFields]float64) {
	p, an := &v.p, v.an
	v.seen = v.seen[:0]
	var length [numFields]int
	params := d.Params
	if d.ParamPieces != nil && v.memo == nil {
		// Joined in a buffer reused doc after doc: the analyser copies its text before
		// reading it and keeps none of it, so the string needs no bytes of its own.
		// (The memo reads the pieces where they are.)
		v.join = d.ParamPieces.appendText(v.join[:0])
		params = unsafe.String(unsafe.SliceData(v.join), len(v.join))
	}
	for f, text := range [numFields]string{d.Name, d.Title, d.Description, params} {
		if f == fieldParams && p.W[f] == 0 {
			continue // evaluations only: parameters not indexed
		}
		an.reset()
		// Pairs of words come from names and titles only, where word order names
		// the tool ("list pull requests"); in descriptions they cost memory for
		// nothing (see TUNING.md).
		an.pairs = p.Pair > 0 && f < fieldDesc
		// Parameters weigh a tenth of the description: their words as written
		// would weigh a hundredth, for a sixth of the index.
		an.surface = p.Surf > 0 && f != fieldParams
		if v.memo != nil && f >= fieldDesc {
			// Fields without pairs: each distinct word analysed once, by the memo.
			if f == fieldParams && d.ParamPieces != nil {
				length[f] = v.memo.addPieces(i, f, d.ParamPieces)
			} else {
				length[f] = v.memo.add(i, f, text)
			}
			continue
		}
		an.add(text)
		length[f] = an.words()
		if f == fieldName && p.Whole {
			an.addWhole()
		}
		for k := 0; k < an.n(); k++ {
			v.count(i, f, v.id(an.term(k)))
		}
	}
	for f := range norm {
		norm[f] = 1 - p.B[f] + p.B[f]*float64(length[f])/p.Pivot[f]
	}
	return norm
}

// invert analyses docs and stores the postings of each term, lists indexed by term id,
// with each list's largest saturation, filling ix.terms and ix.paramOnly: a list with a
// bitset (hasSummary) as a dense set, the others in the flat arrays. The lists of docs
// holding a term in their parameters alone come after those of all terms. The postings
// are gathered in doc order, in a compact stream (postingStream), and placed by a
// counting sort, which keeps doc order within each list.
func (ix *Index) invert(docs []Doc, p params) {
	var count []uint32 // count[l] is the length of list l (terms' lists, then the others')
	var pcount []uint32
	var paramOnly []uint32 // paramOnly[t] indexes the parameter-only lists, noTerm if none
	var ps postingStream
	ps.docs = make([]uint32, len(docs))
	v := newInverter(p, nil, nil)
	v.tab = newTermTable()
	for i, d := range docs {
		// v.doc, its emit inlined.
		norm := v.analyse(i, d)
		for _, id := range v.seen {
			c := v.tf[id].n
			e := posting{uint32(i), v.saturation(i, c, &norm)}
			if !p.Joined && paramsOnly(c) {
				if len(paramOnly) <= int(id) {
					paramOnly = growFill(paramOnly, int(id)+1, noTerm)
				}
				if paramOnly[id] == noTerm {
					paramOnly[id] = uint32(len(pcount))
					pcount = append(pcount, 0)
				}
				pcount[paramOnly[id]]++
				ps.add(e, paramOnly[id]<<1|1)
				continue
			}
			if int(id) >= len(count) {
				count = growFill(count, int(id)+1, 0)
			}
			count[id]++
			ps.add(e, id<<1)
		}
	}
	// Every term is held by the doc that numbered it: the terms' lists are v.next.
	terms := int(v.next)
	ix.terms = v.tab.finish()
	v.tab = nil
	v.tf = nil
	count = growFill(count, terms, 0)
	if len(pcount) > 0 {
		paramOnly = growFill(paramOnly, terms, noTerm)
		for t, j := range paramOnly {
			if j != noTerm {
				paramOnly[t] = uint32(terms) + j
			}
		}
		ix.paramOnly = paramOnly
	}
	count = append(count, pcount...)
	// A list with a bitset keeps its saturations in a slab of its own, in doc order;
	// the others', with their docs, go to the flat arrays.
	words := (ix.n + 63) / 64
	ix.denseOf = make([]uint32, len(count))
	ix.off = make([]uint32, len(count)+1)
	var slabs [][]float32 // of the lists with a bitset, in order
	for l, c := range count {
		ix.denseOf[l] = noTerm
		if hasSummary(int(c), words) {
			ix.denseOf[l] = uint32(len(slabs))
			slabs = append(slabs, make([]float32, c))
			c = 0
		}
		ix.off[l+1] = ix.off[l] + c
	}
	ix.dense = make([]denseSet, len(slabs))
	bitsAll, atAll := make([]uint64, len(slabs)*words), make([]uint32, len(slabs)*words)
	for i := range ix.dense {
		ds := &ix.dense[i]
		ds.bits, ds.at = bitsAll[i*words:(i+1)*words:(i+1)*words], atAll[i*words:(i+1)*words:(i+1)*words]
		ds.slabs[0], ds.nslabs, ds.n, ds.room = slabs[i], 1, uint32(len(slabs[i])), uint32(len(slabs[i]))
	}
	fill := count // reused: fill[l] is where list l's next posting goes
	for l := range fill {
		fill[l] = ix.off[l]
		if ix.denseOf[l] != noTerm {
			fill[l] = 0
		}
	}
	total := int(ix.off[len(count)])
	ix.docs = make([]uint32, total)
	ix.sat = make([]float32, total)
	ix.maxSat = make([]float32, len(count))
	ps.each(func(doc, key uint32, sat float32) {
		l := key >> 1
		if key&1 != 0 {
			l += uint32(terms)
		}
		at := fill[l]
		fill[l]++
		if i := ix.denseOf[l]; i != noTerm {
			ix.dense[i].slabs[0][at] = sat
			ix.dense[i].bits[doc>>6] |= 1 << (doc & 63)
		} else {
			ix.docs[at] = doc
			ix.sat[at] = sat
		}
		ix.maxSat[l] = max(ix.maxSat[l], sat)
	})
	for i := range ix.dense {
		ix.dense[i].number()
	}
}

// growFill returns s lengthened to n, the new elements x: its capacity at least
// doubled when it grows, so that growing one element at a time leaves less garbage
// than append's smaller steps for large slices.
func growFill[T any](s []T, n int, x T) []T {
	if n <= len(s) {
		return s
	}
	if n > cap(s) {
		t := make([]T, len(s), max(n, 2*cap(s), 64))
		copy(t, s)
		s = t
	}
	k := len(s)
	s = s[:n]
	for j := k; j < n; j++ {
		s[j] = x
	}
	return s
}

// A postingStream holds the postings of a build from scratch, doc after doc, until
// they are placed: each as a varint key (a list and a flag, as the inverter gives it)
// and a byte numbering its saturation among the doc's distinct ones, in chunks of
// postChunk bytes (no copy when growing). A saturation new to its doc is written out
// after satNew (4 bytes), and numbered after the doc's others while fewer than
// satTable. A posting takes 2 to 6 bytes (10 with a new saturation; 3.3 on average
// in the generated catalog) instead of the 12 of a doc, a list and a saturation.
type postingStream struct {
	chunks [][]byte
	cur    []byte
	docs   []uint32 // docs[i] is the number of postings of doc i
	// seen finds the number of a saturation in the current doc, by open addressing
	// on its bits: entries of other docs are empty.
	seen [512]satSlot
	n    int // the saturations numbered in the current doc
}

// A satSlot numbers saturation bits as k in doc doc-1.
type satSlot struct {
	bits, doc uint32
	k         uint8
}

const (
	postChunk = 1 << 16
	satTable  = 255 // the most saturations a doc numbers
	satNew    = 0xff
	maxPost   = binary.MaxVarintLen32 + 1 + 4
)

// add adds e, with key, to the stream: e.doc is the last doc added or a later one.
func (ps *postingStream) add(e posting, key uint32) {
	ps.docs[e.doc]++
	if ps.docs[e.doc] == 1 {
		ps.n = 0
	}
	if len(ps.cur)+maxPost > cap(ps.cur) {
		ps.flush()
		ps.cur = make([]byte, 0, postChunk)
	}
	b := binary.AppendUvarint(ps.cur, uint64(key))
	bits := math.Float32bits(e.sat)
	const mask = uint32(len(ps.seen) - 1)
	i := (bits * 0x9e3779b1) >> 23 & mask
	for {
		s := &ps.seen[i]
		if s.doc != e.doc+1 {
			if ps.n < satTable {
				*s = satSlot{bits: bits, doc: e.doc + 1, k: uint8(ps.n)}
				ps.n++
			}
			b = append(b, satNew)
			b = binary.LittleEndian.AppendUint32(b, bits)
			break
		}
		if s.bits == bits {
			b = append(b, s.k)
			break
		}
		i = (i + 1) & mask
	}
	ps.cur = b
}

// flush moves the chunk being written to the others.
func (ps *postingStream) flush() {
	if len(ps.cur) > 0 {
		ps.chunks = append(ps.chunks, ps.cur)
	}
	ps.cur = nil
}

// each calls f with each posting in the order added, letting the GC take back each
// chunk once read.
func (ps *postingStream) each(f func(doc, key uint32, sat float32)) {
	ps.flush()
	c, pos := 0, 0
	var b []byte
	if len(ps.chunks) > 0 {
		b = ps.chunks[0]
	}
	var tab [satTable]float32
	for d, n := range ps.docs {
		k := 0 // the saturations of doc d numbered
		for range n {
			if pos == len(b) {
				ps.chunks[c] = nil
				c++
				b, pos = ps.chunks[c], 0
			}
			var key uint32
			if x := b[pos]; x < 0x80 {
				key = uint32(x)
				pos++
			} else {
				x, w := binary.Uvarint(b[pos:])
				key = uint32(x)
				pos += w
			}
			var sat float32
			if j := b[pos]; j != satNew {
				sat = tab[j]
				pos++
			} else {
				sat = math.Float32frombits(binary.LittleEndian.Uint32(b[pos+1:]))
				pos += 5
				if k < satTable {
					tab[k] = sat
					k++
				}
			}
			f(uint32(d), key, sat)
		}
	}
	ps.chunks = nil
}
