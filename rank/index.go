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
// grows with the catalog.
type scratch struct {
	an      *analyzer
	qterms  []qterm
	ordered []qterm  // qterms in the order they are scored
	ids     []uint32 // ids[i] is the id of query term i, noTerm when the index lacks it
	acc     []int64  // score accumulator in fixed point, indexed by doc; zero for untouched docs
	touched []uint32
	cands   []uint32
	sel     []int64
}

type qterm struct {
	id  uint32
	qtf float64 // weight of the term in the query: 1 per occurrence, less for a synonym
	wt  float64 // idf times query term frequency, times scoreScale
	ub  int64   // the largest contribution the term can make to a doc
	// only is set for a word as written or a pair: every doc holding it holds a stem, a term
	// of the query too, so it only adds to docs already found.
	only bool
	// need is, for a term with only set, the id of the stem every doc holding it holds;
	// noTerm when unknown.
	need uint32
	pair bool // a pair of words: scored right after the stem it needs
	// partner is the id of the other list of the same term (docs holding it in their
	// parameters alone, or the others), noTerm if none: the two share one df.
	partner uint32
	df      int  // documents of allowed in this list
	param   bool // the list of docs holding the term in their parameters alone
	early   bool // scored right after the term it needs
}

// noTerm is a term id that no term has.
const noTerm = math.MaxUint32

// maxQueryTerms and maxQueryTF bound what a query can weigh, so that fixed-point scores
// never overflow whatever the query's length: beyond them, words are ignored.
const (
	maxQueryTerms = 256
	maxQueryTF    = 16
)

// scoreScale is the fixed-point scale of accumulated scores. Contributions are rounded
// to integers once, so a doc's score is the same whatever order its terms are summed in,
// and equal scores are exactly equal.
const scoreScale = 1 << 32

// contribution is the fixed-point score a term of weight wt, already multiplied by
// scoreScale, adds to a posting of saturation sat. It is monotone in sat and at least 1.
// Scaling by a power of two is exact, so where it happens does not change the result.
func contribution(wt float64, sat float32) int64 {
	c := int64(wt*float64(sat) + 0.5)
	if c < 1 {
		c = 1
	}
	return c
}

// NewIndex builds the index. Doc i of docs is referred to as i in Sets and Hits.
// Names should be unique; ties in score are broken by Name in ascending byte order.
func NewIndex(docs []Doc) *Index {
	return newIndex(docs, defaultParams)
}

func newIndex(docs []Doc, p params) *Index {
	ix := &Index{
		n:       len(docs),
		order:   make([]uint32, len(docs)),
		terms:   make(map[string]uint32),
		whole:   p.Whole,
		surface: p.Surf,
		pair:    p.Pair,
	}
	byName := make([]uint32, len(docs))
	for i := range docs {
		byName[i] = uint32(i)
	}
	sort.SliceStable(byName, func(a, b int) bool { return docs[byName[a]].Name < docs[byName[b]].Name })
	for pos, d := range byName {
		ix.order[d] = uint32(pos)
	}

	// First pass: per doc, the field frequencies of each of its terms.
	type entry struct {
		doc uint32
		sat float32
	}
	var lists [][]entry
	an := newAnalyzer(p.Off)
	an.surface = p.Surf > 0
	// tf[id] counts term id in the current doc's fields; stamp[id] is 1 + the last doc
	// that counted it, so the counts need no clearing between docs.
	var tf [][numFields]uint16
	var plists [][]entry   // lists of docs holding a term in their parameters alone
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
			// nothing (see the package doc).
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
			x := 0.0
			for f := range numFields {
				if c[f] > 0 {
					x += p.W[f] * float64(c[f]) / norm[f]
				}
			}
			s := x / (p.K1 + x)
			if !p.Joined && c[fieldName] == 0 && c[fieldTitle] == 0 && c[fieldDesc] == 0 {
				for len(paramOnly) <= int(id) {
					paramOnly = append(paramOnly, noTerm)
				}
				if paramOnly[id] == noTerm {
					paramOnly[id] = uint32(len(plists))
					plists = append(plists, nil)
				}
				plists[paramOnly[id]] = append(plists[paramOnly[id]], entry{uint32(i), float32(s)})
				continue
			}
			lists[id] = append(lists[id], entry{uint32(i), float32(s)})
		}
	}
	// The lists of docs holding a term in their parameters alone come after all terms.
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

	// Second pass: flatten the postings.
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
			ds := denseSet{bits: make([]uint64, words), cum: make([]uint32, words)}
			for _, e := range l {
				ds.bits[e.doc>>6] |= 1 << (e.doc & 63)
			}
			sum := uint32(0)
			for w, x := range ds.bits {
				ds.cum[w] = sum
				sum += uint32(bits.OnesCount64(x))
			}
			ix.dense[t] = ds
		}
	}
	ix.off[len(lists)] = uint32(len(ix.docs))
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

