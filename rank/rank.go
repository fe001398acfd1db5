package rank

import (
	"math"
	"math/bits"
	"slices"
	"sort"
	"sync"
)

// A Doc is the text of one tool that ranking sees.
type Doc struct {
	Name        string
	Title       string
	Description string
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
	numFields
)

// params are the scoring constants of BM25F with fixed length pivots.
type params struct {
	k1    float64            // term frequency saturation
	w     [numFields]float64 // field weights
	b     [numFields]float64 // length normalisation strength per field
	pivot [numFields]float64 // length (in terms) at which a field is neither favoured nor penalised
}

var defaultParams = params{
	k1:    1.2,
	w:     [numFields]float64{3, 2, 1},
	b:     [numFields]float64{0.5, 0.5, 0.75},
	pivot: [numFields]float64{3, 5, 30},
}

// Index is an immutable inverted index over a list of Docs, built once per catalog
// version. It is safe for concurrent use.
type Index struct {
	n     int
	names []string
	order []uint32 // order[d] is the position of doc d when docs are sorted by Name

	terms map[string]uint32 // term -> term id
	off   []uint32          // postings of term t are docs[off[t]:off[t+1]]
	docs  []uint32          // doc ids, ascending within a term
	sat   []float32         // saturated, field-weighted term frequency of each posting
	dense [][]uint64        // dense[t] is term t's postings as a bitset when the term is common, else nil

	pool sync.Pool // of *scratch
}

// scratch holds the per-search buffers, pooled so that a search allocates nothing that
// grows with the catalog.
type scratch struct {
	an      *analyzer
	qterms  []qterm
	acc     []float64 // score accumulator, indexed by doc; zero for untouched docs
	touched []uint32
	heap    []uint32
}

type qterm struct {
	id  uint32
	qtf int
	idf float64
}

// NewIndex builds the index. Doc i of docs is referred to as i in Sets and Hits.
// Names should be unique; ties in score are broken by Name in ascending byte order.
func NewIndex(docs []Doc) *Index {
	return newIndex(docs, defaultParams)
}

func newIndex(docs []Doc, p params) *Index {
	ix := &Index{
		n:     len(docs),
		names: make([]string, len(docs)),
		order: make([]uint32, len(docs)),
		terms: make(map[string]uint32),
	}
	byName := make([]uint32, len(docs))
	for i, d := range docs {
		ix.names[i] = d.Name
		byName[i] = uint32(i)
	}
	sort.SliceStable(byName, func(a, b int) bool { return ix.names[byName[a]] < ix.names[byName[b]] })
	for pos, d := range byName {
		ix.order[d] = uint32(pos)
	}

	// First pass: per doc, the field frequencies of each of its terms.
	type entry struct {
		doc uint32
		sat float32
	}
	var lists [][]entry
	an := newAnalyzer()
	var tf map[uint32]*[numFields]uint16
	tf = make(map[uint32]*[numFields]uint16)
	var seen []uint32
	for i, d := range docs {
		clear(tf)
		seen = seen[:0]
		var length [numFields]int
		for f, text := range [numFields]string{d.Name, d.Title, d.Description} {
			an.reset()
			an.add(text)
			length[f] = an.n()
			for k := 0; k < an.n(); k++ {
				t := an.term(k)
				id, ok := ix.terms[string(t)]
				if !ok {
					id = uint32(len(lists))
					ix.terms[string(t)] = id
					lists = append(lists, nil)
				}
				c := tf[id]
				if c == nil {
					c = new([numFields]uint16)
					tf[id] = c
					seen = append(seen, id)
				}
				if c[f] < math.MaxUint16 {
					c[f]++
				}
			}
		}
		var norm [numFields]float64
		for f := range norm {
			norm[f] = 1 - p.b[f] + p.b[f]*float64(length[f])/p.pivot[f]
		}
		for _, id := range seen {
			c := tf[id]
			x := 0.0
			for f := range numFields {
				x += p.w[f] * float64(c[f]) / norm[f]
			}
			s := x / (p.k1 + x)
			lists[id] = append(lists[id], entry{uint32(i), float32(s)})
		}
	}

	// Second pass: flatten the postings.
	total := 0
	for _, l := range lists {
		total += len(l)
	}
	ix.off = make([]uint32, len(lists)+1)
	ix.docs = make([]uint32, 0, total)
	ix.sat = make([]float32, 0, total)
	ix.dense = make([][]uint64, len(lists))
	words := (ix.n + 63) / 64
	for t, l := range lists {
		ix.off[t] = uint32(len(ix.docs))
		for _, e := range l {
			ix.docs = append(ix.docs, e.doc)
			ix.sat = append(ix.sat, e.sat)
		}
		// A bitset costs n/8 bytes; it pays for itself in memory when the postings it
		// summarises take more, and counts the allowed docs 64 at a time.
		if len(l)*4 > words*8 && len(l) >= 64 {
			bs := make([]uint64, words)
			for _, e := range l {
				bs[e.doc>>6] |= 1 << (e.doc & 63)
			}
			ix.dense[t] = bs
		}
	}
	ix.off[len(lists)] = uint32(len(ix.docs))
	n := ix.n
	ix.pool.New = func() any {
		return &scratch{an: newAnalyzer(), acc: make([]float64, n)}
	}
	return ix
}

