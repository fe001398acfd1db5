package rank

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A Doc is the text of one tool that ranking sees.
type Doc struct {
	Name        string
	Title       string
	Description string
	// Params is the text of the tool's parameters, weighed a tenth of the description:
	// ParamText of its input schema, or "".
	Params string
	// ParamPieces, when not nil, is the text of the tool's parameters instead of Params
	// (which is then not read): a caller holding the text as pieces of a larger string
	// hands it over without joining it into a string of its own.
	ParamPieces *Pieces
}

// Pieces is a text held as pieces of one string: Src[Spans[0]:Spans[1]],
// Src[Spans[2]:Spans[3]], and so on, joined by single spaces.
type Pieces struct {
	Src   string
	Spans []uint32
}

// appendText appends the text of p to dst.
func (p *Pieces) appendText(dst []byte) []byte {
	for k := 0; k+1 < len(p.Spans); k += 2 {
		if k > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, p.Src[p.Spans[k]:p.Spans[k+1]]...)
	}
	return dst
}

// paramText returns the text of d's parameters.
func (d *Doc) paramText() string {
	if d.ParamPieces == nil {
		return d.Params
	}
	return string(d.ParamPieces.appendText(nil))
}

// A Hit is one ranked document: its index in the slice given to NewIndex, and its score.
type Hit struct {
	Doc   int
	Score float64
}

// The fields of a Doc, in the order of params' arrays.
const (
	fieldName = iota
	fieldTitle
	fieldDesc
	fieldParams
	numFields
)

// params are the scoring constants of BM25F with fixed length pivots.
type params struct {
	K1    float64            // term frequency saturation
	W     [numFields]float64 // field weights
	B     [numFields]float64 // length normalisation strength per field
	Pivot [numFields]float64 // length (in terms) at which a field is neither favoured nor penalised
	Off   feature            // analysis features turned off (evaluations only)
	Whole bool               // index each whole name as one more term of the name
	Surf  float64            // query weight of words as written; 0 indexes stems only
	Pair  float64            // query weight of pairs of words as written; 0 indexes none
	// Joined keeps the postings of a term in its parameters alone in the term's list,
	// instead of a list of their own (evaluations only: the scores are the same).
	Joined bool
}

var defaultParams = params{
	K1:    1.2,
	W:     [numFields]float64{3, 2, 1, 0.1},
	B:     [numFields]float64{0.5, 0.5, 0.75, 0.75},
	Pivot: [numFields]float64{3, 5, 30, 30},
	Whole: true,
	Surf:  0.1,
	Pair:  0.5,
}

// Index is an immutable inverted index over a list of Docs, built once per catalog
// version. It is safe for concurrent use.
type Index struct {
	n     int
	p     params   // the constants it was built with (Whole, Surf and Pair read by queries)
	order []uint32 // order[d] is the position of doc d when docs are sorted by Name

	terms map[string]uint32 // term -> term id
	// paramOnly[t] is the id of the list of docs holding term t in their parameters
	// alone, noTerm if there are none (or they are in t's list); nil if there is no list.
	// Apart, they are scored only when they can still change the best k: their
	// contribution is small, their lists long (id, name, page...).
	paramOnly []uint32
	// The postings of list t are, when denseOf[t] is noTerm, docs[off[t]:off[t+1]] and
	// their saturations; else dense[denseOf[t]], and off[t] == off[t+1].
	off     []uint32
	docs    []uint32   // doc ids, ascending within a list
	sat     []float32  // saturated, field-weighted term frequency of each posting
	maxSat  []float32  // maxSat[t] is the largest sat of list t
	denseOf []uint32   // the dense set of list t, noTerm for none
	dense   []denseSet // the lists of common terms, as bitsets

	spare atomic.Pointer[scratch] // one scratch kept out of the pool, which a GC empties
	pool  sync.Pool               // of *scratch
}

// A denseSet is a posting list as a bitset, the saturations of the postings of each word
// of it together in one of a few slabs: the posting of doc d is at position popcount of
// the bits below d in its word of word(d/64). Versions of an index share the slabs, and
// the words of them, that an Update leaves as they were (updateDense); nothing that an
// index holds is written once it is built.
type denseSet struct {
	bits []uint64
	// at[w] is the slab of word w's postings (its top slabBits bits) and the position
	// of the first of them in it.
	at []uint32
	// slabs[:nslabs] are the slabs, held in the set itself: word reads no slice of them.
	slabs  [maxSlabs][]float32
	nslabs uint32
	n      uint32 // postings
	room   uint32 // the length of the slabs: n plus the postings no word refers to
}

// The layout of denseSet.at: a slab number, then a position in the slab. A list has
// fewer postings than the index has docs, fewer than 1<<slabAt when it has a
// denseSet (hasSummary).
const (
	slabBits = 4
	slabAt   = 32 - slabBits
	maxSlabs = 1 << slabBits
	atMask   = 1<<slabAt - 1
)

