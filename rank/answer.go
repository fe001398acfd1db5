package rank

import (
	"math/bits"
	"slices"
)

// This file holds the last phase of a search before the best k are chosen: which of the
// scored candidates are worth serving at all (the relevance floor and the no-answer gate).

// The relevance floor and the no-answer gate. Every rule depends on the query, the
// allowed set and the candidate alone, never on k, so the hits for k are a prefix of
// those for any larger k.
//
//   - A query gets no hit when its best hit scores under floorInfo times its informative
//     weight (the idf of each of its words, those no allowed doc holds counting
//     unknownWeight times the largest idf, at most unknownCap of them).
//   - A query of at most objectWords words led by an operation verb (stepVerbs) gets no
//     hit when its best hit scores under objectShare times its informative weight,
//     holds none of the verb's terms, and no allowed tool holding the verb strongly (a
//     saturation of nameSat, as a word of its name or title gives, or of a short
//     description) holds, in any field, any word the best hit holds strongly: the
//     catalog does the operation, and things to the query's object, but never that
//     operation to that object (verbObject).
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
	objectShare   = 0.2
	objectWords   = 8
	nameSat       = float32(0.7)
)

// answer returns the candidates of query worth serving (see floorTop), in the candidate
// buffer. When the tail rule drops one of the best k, the candidates pruning left out may
// be needed: the query is then scored again without pruning. tailRule false turns the
// tail rule off.
func (s *scratch) answer(ix *Index, query string, allowed Set, cands []uint32, k int, tailRule bool) []uint32 {
	top, best := int64(0), uint32(0)
	for _, d := range cands {
		if v := s.acc[d]; v > top || v == top && ix.order[d] < ix.order[best] {
			top, best = v, d
		}
	}
	if top == 0 || top < int64(floorInfo*float64(s.info)) || s.verbObject(ix, query, allowed, best, top) {
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

// maxObjects bounds the words verbObject reads as the query's object.
const maxObjects = 16

// verbObject reports whether query, its best hit best scoring top, asks for an operation
// the allowed tools never do to its object (see objectShare): "delete my gist with the
// old nginx config", where get_gist and create_gist hold "gist" and delete_file
// "delete", but no tool deleting holds "gist". The verb is the query's first word,
// stepFillers aside; its terms are its stem, synonyms and related words and the words of
// a verb phrase it leads.
func (s *scratch) verbObject(ix *Index, query string, allowed Set, best uint32, top int64) bool {
	if len(s.gate) == 0 || len(s.gate) > objectWords || len(s.gate) > maxObjects ||
		top >= int64(objectShare*float64(s.info)) {
		return false
	}
	var buf [16]byte
	at, word := leadWord(query, buf[:0]) // as verbLed reads it
	if word == nil || !stepVerbs[string(word)] {
		return false
	}
	// The verb is the query's word whose term is the lead verb's stem: none when the
	// analyser drops the verb ("tell me...": a stop word).
	stem := verbStem(word)
	lead := -1
	for j, w := range s.gate {
		if stem != nil && string(s.an.term(int(w.at))) == string(stem) {
			lead = j
			break
		}
	}
	if lead < 0 {
		return false
	}
	verb := s.gate[lead]
	if verb.id == noTerm || s.wordHeld(ix, verb, best, false) {
		return false
	}
	held := false // whether the best hit holds a word of a verb phrase the verb leads
	phraseMatchesAt(query, func(pos int, _ string, to [][]byte) {
		for _, t := range to {
			if id, ok := ix.terms[string(t)]; ok && pos == at && ix.holds(id, best) {
				held = true
			}
		}
	})
	if held {
		return false
	}
	var objects [maxObjects]gateWord
	n := 0
	for j, w := range s.gate {
		if j != lead && s.wordHeld(ix, w, best, true) {
			objects[n] = w
			n++
		}
	}
	if n == 0 {
		return false
	}
	named, cooc := false, false
	ix.eachStrong(verb.id, allowed, func(d uint32) bool {
		named = true
		for _, w := range objects[:n] {
			if s.wordHeld(ix, w, d, false) {
				cooc = true
				return false
			}
		}
		return true
	})
	return named && !cooc
}

// wordHeld reports whether doc d holds query word w (its stem, one of its synonyms or
// related words): strongly (a saturation of nameSat in its name, title and description,
// as a word of its name or title gives, or one of a short description), or in any field,
// its parameters too.
func (s *scratch) wordHeld(ix *Index, w gateWord, d uint32, strong bool) bool {
	has := func(id uint32) bool {
		if id == noTerm {
			return false
		}
		if strong {
			return ix.lookup(id, d) >= nameSat
		}
		return ix.holds(id, d)
	}
	if has(w.id) || slices.ContainsFunc(s.gateRel[w.rel:w.end], has) {
		return true
	}
	for i := int(w.at) - 1; i >= 0 && s.an.kind[i] == termSynonym; i-- {
		if has(s.ids[i]) {
			return true
		}
	}
	return false
}

// holds reports whether doc d holds term t in any field.
func (ix *Index) holds(t, d uint32) bool {
	if ix.lookup(t, d) != 0 {
		return true
	}
	return int(t) < len(ix.paramOnly) && ix.paramOnly[t] != noTerm && ix.lookup(ix.paramOnly[t], d) != 0
}

// eachStrong calls f with each allowed doc whose saturation in list t reaches nameSat,
// until f returns false.
func (ix *Index) eachStrong(t uint32, allowed Set, f func(d uint32) bool) {
	if ds := ix.denseSet(t); ds != nil {
		for w, x := range ds.bits {
			if w < len(allowed) {
				x &= allowed[w]
			} else {
				x = 0
			}
			for ; x != 0; x &= x - 1 {
				d := uint32(w<<6 + bits.TrailingZeros64(x))
				if ix.lookup(t, d) >= nameSat && !f(d) {
					return
				}
			}
		}
		return
	}
	lo, hi := ix.off[t], ix.off[t+1]
	for i, d := range ix.docs[lo:hi] {
		if w := d >> 6; int(w) < len(allowed) && allowed[w]>>(d&63)&1 != 0 && ix.sat[int(lo)+i] >= nameSat && !f(d) {
			return
		}
	}
}

// verbStem returns the stem of w, one of stepVerbs, as the analyser makes it, in w's
// room: nil when the analyser drops the word (a stop word, or an abbreviation it
// expands).
func verbStem(w []byte) []byte {
	lex, _ := lookupLexicon(w)
	if lex.stop || lex.abbrev != nil {
		return nil
	}
	if !lex.keep {
		w = stemRules(w)
	}
	return w
}
