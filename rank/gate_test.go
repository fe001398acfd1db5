package rank_test

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// TestGateSignals prints, for RANK_GATE=1, what no-answer rules beyond the gate would
// do on the tuning sets (issue 15): for each rule, the share of their 111 no-match
// queries then answered empty, and how many answered queries (the generated typo ones
// included) with a relevant tool in their top 10 it would empty. The rules gate a query
// whose best hit scores under a share of its informative weight and that has a novel
// word, or whose first word is in no name, title or description (rank.GateStat), or
// both, among queries of at most some words.
func TestGateSignals(t *testing.T) {
	if os.Getenv("RANK_GATE") == "" {
		t.Skip("set RANK_GATE=1")
	}
	type row struct {
		g       rank.GateStat
		noMatch bool
		empty   bool // answered empty today
		found   bool // a relevant tool in the top 10 today
	}
	var rows []row
	for _, ds := range loadKindSets(t, false) {
		ix := rank.NewIndex(ds.docs)
		all := allOf(len(ds.docs))
		r := rankeval.Ours(ds.docs)
		qs := gateQueries(ds)
		for _, q := range qs {
			got := r(q.Query, rankeval.K)
			rows = append(rows, row{ix.GateStats(q.Query, all), len(q.Relevant) == 0, len(got) == 0,
				len(q.Relevant) > 0 && rankeval.Score(got, q.Relevant).Recall10 > 0})
		}
	}
	try := func(label string, gate func(g rank.GateStat) bool) {
		nm, empty, lost := 0, 0, 0
		for _, r := range rows {
			switch {
			case r.noMatch:
				nm++
				if r.empty || gate(r.g) {
					empty++
				}
			case r.found && gate(r.g):
				lost++
			}
		}
		fmt.Printf("%-36s answered empty %.2f (%d of %d), answered queries lost %d\n", label, float64(empty)/float64(max(nm, 1)), empty, nm, lost)
	}
	under := func(g rank.GateStat, share float64) bool { return g.Info > 0 && g.Top < share*g.Info }
	try("today (gate 0.03)", func(rank.GateStat) bool { return false })
	for _, share := range []float64{0.05, 0.1, 0.15, 0.2, 0.3} {
		try(fmt.Sprintf("best < %.2f info", share), func(g rank.GateStat) bool { return under(g, share) })
	}
	for _, share := range []float64{0.1, 0.2, 0.3, 0.5} {
		for _, words := range []int{3, 4, 5, 6, 100} {
			try(fmt.Sprintf("novel, best < %.2f, <= %d words", share, words), func(g rank.GateStat) bool {
				return g.Novel > 0 && g.Words <= words && under(g, share)
			})
		}
	}
	for _, share := range []float64{0.05, 0.1, 0.15, 0.2, 0.3} {
		for _, words := range []int{4, 6, 100} {
			try(fmt.Sprintf("lead, best < %.2f, <= %d words", share, words), func(g rank.GateStat) bool {
				return g.LeadUnmatched && g.Words <= words && under(g, share)
			})
		}
	}
	for _, share := range []float64{0.1, 0.2, 0.3, 0.5} {
		for _, words := range []int{4, 6, 100} {
			try(fmt.Sprintf("lead and novel, best < %.2f, <= %d words", share, words), func(g rank.GateStat) bool {
				return g.LeadUnmatched && g.Novel > 0 && g.Words <= words && under(g, share)
			})
		}
	}
}

