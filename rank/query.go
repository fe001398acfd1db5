package rank

import (
	"math"
	"math/bits"
	"slices"
)

// This file holds the first phases of a search: the query's terms, their weights over
// the allowed docs, and the order they are scored in.

// A qterm is one posting list a query scores: a term of the query, or the list of the
// docs holding that term in their parameters alone.
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
	// word is the weight the query's own words give the term (synonyms, words as
	// written and pairs left out): what the relevance floor measures coverage against.
	word float64
	from source // where the term first came from, for Explain
}

// A source says where a query term comes from.
type source uint8

const (
	fromWord    source = iota // a word of the query (or the whole query)
	fromSynonym               // a synonym or phrasal verb
	fromSurface               // a word as written
	fromPair                  // two consecutive words
	fromRelated               // a related word (lexicon.go)
)

// maxQueryTerms and maxQueryTF bound what a query can weigh, so that fixed-point scores
// never overflow whatever the query's length: beyond them, words are ignored.
const (
	maxQueryTerms = 256
	maxQueryTF    = 16
)

// queryTerms analyses query into s.qterms, its distinct terms the index holds, each with
// its weight in the query, and reports whether there is any.
func (s *scratch) queryTerms(ix *Index, query string) bool {
	s.an.reset()
	s.addLiterals(query)
	words := s.an.n() // the whole query's term, if any, comes after its words
	if ix.p.Whole {
		s.an.addWhole()
	}
	s.addHints(query)
	s.qterms = s.qterms[:0]
	s.ids = s.ids[:0]
	s.gate, s.gateRel = s.gate[:0], s.gateRel[:0]
	stop := s.holdsContent(words)
	s.steps.grammar = stop
	s.dropped = s.dropped[:0]
	for i := 0; i < s.an.n(); i++ {
		id, ok := uint32(noTerm), false
		if p := s.an.parent[i]; p < 0 || s.ids[p] != noTerm {
			// A term needing a stem the index lacks is not in it either.
			id, ok = ix.terms[string(s.an.term(i))]
		}
		drop := stop && s.grammar(i)
		if !ok || ix.held(id) == 0 || drop {
			id = noTerm
		}
		s.ids = append(s.ids, id)
		s.dropped = append(s.dropped, drop)
	}
	s.findEchoes()
	for i, id := range s.ids {
		kind := s.an.kind[i]
		if s.dropped[i] {
			continue // a word of the request's own grammar ("the one about naming")
		}
		if s.pathEcho(i) {
			continue // a word of a URL or path the request says outside it: once
		}
		word := 0.0
		if kind.isWord() && i < words {
			word, _ = ix.queryWeight(kind)
		}
		if word > 0 {
			// The words related to this one, weighed below it, whether the index holds
			// it or not; weigh reads which of them the allowed docs hold.
			s.gate = append(s.gate, gateWord{id: id, rel: int32(len(s.gateRel)), at: int32(i)})
			for _, r := range relatedOf(s.an, i) {
				if rid, ok := ix.terms[string(r)]; ok && ix.held(rid) > 0 {
					s.addList(ix, qterm{id: rid, qtf: relatedWeight * word * s.literalFactor(i), need: noTerm, from: fromRelated})
					s.gateRel = append(s.gateRel, rid)
				}
			}
			s.gate[len(s.gate)-1].end = int32(len(s.gateRel))
		}
		if id == noTerm {
			continue
		}
		w, only := ix.queryWeight(kind)
		w *= s.literalFactor(i)
		need := uint32(noTerm)
		if p := s.an.parent[i]; only && p >= 0 {
			need = s.ids[p]
		}
		s.addList(ix, qterm{id: id, qtf: w, only: only, need: need, pair: kind == termPair, word: word, from: sourceOf(kind)})
	}
	s.addPhrases(ix, query)
	return len(s.qterms) > 0
}

// The words of a request's own grammar (queryStop) follow one rule, in the whole query
// and in its steps (rerank.go): such a word is grammar outside quoted text, and in
// quotes ("titled 'still broken'") part of a value the task passes on, a word like any
// other; a query's grammar is dropped only when it holds another word, so that alone
// ("together", "one") they are what it asks for.

// holdsContent reports whether the query's words, its first words terms, hold one that
// is not grammar (isGrammar): only then is its grammar dropped.
func (s *scratch) holdsContent(words int) bool {
	for i := range words {
		if s.an.kind[i].isWord() && !s.grammar(i) {
			return true
		}
	}
	return false
}

