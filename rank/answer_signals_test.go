package rank_test

// This file holds TestGateSignals3, the eighth pass's measurement of no-answer signals
// (TUNING.md, "Eighth pass: the no-answer gate"), beside the gate's trades
// (answer_gate_test.go).

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// A signalRow is what TestGateSignals3 reads of one query.
type signalRow struct {
	pool                  string
	noMatch, empty, found bool
	ndcg, r5              float64
	words                 int
	ratio                 float64 // best score / informative weight
	// verbObject: led by an operation verb that some allowed tool names in its name or
	// title, while the best hit holds the verb nowhere, and no tool naming the verb holds
	// any of the words the best hit holds in its name or title (the query's object).
	verbObject bool
	// ownVerb: as verbObject, with the verb's own stem (not its synonyms, related words or
	// phrase) in the name or title of some allowed tool.
	ownVerb bool
	// textVerb: as ownVerb, reading name, title and description alike: the verb's own stem
	// in the text of some allowed tool, the best hit holding none of the verb's terms in
	// its text, objects the words the best hit holds in its text, and no tool holding the
	// verb's stem and an object in its text.
	textVerb bool
	// satVerb[i]: as ownVerb, a word counting as in a name or title when its saturation
	// in the doc reaches satLevels[i] (the index keeps no fields).
	satVerb    [len(satLevels)]bool
	unknownObj int     // words after the verb no allowed doc holds, nor a related word: letters, unquoted, outside paths
	cover      float64 // share of the informative weight (idf of each word) the best hit holds
	query      string
}

// signalRows computes the rows of TestGateSignals3 over sets.
func signalRows(sets []gateSet) []signalRow {
	var rows []signalRow
	for _, ds := range sets {
		ix := rank.NewIndex(ds.docs)
		all := allOf(len(ds.docs))
		for _, q := range ds.qs {
			rows = append(rows, readSignals(ix, all, ds, q))
		}
	}
	return rows
}

// readSignals computes the row of query q of ds, over allowed docs all.
func readSignals(ix *rank.Index, all rank.Set, ds gateSet, q rankeval.Query) signalRow {
	hits := ix.Search(nil, q.Query, all, rankeval.K)
	got := names(ds.docs, hits)
	m := rankeval.Score(got, q.Relevant)
	g := ix.GateStats(q.Query, all)
	r := signalRow{pool: ds.pool, noMatch: len(q.Relevant) == 0, empty: len(hits) == 0,
		found: len(q.Relevant) > 0 && m.Recall10 > 0, ndcg: m.NDCG10, r5: m.Recall5, words: g.Words, query: ds.name + ": " + q.Query}
	if len(hits) == 0 {
		return r
	}
	r.ratio = g.Top / max(g.Info, 1e-9)
	best := ds.docs[hits[0].Doc]
	groups := ix.WordGroups(q.Query, all, hits[:1], ds.docs)
	lead := -1
	for i, gr := range groups {
		if g.LeadVerb && slices.Contains(g.LeadTerms, gr.Word) {
			lead = i
			break
		}
	}
	heaviest, sum, held := 0.0, 0.0, 0.0
	for _, gr := range groups {
		heaviest = max(heaviest, gr.IDF)
	}
	var objects []int // words the best hit holds in its name or title
	for i, gr := range groups {
		w := gr.IDF
		if gr.DF == 0 {
			w = heaviest
		}
		sum += w
		if gr.Fields[0] != 0 {
			held += gr.IDF
		}
		if i != lead && gr.DF > 0 && gr.Fields[0]&3 != 0 {
			objects = append(objects, i)
		}
		if i != lead && gr.DF == 0 && !gr.Related && !gr.Quoted && !gr.Path && lettersOnly(gr.Word) {
			r.unknownObj++
		}
	}
	r.cover = held / max(sum, 1e-9)
	if lead < 0 {
		return r
	}
	r.textVerb = textVerbObject(ix, ds.docs, best, g.LeadTerms, groups, lead)
	for li, level := range satLevels {
		r.satVerb[li] = satVerbObject(ix, ds.docs, hits[0].Doc, g.LeadTerms, groups, lead, level)
	}
	r.verbObject, r.ownVerb = nameVerbObject(ix, ds.docs, best, g.LeadTerms, groups, lead, objects)
	return r
}