// TestGateSignals2 prints, for RANK_GATE=2, what three more no-answer rules would do on
// the tuning sets, as TestGateSignals does: a query led by an operation verb (rerank's
// stepVerbs) that no allowed tool's name or title holds, nor its synonyms or related
// words ("transfer this repository", "rename the repository"); the share of the query's
// own words that the best hit matches in its name or title; and whether the best three
// hits owe most of their score to the same term (agreement on one word).
func TestGateSignals2(t *testing.T) {
	if os.Getenv("RANK_GATE") != "2" {
		t.Skip("set RANK_GATE=2")
	}
	rows := gateRows(t)
	try := func(label string, gate func(r gateRow) bool) {
		nm, empty, lost := 0, 0, 0
		for _, r := range rows {
			switch {
			case r.noMatch:
				nm++
				if r.empty || gate(r) {
					empty++
				}
			case r.found && gate(r):
				lost++
			}
		}
		fmt.Printf("%-48s answered empty %.2f (%d of %d), answered queries lost %d\n", label, float64(empty)/float64(max(nm, 1)), empty, nm, lost)
	}
	under := func(g rank.GateStat, share float64) bool { return g.Info > 0 && g.Top < share*g.Info }
	if os.Getenv("RANK_GATE_SHOW") != "" {
		for _, r := range rows {
			if r.unnamed && r.g.Words <= 4 && (r.found || r.noMatch && !r.empty) {
				fmt.Printf("unnamed found=%v %s %v\n", r.found, r.query, r.g.LeadTerms)
			}
		}
	}
	try("today", func(gateRow) bool { return false })
	for _, words := range []int{4, 6, 8, 100} {
		try(fmt.Sprintf("verb unnamed, <= %d words", words), func(r gateRow) bool { return r.unnamed && r.g.Words <= words })
		for _, share := range []float64{0.1, 0.2, 0.3} {
			try(fmt.Sprintf("verb unnamed, best < %.2f, <= %d words", share, words), func(r gateRow) bool {
				return r.unnamed && r.g.Words <= words && under(r.g, share)
			})
		}
	}
	for _, c := range []float64{0.2, 0.34, 0.5} {
		for _, share := range []float64{0.1, 0.2, 0.3} {
			try(fmt.Sprintf("cover < %.2f, best < %.2f", c, share), func(r gateRow) bool { return r.cover < c && under(r.g, share) })
			try(fmt.Sprintf("cover < %.2f, best < %.2f, <= 6 words", c, share), func(r gateRow) bool {
				return r.cover < c && under(r.g, share) && r.g.Words <= 6
			})
		}
	}
	for _, share := range []float64{0.1, 0.2, 0.3} {
		try(fmt.Sprintf("agree, best < %.2f, <= 6 words", share), func(r gateRow) bool { return r.agree && under(r.g, share) && r.g.Words <= 6 })
		try(fmt.Sprintf("agree, cover < 0.34, best < %.2f", share), func(r gateRow) bool { return r.agree && r.cover < 0.34 && under(r.g, share) })
		try(fmt.Sprintf("unnamed or cover<0.2, best < %.2f, <= 6 words", share), func(r gateRow) bool {
			return (r.unnamed || r.cover < 0.2) && under(r.g, share) && r.g.Words <= 6
		})
	}
}

// A gateRow is what TestGateSignals2 reads of one query of a tuning set.
type gateRow struct {
	g              rank.GateStat
	noMatch, empty bool
	found          bool
	unnamed        bool    // led by a verb no name or title holds
	cover          float64 // share of own words the best hit holds in name or title
	agree          bool    // the best three hits' heaviest terms are one
	query          string
}

// gateRows returns the rows of TestGateSignals2: the tuning sets' queries, with typos
// of those of the older sets.
func gateRows(t *testing.T) []gateRow {
	var rows []gateRow
	sets := loadKindSets(t, false)
	if os.Getenv("RANK_GATE_TUNE2") != "" {
		// tune2's sets alone (testdata/tune2: long, para, nomatch), their own queries only.
		sets = tune2Sets(t)
	}
	for _, ds := range sets {
		ix := rank.NewIndex(ds.docs)
		all := allOf(len(ds.docs))
		named := map[string]bool{}
		for _, d := range ds.docs {
			text := d.Name + " " + d.Title
			if os.Getenv("RANK_GATE_DESC") != "" {
				text += " " + d.Description
			}
			for _, term := range rank.Analyze(text) {
				named[term] = true
			}
		}
		qs := gateQueries(ds)
		for _, q := range qs {
			hits := ix.Search(nil, q.Query, all, rankeval.K)
			got := names(ds.docs, hits)
			r := gateRow{g: ix.GateStats(q.Query, all), noMatch: len(q.Relevant) == 0, empty: len(got) == 0,
				found: len(q.Relevant) > 0 && rankeval.Score(got, q.Relevant).Recall10 > 0}
			r.query = ds.name + ": " + q.Query
			r.unnamed = r.g.LeadVerb && !slices.ContainsFunc(r.g.LeadTerms, func(s string) bool { return named[s] })
			var heavy []string
			for i, h := range hits[:min(3, len(hits))] {
				cover, term := explainTop(ix, q.Query, all, h.Doc, ds.docs[h.Doc])
				if i == 0 && r.g.Words > 0 {
					r.cover = float64(cover) / float64(r.g.Words)
				}
				heavy = append(heavy, term)
			}
			r.agree = len(heavy) == 3 && heavy[0] == heavy[1] && heavy[1] == heavy[2]
			rows = append(rows, r)
		}
	}
	return rows
}

// explainTop returns, of the terms from the query's words (synonyms and related words
// too) that doc holds, how many it holds in its name or title, and the one scoring most.
func explainTop(ix *rank.Index, query string, all rank.Set, doc int, d rank.Doc) (cover int, top string) {
	named := map[string]bool{}
	best := 0.0
	for _, m := range ix.Explain(query, all, doc, d) {
		if m.From != "word" && m.From != "synonym" && m.From != "related" {
			continue
		}
		if m.Score > best {
			best, top = m.Score, m.Term
		}
		if slices.Contains(m.Fields, "name") || slices.Contains(m.Fields, "title") {
			named[m.Term] = true
		}
	}
	return len(named), top
}
