package rank

import (
	"math"
	"slices"
	"strings"
)

// A Match is one query term's share of a hit's score, as Explain reports it.
type Match struct {
	// Term is the term as indexed: a stem ("creat"), a word as written, two words of a
	// pair ("pull requests"), or the whole query ("list group wiki pages").
	Term string
	// From says where the query got it: "word", "synonym", "surface" (a word as
	// written), "pair", "related" (a related word), "whole" (the whole query) or
	// FromSteps.
	From string
	// Fields are the fields of the doc holding the term: "name", "title",
	// "description", "params".
	Fields []string
	// Score is what the term adds to the doc's score; a Match's scores sum to the Hit's.
	Score float64
}

// FromSteps is the From of the Match, without a Term or Fields, that Explain adds for a
// long query read as several steps: what reordering the best hits by the steps added to
// (or took from) the doc's score (see the package doc).
const FromSteps = "steps"

// Explain returns why doc d ranks as it does for query over allowed: each query term it
// matches, where the term comes from, which of d's fields hold it and what it adds to
// its score, largest first (then by term). doc must be the Doc d was built from; its
// fields are read again to name them. A doc that matches nothing gets none. Explain is
// for tuning and for answering "why this tool": unlike Search, it allocates.
func (ix *Index) Explain(query string, allowed Set, d int, doc Doc) []Match {
	if d < 0 || d >= ix.n {
		return nil
	}
	out, allowed, ok := ix.termMatches(query, allowed, d, doc)
	if !ok {
		return nil
	}
	// The scratch is back in the pool: the search of stepAdjustment takes it.
	if adj := ix.stepAdjustment(query, allowed, d, out); adj != 0 {
		out = append(out, Match{From: FromSteps, Score: adj})
	}
	slices.SortFunc(out, func(a, b Match) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.Term, b.Term)
	})
	return out
}

// termMatches returns the matches of each of query's terms in doc d, and allowed as
// clipped to the index; false when no allowed doc can match.
func (ix *Index) termMatches(query string, allowed Set, d int, doc Doc) ([]Match, Set, bool) {
	s := ix.getScratch()
	defer ix.putScratch(s)
	allowed, ok := s.prepare(ix, query, allowed)
	if !ok {
		return nil, allowed, false
	}
	names, left := s.termNames(ix, query)
	if left > 0 {
		// A term found nowhere termNames looks, which should not happen: walk the
		// index's terms for it.
		for t, id := range ix.terms {
			if v, want := names[id]; want && v == "" {
				names[id] = t
			}
		}
	}
	fields := ix.docFields(doc)
	var out []Match
	for _, q := range s.qterms {
		sat := ix.lookup(q.id, uint32(d))
		if sat == 0 {
			continue
		}
		id := q.id
		if q.param {
			id = q.partner
		}
		term := names[id]
		m := Match{Term: displayTerm(term), From: q.from.String(), Score: float64(contribution(q.wt, sat)) / scoreScale}
		if len(term) > 0 && term[0] == wholeMark {
			m.From = "whole"
		}
		for f, terms := range fields {
			if terms[term] {
				m.Fields = append(m.Fields, fieldNames[f])
			}
		}
		out = append(out, m)
	}
	return out, allowed, true
}

// termNames returns the term of each of the query's lists (a list of docs holding a
// term in their parameters alone under that term's id), read where queryTerms found
// them: the query's analysis, which s.an still holds, its words' related words, and its
// verb phrases; left is the number of lists whose term it did not find there.
func (s *scratch) termNames(ix *Index, query string) (names map[uint32]string, left int) {
	names = make(map[uint32]string, len(s.qterms))
	for _, q := range s.qterms {
		id := q.id
		if q.param {
			id = q.partner
		}
		names[id] = ""
	}
	left = len(names)
	name := func(t []byte) {
		if id, ok := ix.terms[string(t)]; ok {
			if v, want := names[id]; want && v == "" {
				names[id] = string(t)
				left--
			}
		}
	}
	for i := range s.an.n() {
		t := s.an.term(i)
		name(t)
		for _, r := range related[string(t)] {
			name(r)
		}
	}
	phraseMatchesAt(query, func(_ int, _ string, to [][]byte) {
		for _, t := range to {
			name(t)
		}
	})
	return names, left
}

// stepAdjustment returns what the reordering of a long query's hits by its steps
// (rerank.go) changed in d's score beyond the terms of matches, or 0 when the query is
// not split into steps or d is not a hit.
func (ix *Index) stepAdjustment(query string, allowed Set, d int, matches []Match) float64 {
	var st stepScratch
	if !st.splitSteps(query) {
		return 0
	}
	// Only the window's hits are reordered (rerank.go): a doc after it keeps its score,
	// and the window, stepWindow hits and the maxPairDocs addPairs may bring, is the same
	// whatever k.
	var buf [stepWindow + maxPairDocs + 1]Hit
	for _, h := range ix.Search(buf[:0], query, allowed, len(buf)) {
		if h.Doc != d {
			continue
		}
		sum := 0.0
		for _, m := range matches {
			sum += m.Score
		}
		if diff := h.Score - sum; math.Abs(diff) > 1e-9 {
			return diff
		}
		return 0
	}
	return 0
}

var fieldNames = [numFields]string{"name", "title", "description", "params"}

// docFields returns the terms of each field of doc, analysed as the index analyses them.
func (ix *Index) docFields(doc Doc) [numFields]map[string]bool {
	p := ix.p
	an := newAnalyzer(p.Off)
	var out [numFields]map[string]bool
	for f, text := range [numFields]string{doc.Name, doc.Title, doc.Description, doc.paramText()} {
		an.reset()
		an.pairs = p.Pair > 0 && f < fieldDesc
		an.surface = p.Surf > 0 && f != fieldParams
		an.add(text)
		if f == fieldName && p.Whole {
			an.addWhole()
		}
		out[f] = make(map[string]bool, an.n())
		for i := range an.n() {
			out[f][string(an.term(i))] = true
		}
	}
	return out
}

// displayTerm returns term without its pair or whole-name mark.
func displayTerm(term string) string {
	if len(term) > 0 && (term[0] == pairMark || term[0] == wholeMark) {
		return term[1:]
	}
	return term
}

func (s source) String() string {
	switch s {
	case fromSynonym:
		return "synonym"
	case fromSurface:
		return "surface"
	case fromPair:
		return "pair"
	case fromRelated:
		return "related"
	}
	return "word"
}
