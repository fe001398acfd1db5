package rank

import "math/bits"

// Search appends to dst the docs of allowed that match query, best first, at most k of
// them, and returns the extended slice. Equal scores are ordered by Name, ascending byte
// order. Every scoring statistic is computed over the docs in allowed only, so a doc
// outside allowed never changes a result (SPEC DISC-5). A query none of whose words
// occur in an allowed doc yields no hits (DISC-6), and neither does a doc under the
// relevance floor (the package doc says which). k <= 0 means no limit.
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

	// The phases: the query's terms (query.go), their weights over the allowed docs and
	// the order they are scored in; then the scoring of the candidates (below) and the
	// selection of the best k (topk.go).
	allowed, ok := s.prepare(ix, query, allowed)
	if !ok {
		return dst
	}
	s.order()
	kw, steps := s.stepWindowFor(query, k) // a long query of several steps is reordered (rerank.go)
	cands := s.score(ix, allowed, kw)
	cands = s.answer(ix, query, allowed, cands, kw, !steps)
	if steps {
		s.steps.hits = s.appendTop(ix, s.steps.hits[:0], cands, kw)
	} else {
		dst = s.appendTop(ix, dst, cands, k)
	}
	for _, d := range s.touched {
		s.acc[d] = 0
	}
	if steps {
		dst = s.appendSteps(ix, dst, query, k)
	}
	return dst
}

// prepare finds query's terms and weighs them over allowed, clipped to the index, which
// it returns; false when no allowed doc can match. Search and Explain start with it.
func (s *scratch) prepare(ix *Index, query string, allowed Set) (Set, bool) {
	if !s.queryTerms(ix, query) {
		return allowed, false
	}
	allowed, n := ix.clipAllowed(allowed)
	return allowed, n > 0 && s.weigh(ix, allowed, n)
}

// scratch holds the per-search buffers, pooled so that a search allocates nothing that
// grows with the catalog. Each phase of Search is a method on it.
type scratch struct {
	an       *analyzer
	qterms   []qterm
	ordered  []qterm     // qterms in the order they are scored
	ids      []uint32    // ids[i] is the id of query term i, noTerm when the index lacks it
	dropped  []bool      // dropped[i] reports whether query term i is grammar the query drops
	acc      []int64     // score accumulator in fixed point, indexed by doc; zero for untouched docs
	touched  []uint32    // the docs with a score, in the order they were found
	cands    []uint32    // the candidates left once pruning, filtered in place
	sel      []int64     // the heap of kth
	gate     []gateWord  // the query's words, for its weight of words no allowed doc holds (weigh)
	gateRel  []uint32    // the terms of their related words
	info     int64       // the query's informative weight, in fixed point (see floor)
	allowed  Set         // the allowed docs, clipped to the index (weigh)
	nAllowed int         // how many
	steps    stepScratch // the steps of a long query (rerank.go)
}

func (ix *Index) getScratch() *scratch {
	if s := ix.spare.Swap(nil); s != nil {
		return s
	}
	return ix.pool.Get().(*scratch)
}

func (ix *Index) putScratch(s *scratch) {
	s.allowed = nil // the caller's set: not kept alive by the pool
	if !ix.spare.CompareAndSwap(nil, s) {
		ix.pool.Put(s)
	}
}

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

