package rank

import (
	"maps"
	"slices"
)

// Test hooks for the no-answer gate: a full evaluation of a query's terms over every
// allowed doc, for tuning.

// DiagTerm is one query term as the gate sees it.
type DiagTerm struct {
	Term  string
	From  string
	Word  float64 // weight of the query's own words in it
	QTF   float64
	IDF   float64
	DF    int
	Param bool // the list of docs holding it in their parameters alone
	Pair  int  // index in Terms of the other list of the same term, -1 if none
}

// DiagHit is one doc's score and per-term contributions (indexed as Diag.Terms).
type DiagHit struct {
	Doc     int
	Score   float64
	Contrib []float64
}

// Diag is a full evaluation of a query: its terms, informative weight and best n docs.
type Diag struct {
	Info  float64
	Terms []DiagTerm
	Hits  []DiagHit
}

// Diagnose evaluates query over allowed without pruning and floor.
func (ix *Index) Diagnose(query string, allowed Set, n int) Diag {
	s := ix.getScratch()
	defer ix.putScratch(s)
	var dg Diag
	if !s.queryTerms(ix, query) {
		return dg
	}
	allowed, na := ix.clipAllowed(allowed)
	if na == 0 {
		return dg
	}
	ok := s.weigh(ix, allowed, na)
	dg.Info = float64(s.info) / scoreScale
	if !ok {
		return dg
	}
	names := map[uint32]string{}
	for t, id := range ix.terms {
		names[id] = t
	}
	qs := slices.Clone(s.qterms)
	for _, q := range qs {
		id := q.id
		if q.param {
			id = q.partner
		}
		t := DiagTerm{Term: displayTerm(names[id]), From: q.from.String(), Word: q.word, QTF: q.qtf,
			IDF: q.wt / q.qtf / scoreScale, DF: q.df, Param: q.param, Pair: -1}
		for j, o := range qs {
			if q.partner != noTerm && o.id == q.partner {
				t.Pair = j
			}
		}
		dg.Terms = append(dg.Terms, t)
	}
	var hits []DiagHit
	for d := 0; d < ix.n; d++ {
		if allowed[d>>6]&(1<<(uint(d)&63)) == 0 {
			continue
		}
		h := DiagHit{Doc: d, Contrib: make([]float64, len(qs))}
		var sum int64
		for i, q := range qs {
			if sat := ix.lookup(q.id, uint32(d)); sat != 0 {
				c := contribution(q.wt, sat)
				sum += c
				h.Contrib[i] = float64(c) / scoreScale
			}
		}
		if sum > 0 {
			h.Score = float64(sum) / scoreScale
			hits = append(hits, h)
		}
	}
	slices.SortFunc(hits, func(a, b DiagHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return int(ix.order[a.Doc]) - int(ix.order[b.Doc])
	})
	if len(hits) > n {
		hits = hits[:n]
	}
	dg.Hits = hits
	return dg
}

// FloorInfo is the no-answer gate's fraction of the query's informative weight.
var FloorInfo = floorInfo

// SetTail sets the tail rule's constants and returns a function restoring them.
func SetTail(top, word float64) func() {
	tt, tw := tailTop, tailWord
	tailTop, tailWord = top, word
	return func() { tailTop, tailWord = tt, tw }
}

// TailTop and TailWord are the tail rule's constants.
var TailTop, TailWord = tailTop, tailWord

// GateStat is what TestGateSignals reads of a query: its best score and informative
// weight (as the gate sees them, not in fixed point), its own words, how many of those
// are novel (no allowed doc holds them, no related word stands for them, they are made
// of letters and are no typing slip of a held term), and whether its first word and
// that word's synonyms are in no name, title or description.
type GateStat struct {
	Top, Info     float64
	Words, Novel  int
	LeadUnmatched bool
	// LeadVerb says whether the query's first word, fillers aside, is an operation verb
	// (stepVerbs), and LeadTerms are that word's terms: its stem, synonyms and related
	// words, and the words of a verb phrase it leads.
	LeadVerb  bool
	LeadTerms []string
}

