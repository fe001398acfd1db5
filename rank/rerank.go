package rank

import (
	"cmp"
	"slices"
	"strings"
)

// This file holds the last phase of a search of a long query describing several steps
// of a task ("find the page, read it as markdown, and append a paragraph"): the best
// hits are reordered so that each step's best tool is near the top, where the tools
// matching words of several steps at once would otherwise crowd it out.

// Steps of a long query.
const (
	stepMinWords = 12 // a query of fewer words is never split into steps
	maxSteps     = 8  // clauses beyond the eighth are read as part of the eighth
	stepWindow   = 16 // the hits reordered: the best stepWindow of the whole query
	maxPairDocs  = 4  // the tools a phrase names that may join the window (addPairs)
	maxEcho      = 16 // the terms of URLs and paths echoing the request a step reads
)

// stepSpread is the share of a hit's score beyond its best step's that it loses.
var stepSpread = 0.5

// stepMinContent is the least number of content words of a clause that is a step.
var stepMinContent = 2

// stepBonus is what being the best hit of one of the query's steps adds to a hit, as a
// share of the best hit's score; a hit scoring a fraction of a step's best gets that
// fraction of it.
var stepBonus = 0.2

// stepLead is what the best hit of a step led by an operation verb (stepVerbs: "read
// docs/CONTRIBUTING.md", "edit the one about naming") gains, as a share of the best hit's
// score, in a query of stepLeadSure steps or more (of two, only a clear best:
// stepLeadMargin): once, however many steps it leads.
var stepLead = 0.25

// stepTopic is the share of a hit's score on the clauses before a query's first
// verb-led step (its topic) that each verb-led step's score gains.
var stepTopic = 0.2

// stepAnaphora is the share of a hit's score on the clause before a verb-led step that
// the step gains when it holds a pronoun ("delete the variable, create a new one").
var stepAnaphora = 0.5

// stepLeadSure is the least number of steps of a query from which every verb-led
// step's best hit gains stepLead. In a task of fewer steps (two: rerankSteps reorders
// no fewer) only a best hit scoring stepLeadMargin times the step's second best in the
// window does, a step whose tool is clear: in "set app setting SQL_PWD on web app
// orders-api", appconfig_kv_set, barely ahead of the web app's settings tool, gains
// nothing.
const stepLeadSure = 3

// stepLeadMargin is how far a step's best hit must score above its second best in the
// window to gain stepLead in a task of fewer than stepLeadSure steps.
var stepLeadMargin = 1.2

// stepScratch holds the buffers of the reordering, kept in the pooled scratch.
type stepScratch struct {
	spans [maxSteps][2]int32 // the byte ranges of the query's clauses
	n     int                // clauses found; the query is split when n >= 2
	words [maxSteps]int      // content words of each clause
	led   [maxSteps]bool     // whether each clause starts with an operation verb
	pron  [maxSteps]bool     // whether each clause holds a pronoun (stepPronouns)
	terms []stepTerm
	hits  []Hit
	score []int64               // score[i*maxSteps+st]: hit i's score on step st, grown on first use
	ctx   []int64               // ctx[i*maxSteps+st]: what step st of hit i gains from other clauses
	lits  [maxLiterals][2]int32 // the ranges of query terms from quoted text (literals.go)
	litAt [maxLiterals][2]int32 // the byte ranges of that quoted text in the query
	nlit  int
	// paths are the ranges of query terms from URLs and paths (addPlain), npath how many.
	paths [maxLiterals][2]int32
	npath int
	// clits are the ranges of a clause's terms from quoted text (stepTerms).
	clits [maxLiterals][2]int32
	nclit int
	// cpaths are the ranges of a clause's terms from URLs and paths, ncpath how many.
	cpaths [maxLiterals][2]int32
	ncpath int
	// echo holds the terms of the query's URLs and paths that findEchoes found (the
	// request holds them outside: counted once), necho how many.
	echo  [maxEcho]uint32
	necho int
	// outside is findEchoes' scratch: the query's terms outside its URLs and paths.
	outside []uint32
	grammar bool     // whether the query's grammar is dropped (query.go's holdsContent)
	titled  bool     // whether the query got the hint of a thing named by its title (hints.go)
	hint    [2]int32 // the range of query terms of a hint (hints.go)
}

// A stepTerm is one posting list a step scores, with its weight in that step.
type stepTerm struct {
	id   uint32
	wt   float64
	step int
}