// grammar reports whether query term i is a word of the request's grammar.
func (s *scratch) grammar(i int) bool {
	return isGrammar(s.an.kind[i], s.an.term(i), s.quoted(i))
}

// isGrammar reports whether a term of kind kind is a word of queryStop outside quoted
// text.
func isGrammar(kind termKind, term []byte, quoted bool) bool {
	return kind == termWord && !quoted && queryStop[string(term)]
}

// addList adds q, and the list of docs holding its term in their parameters alone if
// there is one.
func (s *scratch) addList(ix *Index, q qterm) {
	id := q.id
	q.partner = noTerm
	if int(id) < len(ix.paramOnly) && ix.paramOnly[id] != noTerm && ix.listLen(ix.paramOnly[id]) > 0 {
		q.partner = ix.paramOnly[id] // weighed as id is, so scores are as if the lists were one
	}
	s.addTerm(q)
	if q.partner != noTerm {
		s.addTerm(qterm{id: q.partner, qtf: q.qtf, need: noTerm, partner: id, param: true, from: q.from})
	}
}

// sourceOf returns the source of an analyzer term of kind k.
func sourceOf(k termKind) source {
	switch k {
	case termSynonym:
		return fromSynonym
	case termSurface:
		return fromSurface
	case termPair:
		return fromPair
	}
	return fromWord
}

// listLen returns the number of postings of list l.
func (ix *Index) listLen(l uint32) int {
	if ds := ix.denseSet(l); ds != nil {
		return int(ds.n)
	}
	return int(ix.off[l+1] - ix.off[l])
}

// held returns the number of docs holding term t. It is 0 only for a term of an index
// that Update built whose docs are all gone, which a query must treat as absent, as
// NewIndex's index would.
func (ix *Index) held(t uint32) int {
	n := ix.listLen(t)
	if int(t) < len(ix.paramOnly) && ix.paramOnly[t] != noTerm {
		n += ix.listLen(ix.paramOnly[t])
	}
	return n
}

// queryWeight returns the weight in a query of a term of the given kind, and whether
// every doc holding such a term holds its stem (a word as written, or a pair: a doc
// holding the pair holds the stems of both its words).
func (ix *Index) queryWeight(kind termKind) (w float64, only bool) {
	switch kind {
	case termSynonym:
		return synonymWeight, false
	case termSurface:
		return ix.p.Surf, true
	case termPair:
		return ix.p.Pair, true
	case termPart:
		return partWeight, false
	}
	return 1, false
}

// partWeight is the query weight of each word of an abbreviation's expansion of two
// words ("VMs": virtual, machine), so that the abbreviation weighs about as the one
// word of the query it is.
var partWeight = 0.7

