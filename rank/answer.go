package rank

// This file holds the last phase of a search before the best k are chosen: which of the
// scored candidates are worth serving at all (the relevance floor and the no-answer gate).

// The relevance floor and the no-answer gate. Every rule depends on the query, the
// allowed set and the candidate alone, never on k, so the hits for k are a prefix of
// those for any larger k.
//
//   - A query gets no hit when its best hit scores under floorInfo times its informative
//     weight (the idf of each of its words, those no allowed doc holds counting
//     unknownWeight times the largest idf, at most unknownCap of them).
//   - A hit scoring under floorTop times the best hit's score is not served; nor is one
//     under tailTop times it that matches the query only through its own words, none
//     weighing tailWord times the idf of the query's most informative word (a tool
//     matching one generic word of a specific query). This tail rule is off for a long
//     query read as several steps (rerank.go): there a tool matching one step's words
//     may be that step's tool.
var (
	floorTop      = 0.15
	floorInfo     = 0.03
	tailTop       = 0.25
	tailWord      = 0.8
	unknownWeight = 1.0
	unknownCap    = 2.0
)

// answer returns the candidates worth serving (see floorTop), in the candidate buffer. When
// the tail rule drops one of the best k, the candidates pruning left out may be needed:
// the query is then scored again without pruning. tailRule false turns the tail rule off.
func (s *scratch) answer(ix *Index, allowed Set, cands []uint32, k int, tailRule bool) []uint32 {
	top := int64(0)
	for _, d := range cands {
		top = max(top, s.acc[d])
	}
	if top == 0 || top < int64(floorInfo*float64(s.info)) {
		return nil
	}
	bar := int64(floorTop * float64(top))
	tail := max(int64(tailTop*float64(top)), bar) // no tail rule under the floor
	if !tailRule {
		tail = bar
	}
	// heavy is the idf of the query's most informative word, times scoreScale.
	heavy := 0.0
	for _, q := range s.qterms {
		if q.ownWord() {
			heavy = max(heavy, q.wt/q.qtf)
		}
	}
	light := tailWord * heavy
	out := s.out(cands)
	if k > 0 && s.atLeast(cands, k, tail-1) {
		// The best k all reach tail: the hits under it could not make them.
		for _, d := range cands {
			if s.acc[d] >= tail {
				out = append(out, d)
			}
		}
		s.cands = out
		return out
	}
	if k > 0 && len(cands) >= k && len(s.touched) > 0 && &cands[0] != &s.touched[0] {
		// Pruning left candidates out (score keeps them apart from s.touched once it
		// prunes): if the tail rule drops one of the best k, score again without it.
		kth := s.kth(cands, k)
		for _, d := range cands {
			if v := s.acc[d]; v >= kth && v >= bar && v < tail && !s.strong(ix, d, light) {
				for _, d := range s.touched {
					s.acc[d] = 0
				}
				cands = s.score(ix, allowed, 0)
				out = s.out(cands)
				break
			}
		}
	}
	for _, d := range cands {
		v := s.acc[d]
		if v >= bar && (v >= tail || s.strong(ix, d, light)) {
			out = append(out, d)
		}
	}
	s.cands = out
	return out
}

// out returns the empty buffer the candidates left of cands are written to: cands itself
// when it is the candidate buffer, never s.touched, which Search needs whole to reset
// the scores.
func (s *scratch) out(cands []uint32) []uint32 {
	if len(cands) > 0 && len(s.cands) > 0 && &cands[0] == &s.cands[0] {
		return cands[:0]
	}
	s.cands = s.cands[:0]
	return s.cands
}

// ownWord reports whether q is a word of the query (or the list of docs holding one in
// their parameters alone, whose word weight is its partner's, which may have no doc).
func (q *qterm) ownWord() bool { return q.word > 0 || q.param && q.from == fromWord }

// strong reports whether doc d matches a synonym or related word of the query, or one of
// its words whose idf (times scoreScale) reaches light.
func (s *scratch) strong(ix *Index, d uint32, light float64) bool {
	for _, q := range s.qterms {
		switch q.from {
		case fromSynonym, fromRelated:
		case fromWord:
			if q.wt/q.qtf < light {
				continue
			}
		default:
			continue
		}
		if ix.lookup(q.id, d) != 0 {
			return true
		}
	}
	return false
}