// splitSteps finds the clauses of query, if it has stepMinWords words or more, and
// reports whether there are two or more. Clauses end at punctuation followed by a space
// (",", ";", ":", ".", "!", "?") and before the words "and" and "then".
func (st *stepScratch) splitSteps(query string) bool {
	st.n = 0
	if countWords(query) < stepMinWords {
		return false
	}
	start := 0
	cut := func(end, next int) {
		if end > start && st.n < maxSteps {
			st.spans[st.n] = [2]int32{int32(start), int32(end)}
			st.n++
		} else if end > start {
			st.spans[maxSteps-1][1] = int32(end) // the last clause takes the rest
		}
		start = next
	}
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch c {
		case ',', ';', ':', '.', '!', '?':
			if i+1 == len(query) || query[i+1] == ' ' {
				cut(i, i+1)
			}
		case ' ':
			j := i + 1
			for _, w := range [...]string{"and ", "then "} {
				if len(query)-j >= len(w) && equalFoldASCII(query[j:j+len(w)], w) {
					if w == "and " && valueAround(query, i, j+len(w)) {
						break // "#45 and #46": one list of values
					}
					cut(i, j+len(w))
					i = j + len(w) - 1
					break
				}
			}
		}
	}
	cut(len(query), len(query))
	return st.n >= 2
}

// valueAround reports whether the word ending at byte end of query and the word starting
// at byte start are both numbers ("#45 and #46", "17 and 25"). Handles are not: "ask
// @lee and @kim to review" cut there measured better (github.long 0.882 -> 0.865).
func valueAround(query string, end, start int) bool {
	b := end
	for b > 0 && !isSpace(query[b-1]) {
		b--
	}
	e := start
	for e < len(query) && !isSpace(query[e]) {
		e++
	}
	return b < end && start < e && isValue(query[b:end]) && isValue(strings.TrimRight(query[start:e], ".,;:!?"))
}

// isValue reports whether w is a number or an issue's number (#45).
func isValue(w string) bool {
	if len(w) > 1 && w[0] == '#' {
		w = w[1:]
	}
	return w != "" && '0' <= w[0] && w[0] <= '9'
}

// equalFoldASCII reports whether a equals b, a lower-case ASCII string, in any case.
func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(b); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}

// stepWindowFor returns the number of hits to rank before reordering them, and whether
// query is split into steps: then k, or at least stepWindow+1+maxPairDocs (all of them
// when k <= 0), so that the hit after the window is the same whatever k, though addPairs
// brings hits into it.
func (s *scratch) stepWindowFor(query string, k int) (int, bool) {
	if !s.steps.splitSteps(query) {
		return k, false
	}
	if k <= 0 {
		return k, true
	}
	// One hit more than the window, as addPairs may grow it: the window's scores are kept
	// above that hit, whatever k.
	return max(k, stepWindow+1+maxPairDocs), true
}

// stepTerms analyses each clause of the query into s.steps.terms: the query's scored
// lists it holds, each with the weight a query of that clause alone gives it.
func (s *scratch) stepTerms(ix *Index, query string) {
	st := &s.steps
	st.terms = st.terms[:0]
	for c := 0; c < st.n; c++ {
		clause := query[st.spans[c][0]:st.spans[c][1]]
		s.an.reset()
		st.addClause(s.an, query, int(st.spans[c][0]), int(st.spans[c][1]))
		st.words[c] = 0
		st.led[c] = verbLed(clause) && !quotedAt(query, int(st.spans[c][0])) // "title 'feat: add export'" leads no step
		st.pron[c] = holdsPronoun(clause)
		for i := 0; i < s.an.n(); i++ {
			kind := s.an.kind[i]
			if st.echoes(s.an, st.cpaths[:st.ncpath], i, func(j int) uint32 { return termID(ix, s.an, j) }) {
				continue // a word of a URL or path the request says outside it: once (pathEcho)
			}
			if kind == termSurface && !st.led[c] {
				// A tenth of a word: not worth its lookups, but in a step led by a verb
				// it tells which of the step's tools is its best ("list the jobs").
				continue
			}
			w, _ := ix.queryWeight(kind)
			term := s.an.term(i)
			if st.grammar && isGrammar(kind, term, st.clauseQuoted(i)) {
				continue // as in the whole query (query.go)
			}
			if kind.isWord() {
				st.words[c]++
				for _, r := range relatedOf(s.an, i) {
					if rid, ok := ix.terms[string(r)]; ok {
						s.addStepTerm(rid, relatedWeight*w, c)
					}
				}
			}
			if id, ok := ix.terms[string(term)]; ok {
				s.addStepTerm(id, w, c)
			}
		}
	}
	// A verb phrase may span clauses ("ask @lee and @kim to review"): it counts in
	// the step its verb is in.
	phraseWeights(query, func(at int, _ string, to [][]byte, w float64) { // lexicon.go
		c := 0
		for c+1 < st.n && int(st.spans[c][1]) <= at {
			c++
		}
		for _, t := range to {
			if rid, ok := ix.terms[string(t)]; ok {
				s.addStepTerm(rid, w, c)
			}
		}
	})
	// A thing named by its title implies a step of its own, finding it, which no clause
	// says (hints.go): its hint word is one more step.
	if st.titled && st.n < maxSteps {
		if id, ok := ix.terms[hintStems[hintTitle]]; ok {
			c := st.n
			st.n++
			st.spans[c] = [2]int32{int32(len(query)), int32(len(query))}
			// Not verb-led: led, the check half of tune2 long lost (TUNING.md).
			st.words[c], st.led[c], st.pron[c] = stepMinContent, false, false
			s.addStepTerm(id, hintWeight, c)
		}
	}
}

