package rank_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// clauseCut approximates rerank.go's splitSteps: punctuation before a space or the end,
// and the words "and" and "then".
var clauseCut = regexp.MustCompile(`[,;:.!?](?: |$)| (?i:and|then) `)

// TestStepOracle prints, for RANK_ORACLE=1, how far reordering can take the .long sets
// (issue 15): the nDCG@10 of Search today, and that of the best order of a pool of
// candidates, every relevant tool of the pool first: the whole query's best window
// hits, with the best picks of each clause searched alone.
func TestStepOracle(t *testing.T) {
	if os.Getenv("RANK_ORACLE") == "" {
		t.Skip("set RANK_ORACLE=1")
	}
	sets := loadKindSets(t, false)
	for _, picks := range []int{0, 1, 3, 10} {
		for _, window := range []int{10, 16, 40} {
			now, best, n := 0.0, 0.0, 0
			for _, ds := range sets {
				if _, group, _ := strings.Cut(ds.name, "."); group != "long" {
					continue
				}
				ix := rank.NewIndex(ds.docs)
				all := allOf(len(ds.docs))
				for _, q := range ds.qs {
					hits := ix.Search(nil, q.Query, all, 0)
					var top []string
					for _, h := range hits[:min(rankeval.K, len(hits))] {
						top = append(top, ds.docs[h.Doc].Name)
					}
					now += rankeval.Score(top, q.Relevant).NDCG10
					pool := map[int]bool{}
					for _, h := range hits[:min(window, len(hits))] {
						pool[h.Doc] = true
					}
					for _, c := range clauseCut.Split(q.Query, -1) {
						if picks == 0 {
							break
						}
						for _, h := range ix.Search(nil, c, all, picks) {
							pool[h.Doc] = true
						}
					}
					var found []string
					for d := range pool {
						if slices.Contains(q.Relevant, ds.docs[d].Name) {
							found = append(found, ds.docs[d].Name)
						}
					}
					best += rankeval.Score(found, q.Relevant).NDCG10
					n++
				}
			}
			fmt.Printf("long: window %2d, picks %2d per clause: today %.3f, best order of the pool %.3f (%d queries)\n",
				window, picks, now/float64(max(n, 1)), best/float64(max(n, 1)), n)
		}
	}
}