// score adds the terms of s.ordered, in turn, to the allowed docs holding them, and
// returns the candidates: a set of docs holding every doc that can be among the best k.
//
// At first each term gathers the allowed docs holding it (gather). Once no doc not yet
// seen can reach the k-th best partial score, even on a tie, the remaining terms only
// add to the candidates (MaxScore), and candidates that can no longer reach the k-th
// best score are dropped (pruning). Words as written and pairs only ever add to the
// docs found by their stems.
func (s *scratch) score(ix *Index, allowed Set, k int) []uint32 {
	terms := s.ordered
	rest := int64(0) // bounds what the terms not yet scored can add to a candidate
	for _, q := range terms {
		rest += q.ub
	}
	fresh := rest // bounds the score of a doc not seen so far
	s.touched = s.touched[:0]
	cands := s.touched
	pruning := false
	theta := int64(0) // while pruning, the k-th best score so far
	best := int64(0)  // the largest partial score so far
	for i, q := range terms {
		rest -= q.ub
		fresh -= unseenDrop(terms, i)
		if !pruning && !q.only {
			best = max(best, s.gather(ix, q, allowed))
			cands = s.touched
		} else {
			// Before the first list of parameters, the k-th best score is raised.
			raise := pruning && len(cands) > k && !q.param && i+1 < len(terms) && terms[i+1].param
			if ix.lookupCheaper(q.id, len(cands)) {
				// While pruning, the bar staying where it is, candidates are dropped in
				// the same pass.
				filter := pruning && !raise
				var top int64
				cands, top = s.lookupEach(ix, q, cands, filter, theta, rest)
				best = max(best, top)
				if filter {
					s.cands = cands
					continue
				}
			} else {
				best = max(best, s.addPostings(ix, q))
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
		}
		if i+1 < len(terms) && terms[i+1].early {
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
	return cands
}

// unseenDrop is how much the bound on the score of a doc not seen so far falls once
// terms[i] is scored: its own bound, and that of every word as written needing it, which
// adds nothing to a doc lacking its stem. A word as written left the bound with its stem.
func unseenDrop(terms []qterm, i int) int64 {
	q := terms[i]
	if q.only && !q.pair {
		return 0
	}
	drop := q.ub
	if !q.only {
		for _, o := range terms[i+1:] {
			if o.only && !o.pair && o.need == q.id {
				drop += o.ub
			}
		}
	}
	return drop
}

// gather adds term q to every allowed doc holding it, appending the docs not seen before
// to s.touched, and returns the largest score it leaves.
func (s *scratch) gather(ix *Index, q qterm, allowed Set) int64 {
	acc, touched := s.acc, s.touched
	best := int64(0)
	if ds := ix.denseSet(q.id); ds != nil {
		// Walk the allowed postings 64 docs at a time. The set's slices are held in
		// locals: read through ds, they would be loaded again after each store to acc.
		dbits, at, slabs := ds.bits, ds.at, &ds.slabs
		for w, a := range allowed {
			full := dbits[w]
			x := full & a
			if x == 0 {
				continue
			}
			r := at[w]
			sat := slabs[r>>slabAt][r&atMask:] // ds.word(w)
			for x != 0 {
				b := uint(bits.TrailingZeros64(x))
				x &= x - 1
				d := uint32(w)<<6 | uint32(b)
				if acc[d] == 0 {
					touched = append(touched, d)
				}
				v := acc[d] + contribution(q.wt, sat[bits.OnesCount64(full&(1<<b-1))])
				acc[d] = v
				best = max(best, v)
			}
		}
	} else {
		lo, hi := ix.off[q.id], ix.off[q.id+1]
		docs, sat := ix.docs[lo:hi], ix.sat[lo:hi]
		for j, d := range docs {
			if w := d >> 6; int(w) >= len(allowed) || allowed[w]&(1<<(d&63)) == 0 {
				continue
			}
			if acc[d] == 0 {
				touched = append(touched, d)
			}
			v := acc[d] + contribution(q.wt, sat[j])
			acc[d] = v
			best = max(best, v)
		}
	}
	s.touched = touched
	return best
}

// lookupEach looks term q up in each candidate, adds it, and returns the candidates
// (in place) and the largest score it leaves. With filter, it keeps only those whose
// score plus rest reaches theta.
func (s *scratch) lookupEach(ix *Index, q qterm, cands []uint32, filter bool, theta, rest int64) ([]uint32, int64) {
	acc := s.acc
	best := int64(0)
	out := cands[:0]
	if ds := ix.denseSet(q.id); ds != nil {
		dbits, at, slabs := ds.bits, ds.at, &ds.slabs // locals, as in gather
		for _, d := range cands {
			v := acc[d]
			w := d >> 6
			x, bit := dbits[w], uint64(1)<<(d&63)
			if x&bit != 0 {
				r := at[w]
				if sat := slabs[r>>slabAt][r&atMask+uint32(bits.OnesCount64(x&(bit-1)))]; sat != 0 { // as lookup
					v += contribution(q.wt, sat)
					acc[d] = v
					best = max(best, v)
				}
			}
			if !filter || v+rest >= theta {
				out = append(out, d)
			}
		}
		return out, best
	}
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
	return out, best
}

// lookupCheaper reports whether looking list t up in each of n candidates costs less
// than walking its postings (addPostings): a lookup in a bitset costs about one posting
// walked, one in a list of doc ids a binary search, about 8. Either adds the same to
// the candidates (addPostings adds to docs already dropped too, which nothing reads).
func (ix *Index) lookupCheaper(t uint32, n int) bool {
	if ds := ix.denseSet(t); ds != nil {
		return n < int(ds.n)
	}
	return n*8 < int(ix.off[t+1]-ix.off[t])
}

// addPostings walks the postings of term q, cheaper than looking up many candidates, and
// adds it to the docs already seen, returning the largest score it leaves. Docs already
// dropped may gain too; they stay dropped.
func (s *scratch) addPostings(ix *Index, q qterm) int64 {
	acc := s.acc
	best := int64(0)
	if ds := ix.denseSet(q.id); ds != nil {
		at, slabs := ds.at, &ds.slabs // locals, as in gather
		for w, full := range ds.bits {
			var sat []float32 // the word's saturations, found at its first doc seen
			for x := full; x != 0; x &= x - 1 {
				b := uint(bits.TrailingZeros64(x))
				if d := uint32(w)<<6 | uint32(b); acc[d] != 0 {
					if sat == nil {
						r := at[w]
						sat = slabs[r>>slabAt][r&atMask:] // ds.word(w)
					}
					v := acc[d] + contribution(q.wt, sat[bits.OnesCount64(full&(1<<b-1))])
					acc[d] = v
					best = max(best, v)
				}
			}
		}
		return best
	}
	lo, hi := ix.off[q.id], ix.off[q.id+1]
	sat := ix.sat[lo:hi]
	for j, d := range ix.docs[lo:hi] {
		if acc[d] != 0 {
			v := acc[d] + contribution(q.wt, sat[j])
			acc[d] = v
			best = max(best, v)
		}
	}
	return best
}