// phrasePairWeight is the weight in a step of the pair of words a verb phrase names
// (addPairs), as a pair of the query's own words weighs (Index params' Pair).
var phrasePairWeight = 0.5

// addClause analyses the clause query[from:to], its quoted text (as addLiterals read the
// whole query) on its own, recording those terms' ranges in st.clits, and its URLs and
// paths on their own (as addPlain), recording theirs in st.cpaths.
func (st *stepScratch) addClause(an *analyzer, query string, from, to int) {
	st.nclit, st.ncpath = 0, 0
	pos := from
	for _, q := range st.litAt[:st.nlit] {
		start, end := max(int(q[0]), from), min(int(q[1]), to)
		if start >= end {
			continue
		}
		if pos < start {
			st.addClausePlain(an, query[pos:start])
		}
		n := an.n()
		an.add(query[start:end])
		st.clits[st.nclit] = [2]int32{int32(n), int32(an.n())}
		st.nclit++
		pos = end
	}
	if pos < to {
		st.addClausePlain(an, query[pos:to])
	}
}

// addClausePlain analyses text, unquoted text of a clause, each word of it holding a
// slash on its own (as addPlain), recording those terms' ranges in st.cpaths. A query
// none of whose URLs or paths repeats its words (st.necho == 0) needs no ranges.
func (st *stepScratch) addClausePlain(an *analyzer, text string) {
	if st.necho == 0 {
		an.add(text)
		return
	}
	addPathWords(an, text, &st.cpaths, &st.ncpath)
}

// echoes reports whether term i of an, the analysed query or a clause of it, is in one
// of paths, the ranges of its URLs' and paths' terms, and is one of st.echo, or the
// word as written or a pair of one (its parent), term reading a term's id: the one
// rule by which the whole query (pathEcho) and each step count such a word once.
func (st *stepScratch) echoes(an *analyzer, paths [][2]int32, i int, term func(int) uint32) bool {
	if st.necho == 0 || !inRanges(paths, i) {
		return false
	}
	if p := an.parent[i]; p >= 0 {
		return st.echoes(an, paths, int(p), term)
	}
	id := term(i)
	return id != noTerm && slices.Contains(st.echo[:st.necho], id)
}

// termID returns the id of term j of an in ix, noTerm when ix lacks it.
func termID(ix *Index, an *analyzer, j int) uint32 {
	if id, ok := ix.terms[string(an.term(j))]; ok {
		return id
	}
	return noTerm
}

// clauseQuoted reports whether term i of the clause addClause analysed comes from
// quoted text.
func (st *stepScratch) clauseQuoted(i int) bool { return inRanges(st.clits[:st.nclit], i) }

// addStepTerm adds the lists of term id the query scores to step c, at weight w times
// their idf.
func (s *scratch) addStepTerm(id uint32, w float64, c int) {
	for _, q := range s.qterms {
		if q.id == id || (q.param && q.partner == id) {
			s.steps.terms = append(s.steps.terms, stepTerm{id: q.id, wt: q.wt / q.qtf * w, step: c})
		}
	}
}