// word returns the saturations of the postings of word w of ds, from the first on.
func (ds *denseSet) word(w uint32) []float32 {
	r := ds.at[w]
	return ds.slabs[r>>slabAt][r&atMask:]
}

// denseSet returns the dense set of list t, or nil when it has none.
func (ix *Index) denseSet(t uint32) *denseSet {
	if i := ix.denseOf[t]; i != noTerm {
		return &ix.dense[i]
	}
	return nil
}

// noTerm is a term id that no term has.
const noTerm = math.MaxUint32

// NewIndex builds the index. Doc i of docs is referred to as i in Sets and Hits.
// Names should be unique; ties in score are broken by Name in ascending byte order.
func NewIndex(docs []Doc) *Index {
	return newIndex(docs, defaultParams)
}

func newIndex(docs []Doc, p params) *Index {
	ix := &Index{
		n:     len(docs),
		p:     p,
		order: nameOrder(docs),
	}
	ix.invert(docs, p)
	ix.initPool()
	return ix
}

// initPool makes the pool of per-search scratch.
func (ix *Index) initPool() {
	n, p := ix.n, ix.p
	ix.pool.New = func() any {
		an := newAnalyzer(p.Off)
		an.synonyms = true
		an.surface = p.Surf > 0
		an.pairs = p.Pair > 0
		return &scratch{an: an, acc: make([]int64, n)}
	}
}

// nameOrder returns, for each doc, its position when docs are sorted by Name.
func nameOrder(docs []Doc) []uint32 {
	if slices.IsSortedFunc(docs, func(a, b Doc) int { return strings.Compare(a.Name, b.Name) }) {
		order := make([]uint32, len(docs))
		for i := range order {
			order[i] = uint32(i)
		}
		return order
	}
	byName := make([]uint32, len(docs))
	for i := range docs {
		byName[i] = uint32(i)
	}
	sort.SliceStable(byName, func(a, b int) bool { return docs[byName[a]].Name < docs[byName[b]].Name })
	order := make([]uint32, len(docs))
	for pos, d := range byName {
		order[d] = uint32(pos)
	}
	return order
}

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

// id returns the id of term t, numbering it if it is new.
func (v *inverter) id(t []byte) uint32 {
	if v.tab != nil {
		return v.tab.id(t, &v.next)
	}
	if id, ok := v.base[string(t)]; ok {
		return id
	}
	id, ok := v.terms[string(t)]
	if !ok {
		id = v.next
		v.next++
		v.terms[string(t)] = id
	}
	return id
}

// A termCount counts a term in the fields of one doc: the counts and the doc, 1 + its
// number (0 for none), side by side to be read together.
type termCount struct {
	doc int32
	n   [numFields]uint16
}