// GateStats returns the GateStat of query over allowed. Held terms are looked up over
// the whole index: the tuning sets allow every doc.
func (ix *Index) GateStats(query string, allowed Set) GateStat {
	s := ix.getScratch()
	defer ix.putScratch(s)
	var g GateStat
	if allowed, ok := s.prepare(ix, query, allowed); ok {
		s.order()
		var top int64
		for _, d := range s.score(ix, allowed, 0) {
			top = max(top, s.acc[d])
		}
		for _, d := range s.touched {
			s.acc[d] = 0
		}
		g.Top, g.Info = float64(top)/scoreScale, float64(s.info)/scoreScale
	}
	held := func(t []byte) (uint32, bool) {
		id, ok := ix.terms[string(t)]
		return id, ok && ix.held(id) > 0
	}
	s.an.reset()
	s.addLiterals(query) // the query's own words, as queryTerms reads them
	lead := -1           // the index of the first word, then -1 once past its synonyms
	for i := 0; i < s.an.n(); i++ {
		term, kind := s.an.term(i), s.an.kind[i]
		if kind == termWord && lead >= 0 {
			lead = -2
		}
		if kind == termWord && lead == -1 {
			lead, g.LeadUnmatched = i, true
			for _, r := range related[string(term)] {
				g.LeadTerms = append(g.LeadTerms, string(r))
			}
			for j := 0; j <= i; j++ { // the word and its synonyms, emitted before it
				g.LeadTerms = append(g.LeadTerms, string(s.an.term(j)))
			}
		}
		if id, ok := held(term); ok && lead >= 0 && ix.listLen(id) > 0 {
			g.LeadUnmatched = false // in a name, title or description
		}
		if kind != termWord {
			continue
		}
		g.Words++
		if _, ok := held(term); ok {
			continue
		}
		known := false
		for _, r := range related[string(term)] {
			if _, ok := held(r); ok {
				known = true
			}
		}
		if !known && novelWord(ix, term) {
			g.Novel++
		}
	}
	g.LeadVerb = verbLed(query)
	// A verb phrase of the lead verb ("leave a comment" -> create, "turn ... into" ->
	// convert) names its operation too.
	at := -1
	for st, e := nextWord(query, 0); st < len(query); st, e = nextWord(query, e) {
		if !inFold(query[st:e], fillerWords) {
			at = st
			break
		}
	}
	phraseMatchesAt(query, func(pos int, _ string, to [][]byte) {
		if pos == at && g.LeadVerb {
			for _, t := range to {
				g.LeadTerms = append(g.LeadTerms, string(t))
			}
		}
	})
	return g
}

// fillerWords are stepFillers, as a list.
var fillerWords = slices.Collect(maps.Keys(stepFillers))

// novelWord reports whether term, which the index does not hold, is made of three
// letters or more and is no typing slip of a term it holds: none is one letter deleted,
// swapped with the next, replaced or inserted away from it.
func novelWord(ix *Index, term []byte) bool {
	if len(term) < 3 {
		return false
	}
	for _, c := range term {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	known := func(v []byte) bool {
		id, ok := ix.terms[string(v)]
		return ok && ix.held(id) > 0
	}
	var v []byte
	for i := range term {
		if v = append(append(v[:0], term[:i]...), term[i+1:]...); known(v) {
			return false // deleted
		}
		if i+1 < len(term) {
			v = append(v[:0], term...)
			if v[i], v[i+1] = v[i+1], v[i]; known(v) {
				return false // swapped
			}
		}
		v = append(v[:0], term...)
		for c := byte('a'); c <= 'z'; c++ {
			if v[i] = c; c != term[i] && known(v) {
				return false // replaced
			}
		}
	}
	for i := 0; i <= len(term); i++ {
		v = append(append(append(v[:0], term[:i]...), 0), term[i:]...)
		for c := byte('a'); c <= 'z'; c++ {
			if v[i] = c; known(v) {
				return false // inserted
			}
		}
	}
	return true
}
