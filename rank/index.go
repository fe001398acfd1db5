package rank

import (
	"math"
	"math/bits"
	"slices"
	"sort"
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
	n       int
	whole   bool     // whole names are indexed as terms
	surface float64  // query weight of words as written, 0 if only stems are indexed
	pair    float64  // query weight of pairs of words as written, 0 if none are indexed
	order   []uint32 // order[d] is the position of doc d when docs are sorted by Name

	terms map[string]uint32 // term -> term id
	// paramOnly[t] is the id of the list of docs holding term t in their parameters
	// alone, noTerm if there are none (or they are in t's list); nil if there is no list.
	// Apart, they are scored only when they can still change the best k: their
	// contribution is small, their lists long (id, name, page...).
	paramOnly []uint32
	off       []uint32   // postings of term t are docs[off[t]:off[t+1]]
	docs      []uint32   // doc ids, ascending within a term
	sat       []float32  // saturated, field-weighted term frequency of each posting
	maxSat    []float32  // maxSat[t] is the largest sat of term t
	dense     []denseSet // a bitset of the postings of common terms, nil for the others

	spare atomic.Pointer[scratch] // one scratch kept out of the pool, which a GC empties
	pool  sync.Pool               // of *scratch
}

// A denseSet is a posting list as a bitset with a rank directory: the posting of doc d is
// at position cum[d/64] + popcount of the bits below d in its word.
type denseSet struct {
	bits []uint64
	cum  []uint32
}

// scratch holds the per-search buffers, pooled so that a search allocates nothing that

// noTerm is a term id that no term has.
const noTerm = math.MaxUint32

// NewIndex builds the index. Doc i of docs is referred to as i in Sets and Hits.
// Names should be unique; ties in score are broken by Name in ascending byte order.
func NewIndex(docs []Doc) *Index {
	return newIndex(docs, defaultParams)
}

func newIndex(docs []Doc, p params) *Index {
	ix := &Index{
		n:       len(docs),
		order:   nameOrder(docs),
		terms:   make(map[string]uint32),
		whole:   p.Whole,
		surface: p.Surf,
		pair:    p.Pair,
	}
	ix.flatten(ix.invert(docs, p))
	n := ix.n
	ix.pool.New = func() any {
		an := newAnalyzer(p.Off)
		an.synonyms = true
		an.surface = p.Surf > 0
		an.pairs = p.Pair > 0
		return &scratch{an: an, acc: make([]int64, n)}
	}
	return ix
}