// textVerbObject is signalRow.textVerb: groups[lead] is the lead verb, leadTerms its
// terms, best the best hit.
func textVerbObject(ix *rank.Index, docs []rank.Doc, best rank.Doc, leadTerms []string, groups []rank.WordGroup, lead int) bool {
	var textObjects []int
	for i, gr := range groups {
		if i != lead && gr.DF > 0 && gr.Fields[0]&7 != 0 {
			textObjects = append(textObjects, i)
		}
	}
	if ix.TermFields(best, leadTerms)&7 != 0 || len(textObjects) == 0 {
		return false
	}
	named, cooc := false, false
	for _, d := range docs {
		if ix.TermFields(d, []string{groups[lead].Word})&7 == 0 {
			continue
		}
		named = true
		for _, i := range textObjects {
			if ix.TermFields(d, groups[i].GroupTerms())&7 != 0 {
				cooc = true
			}
		}
	}
	return named && !cooc
}

// nameVerbObject returns signalRow.verbObject and signalRow.ownVerb: objects are the
// groups the best hit holds in its name or title, groups[lead] the lead verb.
func nameVerbObject(ix *rank.Index, docs []rank.Doc, best rank.Doc, leadTerms []string, groups []rank.WordGroup, lead int, objects []int) (verbObject, ownVerb bool) {
	if ix.TermFields(best, leadTerms) != 0 || len(objects) == 0 {
		return false, false
	}
	named, cooc := false, false
	for _, d := range docs {
		if ix.TermFields(d, leadTerms)&3 == 0 {
			continue
		}
		named = true
		ownVerb = ownVerb || ix.TermFields(d, []string{groups[lead].Word})&3 != 0
		for _, i := range objects {
			if ix.TermFields(d, groups[i].GroupTerms()) != 0 {
				cooc = true
			}
		}
	}
	verbObject = named && !cooc
	return verbObject, ownVerb && verbObject
}

// satLevels are the saturations tried as "in a name or title" (signalRow.satVerb).
var satLevels = [...]float32{0.5, 0.55, 0.6, 0.65, 0.7}

// satVerbObject is signalRow.ownVerb with a saturation of level or more standing for a
// word in a name or title.
func satVerbObject(ix *rank.Index, docs []rank.Doc, best int, lead []string, groups []rank.WordGroup, at int, level float32) bool {
	holds := func(d int, terms []string, strong bool) bool {
		for _, t := range terms {
			sat, any := ix.Sat(t, d)
			if strong && sat >= level || !strong && any {
				return true
			}
		}
		return false
	}
	if holds(best, lead, false) {
		return false
	}
	var objects []int
	for i, gr := range groups {
		if i != at && gr.DF > 0 && holds(best, gr.GroupTerms(), true) {
			objects = append(objects, i)
		}
	}
	if len(objects) == 0 {
		return false
	}
	named := false
	for d := range docs {
		if !holds(d, []string{groups[at].Word}, true) {
			continue
		}
		named = true
		for _, i := range objects {
			if holds(d, groups[i].GroupTerms(), false) {
				return false
			}
		}
	}
	return named
}

// lettersOnly reports whether w is three letters a-z or more.
func lettersOnly(w string) bool {
	return len(w) >= 3 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == ""
}

// printRule prints what rule does on rows (TestGateSignals3), pool by pool: npool
// holds each pool's number of answered queries.
func printRule(rows []signalRow, npool map[string]int, label string, rule func(r signalRow) bool) {
	type acc struct {
		nm, empty, lost int
		ndcg, r5        float64
	}
	pools := map[string]*acc{}
	for _, r := range rows {
		p := pools[r.pool]
		if p == nil {
			p = &acc{}
			pools[r.pool] = p
		}
		gate := !r.empty && rule(r)
		if gate && label == os.Getenv("RANK_GATE_SHOW") && !strings.HasPrefix(r.pool, "CHECK") {
			fmt.Printf("  emptied (no-match %v, found %v): %s\n", r.noMatch, r.found, r.query)
		}
		switch {
		case r.noMatch:
			p.nm++
			p.empty += b2i(r.empty || gate)
		case gate:
			p.lost += b2i(r.found)
			p.ndcg += r.ndcg
			p.r5 += r.r5
		}
	}
	fmt.Printf("%-44s", label)
	for _, k := range slices.Sorted(maps.Keys(pools)) {
		p := pools[k]
		if p.nm > 0 {
			fmt.Printf(" | %s empty %d/%d", k, p.empty, p.nm)
		}
		if n := npool[k]; n > 0 && p.lost > 0 {
			fmt.Printf(" | %s lost %d -%.4f/-%.4f", k, p.lost, p.ndcg/float64(n), p.r5/float64(n))
		}
	}
	fmt.Println()
}