// rerankSteps reorders hits, the best of the whole query, and returns them. The window
// reordered is the best stepWindow hits. Each hit of the window gains the step bonus:
// for each step, its score on that step's words (and, for a verb-led step, the share of
// other clauses context gives it) over the best such score in the window, times
// stepBonus and the best hit's score; the largest over steps counts. The best hit of
// each verb-led step gains stepLead, and what a hit gains from several steps at once
// counts stepSpread less. The window is then sorted by these sums, which become the
// scores; the hits after it keep their order.
func (s *scratch) rerankSteps(ix *Index, query string, hits []Hit) []Hit {
	st := &s.steps
	if len(hits) < 2 {
		return hits
	}
	s.stepTerms(ix, query)
	n := min(len(hits), stepWindow)
	hits, n = s.addPairs(ix, query, hits, n)
	slices.SortFunc(st.terms, func(a, b stepTerm) int { return cmp.Compare(a.id, b.id) })
	if len(st.score) < n*maxSteps {
		st.score = make([]int64, (stepWindow+maxPairDocs)*maxSteps)
		st.ctx = make([]int64, (stepWindow+maxPairDocs)*maxSteps)
	}
	// best is each step's best score in the window, context included; own its best on
	// the step's words alone: a step whose words no hit holds has no best hit.
	var best, own [maxSteps]int64
	for i := range n {
		row := st.score[i*maxSteps : (i+1)*maxSteps]
		ctx := st.ctx[i*maxSteps : (i+1)*maxSteps]
		clear(row)
		d := uint32(hits[i].Doc)
		var sat float32
		for j, t := range st.terms {
			if j == 0 || t.id != st.terms[j-1].id {
				sat = ix.lookup(t.id, d) // terms are sorted by id: one lookup each
			}
			if sat != 0 {
				row[t.step] += contribution(t.wt, sat)
			}
		}
		st.context(row, ctx)
		for c := range st.n {
			best[c] = max(best[c], row[c]+ctx[c])
			own[c] = max(own[c], row[c])
		}
	}
	valid := 0
	for c := range st.n {
		if st.words[c] >= stepMinContent && own[c] > 0 {
			valid++
		}
	}
	if valid < 2 {
		return hits
	}
	top := hits[0].Score * scoreScale
	// lead marks the best hit of each step led by a verb, the first of equals.
	var lead [stepWindow + maxPairDocs]bool
	for c := range st.n {
		if !st.led[c] || st.words[c] < stepMinContent || own[c] == 0 {
			continue
		}
		if valid < stepLeadSure && !st.clearBest(c, n, best[c]) {
			continue
		}
		for i := range n {
			if k := i*maxSteps + c; st.score[k]+st.ctx[k] == best[c] {
				lead[i] = true
				break
			}
		}
	}
	after := int64(-1) // the score of the first hit after the window
	if n < len(hits) {
		after = int64(hits[n].Score * scoreScale)
	}
	for i := range n {
		row := st.score[i*maxSteps : (i+1)*maxSteps]
		ctx := st.ctx[i*maxSteps : (i+1)*maxSteps]
		bonus, most := 0.0, int64(0)
		for c := range st.n {
			most = max(most, row[c])
			if st.words[c] >= stepMinContent && own[c] > 0 {
				bonus = max(bonus, float64(row[c]+ctx[c])/float64(best[c]))
			}
		}
		v := int64(hits[i].Score*scoreScale) + int64(float64(stepBonus*top)*bonus)
		if lead[i] {
			v += int64(stepLead * top)
		}
		if spread := int64(hits[i].Score*scoreScale) - most; spread > 0 {
			// What a hit gains from the words of several steps at once counts less.
			v -= int64(stepSpread * float64(spread))
		}
		// A hit of the window stays above the hits after it.
		hits[i].Score = float64(max(v, after+1)) / scoreScale
	}
	w := hits[:n]
	// Insertion sort: the window is small, and sorting must not allocate.
	for i := 1; i < len(w); i++ {
		for j := i; j > 0 && ix.hitBefore(w[j], w[j-1]); j-- {
			w[j], w[j-1] = w[j-1], w[j]
		}
	}
	return hits
}