// count counts term id once more in field f of doc i.
func (v *inverter) count(i, f int, id uint32) {
	if int(id) >= len(v.tf) {
		if v.tab != nil {
			v.tf = growFill(v.tf, int(id)+1, termCount{})
		} else {
			for int(id) >= len(v.tf) {
				v.tf = append(v.tf, termCount{})
			}
		}
	}
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
	p, an := &v.p, v.an
	v.seen = v.seen[:0]
	var length [numFields]int
	params := d.Params
	if d.ParamPieces != nil {
		// Joined in a buffer reused doc after doc: the analyser copies its text before
		// reading it and keeps none of it, so the string needs no bytes of its own.
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
			length[f] = v.memo.add(i, f, text)
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
	var norm [numFields]float64
	for f := range norm {
		norm[f] = 1 - p.B[f] + p.B[f]*float64(length[f])/p.Pivot[f]
	}
	for _, id := range v.seen {
		c := v.tf[id].n
		only := c[fieldName] == 0 && c[fieldTitle] == 0 && c[fieldDesc] == 0
		emit(id, posting{uint32(i), float32(p.saturation(c, norm))}, only)
	}
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
	emit := func(id uint32, e posting, only bool) {
		if !p.Joined && only {
			if len(paramOnly) <= int(id) {
				paramOnly = growFill(paramOnly, int(id)+1, noTerm)
			}
			if paramOnly[id] == noTerm {
				paramOnly[id] = uint32(len(pcount))
				pcount = append(pcount, 0)
			}
			pcount[paramOnly[id]]++
			ps.add(e, paramOnly[id]<<1|1)
			return
		}
		if int(id) >= len(count) {
			count = growFill(count, int(id)+1, 0)
		}
		count[id]++
		ps.add(e, id<<1)
	}
	for i, d := range docs {
		v.doc(i, d, emit)
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

// saturation is the BM25F weight of a term counted tf times in the fields of a doc whose
// fields' length normalisations are norm: the field-weighted frequency, saturated.
func (p *params) saturation(tf [numFields]uint16, norm [numFields]float64) float64 {
	x := 0.0
	for f := range numFields {
		if tf[f] > 0 {
			x += p.W[f] * float64(tf[f]) / norm[f]
		}
	}
	return x / (p.K1 + x)
}

// hasSummary reports whether a list of l docs over words words has a bitset.
func hasSummary(l, words int) bool {
	// A bitset and its slab positions cost 12 bytes per 64 docs, and take the place
	// of 4 bytes of doc id per posting; they count allowed docs 64 at a time. A list
	// of 1<<slabAt postings or more cannot have one.
	return l*8 > words*12 && l >= 64 && l < 1<<slabAt
}

// newDenseSet returns the dense set of the postings docs, sat, over words words: one
// slab of its own.
func newDenseSet(docs []uint32, sat []float32, words int) denseSet {
	ds := denseSet{
		bits:   make([]uint64, words),
		at:     make([]uint32, words),
		nslabs: 1,
		n:      uint32(len(docs)),
		room:   uint32(len(docs)),
	}
	ds.slabs[0] = slices.Clone(sat)
	for _, d := range docs {
		ds.bits[d>>6] |= 1 << (d & 63)
	}
	ds.number()
	return ds
}

// number points every word of ds at slab 0, their postings one after another in doc
// order from its start.
func (ds *denseSet) number() {
	sum := uint32(0)
	for w, x := range ds.bits {
		ds.at[w] = sum
		sum += uint32(bits.OnesCount64(x))
	}
}

// Len reports the number of docs in the index.
func (ix *Index) Len() int { return ix.n }

// lookup returns the saturation of term t in doc d, or 0 if d lacks t.
func (ix *Index) lookup(t, d uint32) float32 {
	if ds := ix.denseSet(t); ds != nil {
		w := d >> 6
		x := ds.bits[w]
		bit := uint64(1) << (d & 63)
		if x&bit == 0 {
			return 0
		}
		return ds.word(w)[bits.OnesCount64(x&(bit-1))]
	}
	lo, hi := ix.off[t], ix.off[t+1]
	docs := ix.docs[lo:hi]
	i, ok := slices.BinarySearch(docs, d)
	if !ok {
		return 0
	}
	return ix.sat[int(lo)+i]
}

// A termTable numbers the terms of a build from scratch, faster than a map of strings:
// their bytes one after another in one buffer, found by open addressing on their hash.
type termTable struct {
	seed maphash.Seed
	// slots[i] is 0 when empty, else the low 32 bits of its term's hash above the
	// term's id + 1.
	slots []uint64
	// text holds the terms' bytes, term id ending at ends[id]: the map's keys are
	// slices of its string, which writing more leaves as they are.
	text strings.Builder
	ends []uint32
}

func newTermTable() *termTable {
	return &termTable{seed: maphash.MakeSeed(), slots: make([]uint64, 1<<12)}
}

// term returns term id.
func (tt *termTable) term(id uint32) string {
	start := uint32(0)
	if id > 0 {
		start = tt.ends[id-1]
	}
	return tt.text.String()[start:tt.ends[id]]
}

// id returns the id of t, numbering it *next (and incrementing *next) if it is new.
func (tt *termTable) id(t []byte, next *uint32) uint32 {
	h := uint32(maphash.Bytes(tt.seed, t))
	mask := uint32(len(tt.slots) - 1)
	i := h & mask
	for {
		s := tt.slots[i]
		if s == 0 {
			break
		}
		if uint32(s>>32) == h {
			if id := uint32(s) - 1; tt.term(id) == string(t) {
				return id
			}
		}
		i = (i + 1) & mask
	}
	id := *next
	*next++
	if tt.text.Cap()-tt.text.Len() < len(t) {
		tt.text.Grow(len(t)) // doubles the buffer: Write grows large ones by a quarter
	}
	tt.text.Write(t)
	if len(tt.ends) == cap(tt.ends) {
		tt.ends = slices.Grow(tt.ends, len(tt.ends)+64) // doubled, as text
	}
	tt.ends = append(tt.ends, uint32(tt.text.Len()))
	tt.slots[i] = uint64(h)<<32 | uint64(id+1)
	if 2*len(tt.ends) > len(tt.slots) {
		tt.grow()
	}
	return id
}

// grow doubles the slots, placing each term again by the hash bits its slot kept.
func (tt *termTable) grow() {
	slots := make([]uint64, 2*len(tt.slots))
	mask := uint32(len(slots) - 1)
	for _, s := range tt.slots {
		if s == 0 {
			continue
		}
		i := uint32(s>>32) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = s
	}
	tt.slots = slots
}

// finish returns the map of the terms to their ids: its keys share one string.
func (tt *termTable) finish() map[string]uint32 {
	m := make(map[string]uint32, len(tt.ends))
	text := tt.text.String()
	start := uint32(0)
	for id, end := range tt.ends {
		m[text[start:end]] = uint32(id)
		start = end
	}
	return m
}