// nameOrder returns, for each doc, its position when docs are sorted by Name.
func nameOrder(docs []Doc) []uint32 {
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

// invert analyses docs and returns the postings of each term, indexed by term id, filling
// ix.terms and ix.paramOnly. The lists of docs holding a term in their parameters alone
// come after those of all terms.
func (ix *Index) invert(docs []Doc, p params) [][]posting {
	var lists [][]posting
	an := newAnalyzer(p.Off)
	an.surface = p.Surf > 0
	// tf[id] counts term id in the current doc's fields; stamp[id] is 1 + the last doc
	// that counted it, so the counts need no clearing between docs.
	var tf [][numFields]uint16
	var plists [][]posting // lists of docs holding a term in their parameters alone
	var paramOnly []uint32 // paramOnly[t] indexes plists, noTerm if t has no such list
	var stamp []int
	var seen []uint32
	for i, d := range docs {
		seen = seen[:0]
		var length [numFields]int
		for f, text := range [numFields]string{d.Name, d.Title, d.Description, d.Params} {
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
			an.add(text)
			length[f] = an.words()
			if f == fieldName && p.Whole {
				an.addWhole()
			}
			for k := 0; k < an.n(); k++ {
				t := an.term(k)
				id, ok := ix.terms[string(t)]
				if !ok {
					id = uint32(len(lists))
					ix.terms[string(t)] = id
					lists = append(lists, nil)
					tf = append(tf, [numFields]uint16{})
					stamp = append(stamp, 0)
				}
				if stamp[id] != i+1 {
					stamp[id] = i + 1
					tf[id] = [numFields]uint16{}
					seen = append(seen, id)
				}
				if tf[id][f] < math.MaxUint16 {
					tf[id][f]++
				}
			}
		}
		var norm [numFields]float64
		for f := range norm {
			norm[f] = 1 - p.B[f] + p.B[f]*float64(length[f])/p.Pivot[f]
		}
		for _, id := range seen {
			c := tf[id]
			e := posting{uint32(i), float32(p.saturation(c, norm))}
			if !p.Joined && c[fieldName] == 0 && c[fieldTitle] == 0 && c[fieldDesc] == 0 {
				for len(paramOnly) <= int(id) {
					paramOnly = append(paramOnly, noTerm)
				}
				if paramOnly[id] == noTerm {
					paramOnly[id] = uint32(len(plists))
					plists = append(plists, nil)
				}
				plists[paramOnly[id]] = append(plists[paramOnly[id]], e)
				continue
			}
			lists[id] = append(lists[id], e)
		}
	}
	if len(plists) > 0 {
		for len(paramOnly) < len(lists) {
			paramOnly = append(paramOnly, noTerm)
		}
		for t, j := range paramOnly {
			if j != noTerm {
				paramOnly[t] = uint32(len(lists)) + j
			}
		}
		lists = append(lists, plists...)
		ix.paramOnly = paramOnly
	}
	return lists
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

// flatten stores lists, the postings of each term, in the index's flat arrays, with a
// bitset for the terms that many docs hold.
func (ix *Index) flatten(lists [][]posting) {
	total := 0
	for _, l := range lists {
		total += len(l)
	}
	ix.off = make([]uint32, len(lists)+1)
	ix.docs = make([]uint32, 0, total)
	ix.sat = make([]float32, 0, total)
	ix.maxSat = make([]float32, len(lists))
	ix.dense = make([]denseSet, len(lists))
	words := (ix.n + 63) / 64
	for t, l := range lists {
		ix.off[t] = uint32(len(ix.docs))
		for _, e := range l {
			ix.docs = append(ix.docs, e.doc)
			ix.sat = append(ix.sat, e.sat)
			ix.maxSat[t] = max(ix.maxSat[t], e.sat)
		}
		// A bitset and its directory cost 12 bytes per 64 docs; they pay for themselves
		// in memory when the term's postings take more, and count allowed docs 64 at a time.
		if len(l)*8 > words*12 && len(l) >= 64 {
			ix.dense[t] = newDenseSet(l, words)
		}
	}
	ix.off[len(lists)] = uint32(len(ix.docs))
}

// newDenseSet returns the bitset of the docs of l, over words words.
func newDenseSet(l []posting, words int) denseSet {
	ds := denseSet{bits: make([]uint64, words), cum: make([]uint32, words)}
	for _, e := range l {
		ds.bits[e.doc>>6] |= 1 << (e.doc & 63)
	}
	sum := uint32(0)
	for w, x := range ds.bits {
		ds.cum[w] = sum
		sum += uint32(bits.OnesCount64(x))
	}
	return ds
}

// Len reports the number of docs in the index.
func (ix *Index) Len() int { return ix.n }

// lookup returns the saturation of term t in doc d, or 0 if d lacks t.
func (ix *Index) lookup(t, d uint32) float32 {
	lo, hi := ix.off[t], ix.off[t+1]
	if ds := ix.dense[t]; ds.bits != nil {
		w := d >> 6
		x := ds.bits[w]
		bit := uint64(1) << (d & 63)
		if x&bit == 0 {
			return 0
		}
		return ix.sat[lo+ds.cum[w]+uint32(bits.OnesCount64(x&(bit-1)))]
	}
	docs := ix.docs[lo:hi]
	i, ok := slices.BinarySearch(docs, d)
	if !ok {
		return 0
	}
	return ix.sat[int(lo)+i]
}

// Search appends to dst the docs of allowed that match query, best first, at most k of
// them, and returns the extended slice. Equal scores are ordered by Name, ascending byte
// order. Every scoring statistic is computed over the docs in allowed only, so a doc
// outside allowed never changes a result (SPEC DISC-5). A query none of whose words
// occur in an allowed doc yields no hits (DISC-6). k <= 0 means no limit.
//