// clearBest reports whether the best score on step c of the window's n hits, best,
// reaches stepLeadMargin times the second best (an equal score of another hit counting
// as the second).
func (st *stepScratch) clearBest(c, n int, best int64) bool {
	second, seen := int64(0), false
	for i := range n {
		v := st.score[i*maxSteps+c] + st.ctx[i*maxSteps+c]
		if v == best && !seen {
			seen = true
			continue
		}
		second = max(second, v)
	}
	return float64(best) >= stepLeadMargin*float64(second)
}

// addPairs adds to the step of each verb phrase naming a tool's pair of words ("open
// an issue": create issue, phrasePairs) that pair, at phrasePairWeight, and brings the
// allowed docs holding it into the window, hits[:n], at most maxPairDocs of them, with
// their score on the whole query: a step's tool that the other steps' tools crowd out
// of the window. It returns the hits and the window's new length. The pair is not a
// term of the whole query: it would raise the best hit's score, and with it the
// relevance floor the other steps' tools must reach.
func (s *scratch) addPairs(ix *Index, query string, hits []Hit, n int) ([]Hit, int) {
	if phrasePairWeight == 0 {
		return hits, n
	}
	st := &s.steps
	added := 0
	phrasePairs(query, func(at int, pair []byte) {
		id, ok := ix.terms[string(pair)]
		if !ok || ix.denseSet(id) != nil {
			return // no such pair, or one too common to name a tool
		}
		df := ix.allowedDF(id, s.allowed)
		if df == 0 {
			return
		}
		c := 0
		for c+1 < st.n && int(st.spans[c][1]) <= at {
			c++
		}
		wt := idf(float64(s.nAllowed), df) * phrasePairWeight * scoreScale
		st.terms = append(st.terms, stepTerm{id: id, wt: wt, step: c})
		for _, d := range ix.docs[ix.off[id]:ix.off[id+1]] {
			if added == maxPairDocs {
				return
			}
			if !s.allowed.Has(int(d)) {
				continue
			}
			i := slices.IndexFunc(hits, func(h Hit) bool { return h.Doc == int(d) })
			if i >= 0 && i < n {
				continue
			}
			if i < 0 {
				hits = append(hits, Hit{Doc: int(d), Score: float64(s.wholeScore(ix, d)) / scoreScale})
				i = len(hits) - 1
			}
			h := hits[i]
			copy(hits[n+1:i+1], hits[n:i])
			hits[n] = h
			n++
			added++
		}
	})
	return hits, n
}

// wholeScore returns doc d's score on the whole query, in fixed point.
func (s *scratch) wholeScore(ix *Index, d uint32) int64 {
	v := int64(0)
	for _, q := range s.qterms {
		if sat := ix.lookup(q.id, d); sat != 0 {
			v += contribution(q.wt, sat)
		}
	}
	return v
}

// context sets ctx, from a hit's scores on the clauses (row), to what each verb-led
// step gains from the words of other clauses, which it reads as the step's own when
// choosing its best hit and measuring its bonus (the spread counts row alone):
// stepTopic of the score on the task's topic, the clauses before its first verb-led
// step ("On cluster adx-analytics, database telemetry: list the tables"); and, for a
// step holding a pronoun ("create a new one", "read them"), stepAnaphora of the score
// on the clause before it, which names what the pronoun stands for.
func (st *stepScratch) context(row, ctx []int64) {
	clear(ctx)
	topic := int64(0)
	for c := 0; c < st.n && !st.led[c]; c++ {
		if st.words[c] >= stepMinContent {
			topic += row[c]
		}
	}
	for c := range st.n {
		if !st.led[c] {
			continue
		}
		v := stepTopic * float64(topic)
		if st.pron[c] && c > 0 {
			v += stepAnaphora * float64(row[c-1])
		}
		ctx[c] = int64(v)
	}
}

// hitBefore reports whether a ranks before b: a higher score, or an equal one and a
// name first in byte order.
func (ix *Index) hitBefore(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return ix.order[a.Doc] < ix.order[b.Doc]
}

// appendSteps reorders s.steps.hits, the best of a query split into steps, and appends
// the best k of them (all when k <= 0) to dst.
func (s *scratch) appendSteps(ix *Index, dst []Hit, query string, k int) []Hit {
	hits := s.rerankSteps(ix, query, s.steps.hits)
	s.steps.hits = hits
	if k > 0 && len(hits) > k {
		hits = hits[:k]
	}
	return append(dst, hits...)
}
