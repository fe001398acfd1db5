package rank_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
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
		qs := ds.qs
		if _, group, _ := strings.Cut(ds.name, "."); group != "kinds" && group != "nomatch" && ds.name != "metatool" {
			qs = append(slices.Clone(qs), typoQueries(ds.qs)...)
		}
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