// Len reports the number of docs in the index.
func (ix *Index) Len() int { return ix.n }

// Search appends to dst the docs of allowed that match query, best first, at most max of
// them, and returns the extended slice. Equal scores are ordered by Name, ascending byte
// order. Every scoring statistic is computed over the docs in allowed only, so a doc
// outside allowed never changes a result (SPEC DISC-5). A query none of whose words
// occur in an allowed doc yields no hits (DISC-6). max <= 0 means no limit.
func (ix *Index) Search(dst []Hit, query string, allowed Set, max int) []Hit {
	if ix.n == 0 {
		return dst
	}
	s := ix.pool.Get().(*scratch)
	defer ix.pool.Put(s)

	// The query's distinct known terms, in order of first appearance.
	s.an.reset()
	s.an.add(query)
	s.qterms = s.qterms[:0]
	for k := 0; k < s.an.n(); k++ {
		id, ok := ix.terms[string(s.an.term(k))]
		if !ok {
			continue
		}
		dup := false
		for j := range s.qterms {
			if s.qterms[j].id == id {
				s.qterms[j].qtf++
				dup = true
				break
			}
		}
		if !dup {
			s.qterms = append(s.qterms, qterm{id: id, qtf: 1})
		}
	}
	if len(s.qterms) == 0 {
		return dst
	}

	// Statistics over the allowed docs only (DISC-5).
	words := (ix.n + 63) / 64
	if len(allowed) > words {
		allowed = allowed[:words]
	}
	nAllowed := 0
	for w, x := range allowed {
		if w == words-1 && ix.n&63 != 0 {
			x &= 1<<(uint(ix.n)&63) - 1
		}
		nAllowed += bits.OnesCount64(x)
	}
	if nAllowed == 0 {
		return dst
	}
	N := float64(nAllowed)
	for j := range s.qterms {
		q := &s.qterms[j]
		df := 0
		if bs := ix.dense[q.id]; bs != nil {
			for w, x := range allowed {
				df += bits.OnesCount64(x & bs[w])
			}
		} else {
			for _, d := range ix.docs[ix.off[q.id]:ix.off[q.id+1]] {
				if w := d >> 6; int(w) < len(allowed) && allowed[w]&(1<<(d&63)) != 0 {
					df++
				}
			}
		}
		if df == 0 {
			q.idf = 0
			continue
		}
		q.idf = math.Log(1 + (N-float64(df)+0.5)/(float64(df)+0.5))
	}

	// Term-at-a-time accumulation, terms in query order so that every doc's score is the
	// same sum in the same order whatever else the catalog holds.
	acc := s.acc
	s.touched = s.touched[:0]
	for _, q := range s.qterms {
		if q.idf == 0 {
			continue
		}
		wt := q.idf * float64(q.qtf)
		lo, hi := ix.off[q.id], ix.off[q.id+1]
		docs, sat := ix.docs[lo:hi], ix.sat[lo:hi]
		for k, d := range docs {
			if w := d >> 6; int(w) >= len(allowed) || allowed[w]&(1<<(d&63)) == 0 {
				continue
			}
			if acc[d] == 0 {
				s.touched = append(s.touched, d)
			}
			acc[d] += wt * float64(sat[k])
		}
	}

	// Select the best max, ties by name.
	better := func(a, b uint32) bool {
		if acc[a] != acc[b] {
			return acc[a] > acc[b]
		}
		return ix.order[a] < ix.order[b]
	}
	top := s.touched
	if max > 0 && max < len(top) {
		h := s.heap[:0]
		for _, d := range s.touched {
			if len(h) < max {
				h = append(h, d)
				siftUp(h, len(h)-1, better)
			} else if better(d, h[0]) {
				h[0] = d
				siftDown(h, 0, better)
			}
		}
		s.heap = h
		top = h
	}
	slices.SortFunc(top, func(a, b uint32) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	for _, d := range top {
		dst = append(dst, Hit{Doc: int(d), Score: acc[d]})
	}
	for _, d := range s.touched {
		acc[d] = 0
	}
	return dst
}

// siftUp and siftDown maintain h as a heap whose root is the worst element by better.
func siftUp(h []uint32, i int, better func(a, b uint32) bool) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(h []uint32, i int, better func(a, b uint32) bool) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		worst := l
		if r := l + 1; r < len(h) && better(h[l], h[r]) {
			worst = r
		}
		if !better(h[i], h[worst]) {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
