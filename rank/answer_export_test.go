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
		if !known && ix.novelWord(term, allowed) {
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

// WordGroup is one of a query's own words as the no-answer studies read it (issue 15):
// its stem, its idf over the allowed docs (0 when none holds it), and, for each hit
// WordGroups is given, the fields of that hit holding the word, one of its synonyms or
// one of its related words (bit f for fieldNames[f]; 0: none).
type WordGroup struct {
	Word         string
	DF           int
	IDF          float64
	Quoted, Path bool
	Related      bool // a related word of it is held by an allowed doc
	Known        bool // a lexicon entry (related, synonym) exists for it
	Fields       []int
	terms        []string
}

// WordGroups returns the query's own words (grammar words left out) and, for each of
// hits, the fields holding each.
func (ix *Index) WordGroups(query string, allowed Set, hits []Hit, docs []Doc) []WordGroup {
	s := ix.getScratch()
	defer ix.putScratch(s)
	s.an.reset()
	s.addLiterals(query)
	words := s.an.n()
	stop := s.holdsContent(words)
	allowed, na := ix.clipAllowed(allowed)
	N := float64(na)
	df := func(t string) int {
		id, ok := ix.terms[t]
		if !ok {
			return 0
		}
		n := ix.allowedDF(id, allowed)
		if int(id) < len(ix.paramOnly) && ix.paramOnly[id] != noTerm {
			n += ix.allowedDF(ix.paramOnly[id], allowed)
		}
		return n
	}
	var out []WordGroup
	var syn []string
	for i := 0; i < words; i++ {
		kind, term := s.an.kind[i], string(s.an.term(i))
		if kind == termSynonym {
			syn = append(syn, term)
			continue
		}
		if kind != termWord && kind != termPart {
			continue
		}
		if stop && s.grammar(i) {
			syn = syn[:0]
			continue
		}
		g := WordGroup{Word: term, DF: df(term), Quoted: s.quoted(i), Path: inRanges(s.steps.paths[:s.steps.npath], i)}
		if g.DF > 0 {
			g.IDF = idf(N, g.DF)
		}
		g.terms = append(append(g.terms, term), syn...)
		g.Known = len(syn) > 0 || len(related[term]) > 0
		syn = syn[:0]
		for _, r := range related[term] {
			if df(string(r)) > 0 {
				g.Related = true
				g.terms = append(g.terms, string(r))
			}
		}
		out = append(out, g)
	}
	for _, h := range hits {
		fields := ix.docFields(docs[h.Doc])
		for gi := range out {
			var m int
			for _, t := range out[gi].terms {
				for f := range fields {
					if fields[f][t] {
						m |= 1 << f
					}
				}
			}
			out[gi].Fields = append(out[gi].Fields, m)
		}
	}
	return out
}

// TermFields returns the fields of doc holding one of terms (bit f for fieldNames[f]).
func (ix *Index) TermFields(doc Doc, terms []string) int {
	fields := ix.docFields(doc)
	m := 0
	for _, t := range terms {
		for f := range fields {
			if fields[f][t] {
				m |= 1 << f
			}
		}
	}
	return m
}

// GroupTerms returns the terms of a WordGroup: its stem, synonyms and held related words.
func (g WordGroup) GroupTerms() []string { return g.terms }

// ShortGate reports whether the short-query gate studied in TUNING.md ("Eighth pass")
// would answer query empty where Search answers it: a query of at most words words (its
// own words the no-answer gate weighs) whose best hit scores under share of its
// informative weight, its words no allowed doc holds, nor any of their related words,
// weighing as the rarest word only when novel (novelWord): a typing slip
// ("enivronments") or a number says nothing of what the query asks for ("order a pizza"
// does).
func (ix *Index) ShortGate(query string, allowed Set, words int, share float64) bool {
	s := ix.getScratch()
	defer ix.putScratch(s)
	s.an.reset()
	s.addLiterals(query)
	n := s.an.n() // the query's own terms, before the whole query's and the hints
	allowed, ok := s.prepare(ix, query, allowed)
	if !ok || len(s.gate) > words {
		return false
	}
	// The query's terms of s.gate, in order, as queryTerms chose them.
	var at []int
	for i := range n {
		if s.an.kind[i].isWord() && !(s.steps.grammar && s.grammar(i)) && !s.pathEcho(i) {
			at = append(at, i)
		}
	}
	if len(at) != len(s.gate) {
		panic("ShortGate: the query's words are not the gate's")
	}
	s.order()
	top := int64(0)
	for _, d := range s.score(ix, allowed, 0) {
		top = max(top, s.acc[d])
	}
	for _, d := range s.touched {
		s.acc[d] = 0
	}
	if top == 0 || top < int64(floorInfo*float64(s.info)) || top >= int64(share*float64(s.info)) {
		return false // empty already, or over share of the weight as Search counts it
	}
	unknown, novel := 0.0, 0.0
	for j, w := range s.gate {
		if s.heldAllowed(ix, allowed, w.id) || slices.ContainsFunc(s.gateRel[w.rel:w.end], func(id uint32) bool {
			return s.heldAllowed(ix, allowed, id)
		}) {
			continue
		}
		unknown++
		if ix.novelWord(s.an.term(at[j]), allowed) {
			novel++
		}
	}
	_, na := ix.clipAllowed(allowed)
	rare := idf(float64(na), 0)
	info := float64(s.info) - unknownWeight*(min(unknown, unknownCap)-min(novel, unknownCap))*rare*scoreScale
	return float64(top) < share*info
}

// maxSlip is the longest word novelWord tests for typing slips; a longer one is novel.
const maxSlip = 32

// novelWord reports whether term, a word no allowed doc holds, is made of three letters
// or more (a-z) and is no typing slip of a term an allowed doc holds: none is one letter
// deleted, swapped with the next, replaced or inserted away from it.
func (ix *Index) novelWord(term []byte, allowed Set) bool {
	if len(term) < 3 {
		return false
	}
	for _, c := range term {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	if len(term) > maxSlip {
		return true
	}
	var buf [maxSlip + 1]byte
	held := func(v []byte) bool {
		id, ok := ix.terms[string(v)]
		return ok && ix.heldIn(id, allowed)
	}
	for i := range term {
		v := append(append(buf[:0], term[:i]...), term[i+1:]...)
		if held(v) {
			return false // deleted
		}
		v = append(buf[:0], term...)
		if i+1 < len(term) {
			if v[i], v[i+1] = v[i+1], v[i]; held(v) {
				return false // swapped
			}
			v[i], v[i+1] = v[i+1], v[i]
		}
		for c := byte('a'); c <= 'z'; c++ {
			if v[i] = c; c != term[i] && held(v) {
				return false // replaced
			}
		}
	}
	for i := 0; i <= len(term); i++ {
		v := append(append(append(buf[:0], term[:i]...), 0), term[i:]...)
		for c := byte('a'); c <= 'z'; c++ {
			if v[i] = c; held(v) {
				return false // inserted
			}
		}
	}
	return true
}

// heldIn reports whether an allowed doc holds term t, in either of its lists.
func (ix *Index) heldIn(t uint32, allowed Set) bool {
	if ix.allowedDF(t, allowed) > 0 {
		return true
	}
	return int(t) < len(ix.paramOnly) && ix.paramOnly[t] != noTerm && ix.allowedDF(ix.paramOnly[t], allowed) > 0
}

// Sat returns the saturation of term in doc d's name, title and description (its main
// list), 0 when it holds none there, and whether d holds term in any field.
func (ix *Index) Sat(term string, d int) (float32, bool) {
	id, ok := ix.terms[term]
	if !ok {
		return 0, false
	}
	return ix.lookup(id, uint32(d)), ix.holds(id, uint32(d))
}

// SetObject sets the verb-object gate's share of the informative weight (answer.go; 0
// turns it off) and its most words, and returns a function restoring them.
func SetObject(share float64, words int) func() {
	sh, w := objectShare, objectWords
	objectShare, objectWords = share, words
	return func() { objectShare, objectWords = sh, w }
}
