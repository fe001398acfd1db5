package rank_test

import (
	"testing"

	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// qualityFloor is what the ranker measured on each development set (nDCG@10 and
// Recall@5, rounded down by about 0.01): a change that loses more fails here.
// Re-measure with: go test ./rank -run TestQuality -v
var qualityFloor = map[string]struct{ ndcg, recall5 float64 }{
	"metatool":         {0.615, 0.675},
	"azure":            {0.91, 0.99},
	"azure.agent":      {0.925, 0.99},
	"github":           {0.775, 0.84},
	"github.agent":     {0.75, 0.84},
	"gitlab":           {0.91, 0.95},
	"gitlab.agent":     {0.73, 0.80},
	"mcp-reference":    {0.835, 0.94},
	"notion":           {0.84, 0.92},
	"playwright":       {0.825, 0.905},
	"playwright.agent": {0.87, 0.94},
}

// TestQuality evaluates rank on the development sets (MetaTool and our query sets for
// the real catalogs, when the shared data folder is present) and fails below the floor.
// It also checks that no query set names an unknown tool and that queries with no
// answer get no results (SPEC DISC-6).
func TestQuality(t *testing.T) {
	for _, ds := range devSets(t) {
		docs, qs := ds.load(t)
		rep := rankeval.Evaluate(docs, qs, rankeval.Ours(docs))
		t.Logf("%-14s n=%4d R@1 %.3f R@5 %.3f R@10 %.3f MRR@10 %.3f nDCG@10 %.3f", ds.name,
			rep.Queries, rep.Recall1, rep.Recall5, rep.Recall10, rep.MRR10, rep.NDCG10)
		if len(rep.Skipped) > 0 {
			t.Errorf("%s: queries name unknown tools: %v", ds.name, rep.Skipped)
		}
		if rep.EmptyQueries > 0 && rep.EmptyMeanResults != 0 {
			t.Errorf("%s: queries with no answer got %.2f results on average, want 0", ds.name, rep.EmptyMeanResults)
		}
		floor, ok := qualityFloor[ds.name]
		if !ok {
			t.Errorf("%s: no quality floor recorded", ds.name)
			continue
		}
		if rep.NDCG10 < floor.ndcg || rep.Recall5 < floor.recall5 {
			t.Errorf("%s: nDCG@10 %.3f Recall@5 %.3f, below the floor %.3f %.3f", ds.name, rep.NDCG10, rep.Recall5, floor.ndcg, floor.recall5)
		}
	}
}