// TestGateSignals3 prints, for RANK_GATE=3, what the eighth pass's no-answer signals
// (TUNING.md) would do on the pools of gateSets: a verb-object mismatch (signalRow), a
// word after the verb that no allowed doc knows, and the best hit's share of the
// informative weight, alone, under a share of the informative weight, in queries of at
// most some words, and together. For each pool: its no-match queries answered empty
// (today's and the rule's), the answered queries emptied (with a relevant tool in the top
// 10) and the nDCG@10 / Recall@5 they take off the pool. RANK_GATE_SHOW=label prints
// the queries a rule empties (never those of the checked pools); RANK_GATE_CHECK=1
// prints the one rule checked, on the checked pools too (gateSets).
func TestGateSignals3(t *testing.T) {
	if os.Getenv("RANK_GATE") != "3" {
		t.Skip("set RANK_GATE=3")
	}
	check := os.Getenv("RANK_GATE_CHECK") != ""
	rows := signalRows(gateSets(t, check))
	npool := map[string]int{}
	for _, r := range rows {
		if !r.noMatch {
			npool[r.pool]++
		}
	}
	try := func(label string, rule func(r signalRow) bool) { printRule(rows, npool, label, rule) }
	try("today", func(signalRow) bool { return false })
	if check {
		// The one rule checked on the held-out pools, chosen on the tuning pools first.
		try("own verb-object, best < 0.2, <= 8 words", func(r signalRow) bool {
			return r.ownVerb && r.ratio < 0.2 && r.words <= 8
		})
		return
	}
	for _, words := range []int{6, 8, 12, 1000} {
		for _, share := range []float64{0.2, 0.3, 0.5, 100} {
			try(fmt.Sprintf("verb-object, best < %.1f, <= %d words", share, words), func(r signalRow) bool {
				return r.verbObject && r.ratio < share && r.words <= words
			})
		}
	}
	for _, words := range []int{6, 8, 12, 1000} {
		for _, share := range []float64{0.2, 0.3, 0.5, 100} {
			try(fmt.Sprintf("own verb-object, best < %.1f, <= %d words", share, words), func(r signalRow) bool {
				return r.ownVerb && r.ratio < share && r.words <= words
			})
			try(fmt.Sprintf("text verb-object, best < %.1f, <= %d words", share, words), func(r signalRow) bool {
				return r.textVerb && r.ratio < share && r.words <= words
			})
			for li, level := range satLevels {
				try(fmt.Sprintf("sat %.2f verb-object, best < %.1f, <= %d words", level, share, words), func(r signalRow) bool {
					return r.satVerb[li] && r.ratio < share && r.words <= words
				})
			}
		}
	}
	for _, n := range []int{1, 2} {
		for _, words := range []int{4, 6, 8, 1000} {
			for _, share := range []float64{0.1, 0.2, 0.3} {
				try(fmt.Sprintf("%d unknown, best < %.1f, <= %d words", n, share, words), func(r signalRow) bool {
					return r.unknownObj >= n && r.ratio < share && r.words <= words
				})
			}
		}
	}
	for _, c := range []float64{0.3, 0.4, 0.5} {
		for _, words := range []int{4, 6, 8, 1000} {
			try(fmt.Sprintf("cover < %.1f, <= %d words", c, words), func(r signalRow) bool { return r.cover < c && r.words <= words })
			try(fmt.Sprintf("cover < %.1f, best < 0.2, <= %d words", c, words), func(r signalRow) bool {
				return r.cover < c && r.ratio < 0.2 && r.words <= words
			})
		}
	}
	for _, words := range []int{6, 8, 12} {
		try(fmt.Sprintf("verb-object or unknown, best < 0.2, <= %d", words), func(r signalRow) bool {
			return (r.verbObject || r.unknownObj > 0) && r.ratio < 0.2 && r.words <= words
		})
		try(fmt.Sprintf("verb-object and unknown, <= %d", words), func(r signalRow) bool {
			return r.verbObject && r.unknownObj > 0 && r.words <= words
		})
	}
}