// addTerm adds q to the query's terms, or its weight to the same term already there.
func (s *scratch) addTerm(q qterm) {
	for j := range s.qterms {
		if s.qterms[j].id == q.id {
			s.qterms[j].qtf = min(s.qterms[j].qtf+q.qtf, maxQueryTF)
			s.qterms[j].word = min(s.qterms[j].word+q.word, maxQueryTF)
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

// clipAllowed returns allowed without the words beyond the index's docs, and the number
// of docs of the index it holds (bits beyond Len are ignored).
func (ix *Index) clipAllowed(allowed Set) (Set, int) {
	words := (ix.n + 63) / 64
	if len(allowed) > words {
		allowed = allowed[:words]
	}
	n := 0
	for w, x := range allowed {
		if w == words-1 && ix.n&63 != 0 {
			x &= 1<<(uint(ix.n)&63) - 1
		}
		n += bits.OnesCount64(x)
	}
	return allowed, n
}

// weigh sets each query term's weight from its document frequency among the nAllowed
// docs of allowed (SPEC DISC-5: statistics over the allowed docs only), drops the terms
// no allowed doc holds, and reports whether any is left.
func (s *scratch) weigh(ix *Index, allowed Set, nAllowed int) bool {
	for i := range s.qterms {
		s.qterms[i].df = ix.allowedDF(s.qterms[i].id, allowed)
	}
	N := float64(nAllowed)
	s.allowed, s.nAllowed = allowed, nAllowed // for the pairs of a long query's steps (rerank.go)
	unknown := s.unknownWords(ix, allowed)
	live := s.qterms[:0]
	info := 0.0
	for _, q := range s.qterms {
		df := q.df
		if q.partner != noTerm {
			// The two lists of a term are one term: its df is theirs together.
			for _, o := range s.qterms {
				if o.id == q.partner {
					df += o.df
					break
				}
			}
		}
		w := idf(N, df)
		if !q.param && df > 0 {
			info += w * q.word
		}
		if q.df == 0 {
			continue
		}
		q.wt = w * q.qtf * scoreScale
		q.ub = contribution(q.wt, ix.maxSat[q.id])
		live = append(live, q)
	}
	s.qterms = live
	// A word no allowed doc holds weighs as the rarest word would.
	info += unknownWeight * min(unknown, unknownCap) * idf(N, 0)
	s.info = int64(info * scoreScale)
	return len(live) > 0
}

// idf returns the inverse document frequency of a term df of N docs hold:
// ln(1 + (N - df + 0.5)/(df + 0.5)).
func idf(N float64, df int) float64 {
	return math.Log(1 + (N-float64(df)+0.5)/(float64(df)+0.5))
}

// A gateWord is a word of the query as the no-answer gate reads it: its term (noTerm
// when the index lacks it), its related words' terms, s.gateRel[rel:end], and its index
// among the query's analysed terms (s.an; its synonyms come right before it).
type gateWord struct {
	id       uint32
	rel, end int32
	at       int32
}

// unknownWords returns the weight of the query's words that no allowed doc holds, nor
// any of their related words (SPEC DISC-5: docs outside allowed count for nothing). It
// reads the document frequencies weigh has set.
func (s *scratch) unknownWords(ix *Index, allowed Set) float64 {
	unknown := 0.0
	for _, w := range s.gate {
		if !s.heldAllowed(ix, allowed, w.id) && !slices.ContainsFunc(s.gateRel[w.rel:w.end], func(id uint32) bool {
			return s.heldAllowed(ix, allowed, id)
		}) {
			unknown++
		}
	}
	return unknown
}

// heldAllowed reports whether an allowed doc holds term id, in either of its lists.
func (s *scratch) heldAllowed(ix *Index, allowed Set, id uint32) bool {
	if id == noTerm {
		return false
	}
	main, param := false, false // the lists found among the query's terms, df set
	for _, q := range s.qterms {
		if q.id == id || q.param && q.partner == id {
			if q.df > 0 {
				return true
			}
			main, param = main || !q.param, param || q.param
		}
	}
	// A list not among them (past maxQueryTerms): count its docs.
	if !main && ix.allowedDF(id, allowed) > 0 {
		return true
	}
	p := uint32(noTerm)
	if int(id) < len(ix.paramOnly) {
		p = ix.paramOnly[id]
	}
	return !param && p != noTerm && ix.allowedDF(p, allowed) > 0
}

// allowedDF counts the docs of allowed in the postings of term t.
func (ix *Index) allowedDF(t uint32, allowed Set) int {
	df := 0
	if ds := ix.denseSet(t); ds != nil {
		for w, x := range allowed {
			df += bits.OnesCount64(x & ds.bits[w])
		}
		return df
	}
	for _, d := range ix.docs[ix.off[t]:ix.off[t+1]] {
		if w := d >> 6; int(w) < len(allowed) {
			// The bit added, not tested: whether a doc is allowed is a branch no CPU
			// predicts.
			df += int(allowed[w] >> (d & 63) & 1)
		}
	}
	return df
}

// order puts the query's terms into s.ordered in the order they are scored.
//
// Terms with the largest possible contribution come first: once the rest cannot lift a
// doc not yet seen into the best k, only the docs already seen are scored further
// (MaxScore). Scores are integers, so the order of summation does not change them.
// Words as written and pairs never look for docs not yet found: every doc holding one
// holds a stem of the query, which found it. A pair, rare, is scored right after that
// stem, and so is a word as written that can add more than its stem (its stem being in
// the parameters of most docs); other words as written, often common, come after the
// stems, when few candidates are left. The lists of docs holding a term in their
// parameters alone come last of all: long, and worth little, they are then looked up
// for the few candidates left.
func (s *scratch) order() {
	live := s.qterms
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
}

// addPhrases adds the related words of the verb phrases of query (lexicon.go's
// curatedPhrases: "open an issue" -> create).
func (s *scratch) addPhrases(ix *Index, query string) {
	phraseWeights(query, func(_ int, verb string, to [][]byte, w float64) {
		for _, t := range to {
			if rid, ok := ix.terms[string(t)]; ok && ix.held(rid) > 0 {
				s.addList(ix, qterm{id: rid, qtf: w, need: noTerm, from: fromRelated})
			}
		}
		if vid, ok := ix.terms[verb]; ok && verb != "" {
			for j := range s.qterms {
				if q := &s.qterms[j]; q.id == vid || q.param && q.partner == vid {
					q.qtf = max(q.qtf-phraseDemote, phraseDemote)
				}
			}
		}
	})
}
