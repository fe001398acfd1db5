package rank

import (
	"cmp"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
// Src[Spans[2]:Spans[3]], and so on, joined by single spaces. A pair that is no
// range of Src (its start after its end, or its end past Src) is no piece, and a last
// odd span is ignored.
type Pieces struct {
	Src   string
	Spans []uint32
}

// appendText appends the text of p to dst.
func (p *Pieces) appendText(dst []byte) []byte {
	first := true
	for k := 0; k+1 < len(p.Spans); k += 2 {
		i, j := p.Spans[k], p.Spans[k+1]
		if i > j || uint64(j) > uint64(len(p.Src)) {
			continue // not a range of Src: never a panic inside NewIndex
		}
		if !first {
			dst = append(dst, ' ')
		}
		first = false
		dst = append(dst, p.Src[i:j]...)
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
// version. It is safe for concurrent use. The zero value is an empty index (Update of
// it builds as NewIndex); a nil *Index is not one.
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
	// Sorted with their docs' numbers, which break ties: the order of a stable sort,
	// without reading a Doc at each comparison.
	type named struct {
		name string
		doc  uint32
	}
	byName := make([]named, len(docs))
	for i := range docs {
		byName[i] = named{docs[i].Name, uint32(i)}
	}
	slices.SortFunc(byName, func(a, b named) int {
		return cmp.Or(strings.Compare(a.name, b.name), cmp.Compare(a.doc, b.doc))
	})
	order := make([]uint32, len(docs))
	for pos, d := range byName {
		order[d.doc] = uint32(pos)
	}
	return order
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