// addTerm adds q to the query's terms, or its weight to the same term already there.
func (s *scratch) addTerm(q qterm) {
	for j := range s.qterms {
		if s.qterms[j].id == q.id {
			s.qterms[j].qtf = min(s.qterms[j].qtf+q.qtf, maxQueryTF)
			s.qterms[j].only = s.qterms[j].only && q.only
			if s.qterms[j].partner == noTerm {
				s.qterms[j].partner = q.partner
			}
			return
		}
	}
	if len(s.qterms) < maxQueryTerms {
		s.qterms = append(s.qterms, q)
	}
}

func (ix *Index) getScratch() *scratch {
	if s := ix.spare.Swap(nil); s != nil {
		return s
	}
	return ix.pool.Get().(*scratch)
}

func (ix *Index) putScratch(s *scratch) {
	if !ix.spare.CompareAndSwap(nil, s) {
		ix.pool.Put(s)
	}
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
// Bits of allowed beyond Len are ignored. Scores are positive; a Hit's Score is only
// comparable with scores of the same query and allowed set. Search allocates nothing
// when dst has room for the hits.
func (ix *Index) Search(dst []Hit, query string, allowed Set, k int) []Hit {
	if ix.n == 0 {
		return dst
	}
	s := ix.getScratch()
	defer ix.putScratch(s)

	// The query's distinct known terms.
	s.an.reset()
	s.an.add(query)
	if ix.whole {
		s.an.addWhole()
	}
	s.qterms = s.qterms[:0]
	s.ids = s.ids[:0]
	for i := 0; i < s.an.n(); i++ {
		id, ok := uint32(noTerm), false
		if p := s.an.parent[i]; p < 0 || s.ids[p] != noTerm {
			// A term needing a stem the index lacks is not in it either.
			id, ok = ix.terms[string(s.an.term(i))]
		}
		if !ok {
			id = noTerm
		}
		s.ids = append(s.ids, id)
	}
	for i, id := range s.ids {
		if id == noTerm {
			continue
		}
		w := 1.0
		only := false
		switch s.an.kind[i] {
		case termSynonym:
			w = synonymWeight
		case termSurface:
			w = ix.surface
			only = true
		case termPair:
			// A doc holding the pair holds the stems of both its words.
			w = ix.pair
			only = true
		}
		need := uint32(noTerm)
		if p := s.an.parent[i]; only && p >= 0 {
			need = s.ids[p]
		}
		po := uint32(noTerm)
		if int(id) < len(ix.paramOnly) {
			po = ix.paramOnly[id] // weighed as id is, so scores are as if the lists were one
		}
		s.addTerm(qterm{id: id, qtf: w, only: only, need: need, pair: s.an.kind[i] == termPair, partner: po})
		if po != noTerm {
			s.addTerm(qterm{id: po, qtf: w, need: noTerm, partner: id, param: true})
		}
	}
	if len(s.qterms) == 0 {
		return dst
	}

	// Statistics over the allowed docs only (DISC-5): their number and each term's
	// document frequency among them.
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
	for i := range s.qterms {
		q := &s.qterms[i]
		df := 0
		if ds := ix.dense[q.id]; ds.bits != nil {
			for w, x := range allowed {
				df += bits.OnesCount64(x & ds.bits[w])
			}
		} else {
			for _, d := range ix.docs[ix.off[q.id]:ix.off[q.id+1]] {
				if w := d >> 6; int(w) < len(allowed) && allowed[w]&(1<<(d&63)) != 0 {
					df++
				}
			}
		}
		q.df = df
	}
	live := s.qterms[:0]
	for _, q := range s.qterms {
		if q.df == 0 {
			continue
		}
		df := q.df
		if q.partner != noTerm {
			for _, o := range s.qterms {
				if o.id == q.partner {
					df += o.df
					break
				}
			}
		}
		idf := math.Log(1 + (N-float64(df)+0.5)/(float64(df)+0.5))
		q.wt = idf * q.qtf * scoreScale
		q.ub = contribution(q.wt, ix.maxSat[q.id])
		live = append(live, q)
	}
	s.qterms = live
	if len(live) == 0 {
		return dst
	}
	// Terms with the largest possible contribution first: once the rest cannot lift a
	// doc not yet seen into the best k, only the docs already seen are scored further
	// (MaxScore). Scores are integers, so the order of summation does not change them.
	// Words as written and pairs never look for docs not yet found: every doc holding
	// one holds a stem of the query, which found it. A pair, rare, is scored right after
	// that stem, and so is a word as written that can add more than its stem (its stem
	// being in the parameters of most docs); other words as written, often common,
	// come after the stems, when few candidates are left. The lists of docs holding a
	// term in their parameters alone come last of all: long, and worth little, they are
	// then looked up for the few candidates left.
	slices.SortStableFunc(live, func(a, b qterm) int {
		switch {
		case a.only != b.only:
			if b.only {
				return -1
			}
			return 1
		case a.ub > b.ub:
			return -1
		case a.ub < b.ub:
			return 1
		}
		return 0
	})
	ordered := s.ordered[:0]
	for _, q := range live {
		if q.only {
			break
		}
		if q.param {
			continue
		}
		ordered = append(ordered, q)
		for j := range live {
			if o := &live[j]; o.only && o.need == q.id && (o.pair || o.ub > q.ub) {
				o.early = true
				ordered = append(ordered, *o)
			}
		}
	}
	for _, o := range live {
		if o.only && !o.early {
			ordered = append(ordered, o)
		}
	}
	for _, q := range live {
		if q.param {
			ordered = append(ordered, q)
		}
	}
	s.ordered = ordered
	live = ordered
	rest := int64(0)
	for _, q := range live {
		rest += q.ub
	}
	// fresh bounds the score of a doc not seen so far, rest that of a candidate: a word
	// as written adds nothing to a doc lacking its stem, so once the stem is scored it
	// leaves fresh.
	fresh := rest

	acc := s.acc
	s.touched = s.touched[:0]
	cands := s.touched
	pruning := false
	theta := int64(0)
	best := int64(0) // the largest partial score so far
	for i, q := range live {
		rest -= q.ub
		if !q.only || q.pair {
			fresh -= q.ub // a word as written left fresh with its stem
		}
		if !q.only {
			for _, o := range live[i+1:] {
				if o.only && !o.pair && o.need == q.id {
					fresh -= o.ub
				}
			}
		}
		if pruning || q.only {
			lo, hi := ix.off[q.id], ix.off[q.id+1]
			// Before the first list of parameters, the k-th best score is raised.
			raise := pruning && len(cands) > k && !q.param && i+1 < len(live) && live[i+1].param
			if len(cands)*8 < int(hi-lo) {
				// Look each candidate up; while pruning (the bar staying where it is),
				// keep it in the same pass.
				filter := pruning && !raise
				out := cands[:0]
				for _, d := range cands {
					v := acc[d]
					if sat := ix.lookup(q.id, d); sat != 0 {
						v += contribution(q.wt, sat)
						acc[d] = v
						best = max(best, v)
					}
					if !filter || v+rest >= theta {
						out = append(out, d)
					}
				}
				cands = out
				if filter {
					s.cands = out
					continue
				}
			} else {
				// Many candidates: walking the postings is cheaper than looking each one
				// up. Docs already dropped may gain too; they stay dropped.
				sat := ix.sat[lo:hi]
				for j, d := range ix.docs[lo:hi] {
					if acc[d] != 0 {
						v := acc[d] + contribution(q.wt, sat[j])
						acc[d] = v
						best = max(best, v)
					}
				}
			}
			if pruning {
				// The k-th best score only rises: raising the bar once, before the lists
				// of parameters, long, leaves them fewer candidates to look up.
				if raise {
					theta = max(theta, s.kth(cands, k))
				}
				cands = s.keep(cands, theta, rest)
				continue
			}
		} else {
			lo, hi := ix.off[q.id], ix.off[q.id+1]
			if ds := ix.dense[q.id]; ds.bits != nil {
				// Walk the allowed postings 64 docs at a time.
				for w, a := range allowed {
					full := ds.bits[w]
					x := full & a
					if x == 0 {
						continue
					}
					base := lo + ds.cum[w]
					for x != 0 {
						b := uint(bits.TrailingZeros64(x))
						x &= x - 1
						d := uint32(w)<<6 | uint32(b)
						if acc[d] == 0 {
							s.touched = append(s.touched, d)
						}
						v := acc[d] + contribution(q.wt, ix.sat[base+uint32(bits.OnesCount64(full&(1<<b-1)))])
						acc[d] = v
						best = max(best, v)
					}
				}
			} else {
				docs, sat := ix.docs[lo:hi], ix.sat[lo:hi]
				for j, d := range docs {
					if w := d >> 6; int(w) >= len(allowed) || allowed[w]&(1<<(d&63)) == 0 {
						continue
					}
					if acc[d] == 0 {
						s.touched = append(s.touched, d)
					}
					v := acc[d] + contribution(q.wt, sat[j])
					acc[d] = v
					best = max(best, v)
				}
			}
			cands = s.touched
		}
		if i+1 < len(live) && live[i+1].early {
			continue // the pairs that need this term come first
		}
		// A doc not seen so far scores at most fresh; once that is below the k-th best
		// partial score, no such doc can make the cut, even on a tie.
		if k <= 0 || len(cands) < k || fresh >= best || !s.atLeast(cands, k, fresh) {
			continue
		}
		if theta = s.kth(cands, k); fresh < theta {
			pruning = true
			cands = s.keep(s.touched, theta, rest)
		}
	}

	// The best k of the candidates, ties by name.
	better := func(a, b uint32) int {
		switch {
		case acc[a] > acc[b]:
			return -1
		case acc[a] < acc[b]:
			return 1
		case ix.order[a] < ix.order[b]:
			return -1
		case ix.order[a] > ix.order[b]:
			return 1
		}
		return 0
	}
	if k > 0 && len(cands) > k {
		// Keep exactly the candidates at or above the k-th score, then sort those.
		cands = s.keep(cands, s.kth(cands, k), 0)
	}
	slices.SortFunc(cands, better)
	if k > 0 && len(cands) > k {
		cands = cands[:k]
	}
	for _, d := range cands {
		dst = append(dst, Hit{Doc: int(d), Score: float64(acc[d]) / scoreScale})
	}
	for _, d := range s.touched {
		acc[d] = 0
	}
	return dst
}

// atLeast reports whether at least k of docs have a score above x.
func (s *scratch) atLeast(docs []uint32, k int, x int64) bool {
	for _, d := range docs {
		if s.acc[d] > x {
			if k--; k == 0 {
				return true
			}
		}
	}
	return false
}

// kth returns the k-th largest accumulated score among docs (k <= len(docs)), keeping
// the best k scores in a min-heap: most docs cost one comparison with its root.
func (s *scratch) kth(docs []uint32, k int) int64 {
	h := s.sel[:0]
	for _, d := range docs {
		v := s.acc[d]
		if len(h) < k {
			h = append(h, v)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if h[p] <= h[i] {
					break
				}
				h[p], h[i] = h[i], h[p]
				i = p
			}
			continue
		}
		if v <= h[0] {
			continue
		}
		h[0] = v
		for i := 0; ; {
			l := 2*i + 1
			if l >= len(h) {
				break
			}
			m := l
			if r := l + 1; r < len(h) && h[r] < h[l] {
				m = r
			}
			if h[i] <= h[m] {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	s.sel = h
	return h[0]
}

// keep filters docs, in place into the candidate buffer, to those whose score plus rest
// reaches theta.
func (s *scratch) keep(docs []uint32, theta, rest int64) []uint32 {
	out := s.cands[:0]
	if len(docs) > 0 && len(s.cands) > 0 && &docs[0] == &s.cands[0] {
		out = docs[:0]
	}
	for _, d := range docs {
		if s.acc[d]+rest >= theta {
			out = append(out, d)
		}
	}
	s.cands = out
	return out
}
