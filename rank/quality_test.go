package rank_test

import (
	"testing"

	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// qualityFloor is what the ranker measured on each development set, rounded down by
// about 0.01: nDCG@10 and Recall@5 below it fail here, and so do more results on average
// than empty for the queries no tool answers (a query whose words are all in no tool
// gets none, DISC-6; one with a word some tool holds, "order a pizza", may get some).
// Re-measure with: go test ./rank -run TestQuality -v
var qualityFloor = map[string]struct{ ndcg, recall5, empty float64 }{
	"metatool":             {0.617, 0.675, 0},
	"azure":                {0.923, 0.99, 0},
	"azure.agent":          {0.91, 0.99, 0},
	"azure.task":           {0.817, 0.925, 1},
	"azure.terse":          {0.933, 0.954, 0},
	"github":               {0.77, 0.857, 0},
	"github.agent":         {0.843, 0.94, 0},
	"github.task":          {0.813, 0.903, 6},
	"github.terse":         {0.745, 0.829, 0},
	"gitlab":               {0.897, 0.954, 10},
	"gitlab.agent":         {0.747, 0.873, 0},
	"gitlab.task":          {0.691, 0.765, 7},
	"gitlab.terse":         {0.815, 0.865, 0},
	"mcp-reference":        {0.852, 0.94, 0},
	"mcp-reference.task":   {0.669, 0.757, 0},
	"mcp-reference.terse":  {0.844, 0.89, 0.5},
	"notion":               {0.858, 0.99, 0},
	"notion.task":          {0.551, 0.567, 0},
	"notion.terse":         {0.663, 0.851, 1.5},
	"playwright":           {0.871, 0.948, 0},
	"playwright.agent":     {0.911, 0.94, 0},
	"playwright.task":      {0.582, 0.69, 3},
	"azure.fresh":          {0.916, 0.896, 9},
	"github.fresh":         {0.663, 0.677, 4},
	"gitlab.fresh":         {0.725, 0.771, 5},
	"mcp-reference.fresh":  {0.816, 0.876, 2},
	"notion.fresh":         {0.698, 0.834, 0.5},
	"playwright.fresh":     {0.833, 0.927, 2},
	"playwright.terse":     {0.882, 0.929, 1},
	"azure.kinds":          {0.713, 0.869, 10},
	"github.kinds":         {0.384, 0.465, 10},
	"gitlab.kinds":         {0.523, 0.517, 10},
	"mcp-reference.kinds":  {0.748, 0.837, 10},
	"notion.kinds":         {0.525, 0.594, 10},
	"playwright.kinds":     {0.643, 0.761, 10},
	"azure.kblind":         {0.483, 0.457, 10},
	"github.kblind":        {0.356, 0.421, 10},
	"gitlab.kblind":        {0.527, 0.59, 10},
	"mcp-reference.kblind": {0.777, 0.723, 10},
	"notion.kblind":        {0.49, 0.657, 10},
	"playwright.kblind":    {0.636, 0.54, 10},
}

// TestQuality evaluates rank on the development sets (MetaTool and our query sets for
// the real catalogs, when the shared data folder is present) and fails below the floor.
// It also checks that no query set names an unknown tool and that queries with no
// answer get no more results than recorded (SPEC DISC-6).
func TestQuality(t *testing.T) {
	for _, ds := range devSets(t) {
		docs, qs := ds.load(t)
		rep := rankeval.Evaluate(docs, qs, rankeval.Ours(docs))
		t.Logf("%-14s n=%4d R@1 %.3f R@5 %.3f R@10 %.3f MRR@10 %.3f nDCG@10 %.3f empty %d results %.2f", ds.name,
			rep.Queries, rep.Recall1, rep.Recall5, rep.Recall10, rep.MRR10, rep.NDCG10, rep.EmptyQueries, rep.EmptyMeanResults)
		if len(rep.Skipped) > 0 {
			t.Errorf("%s: queries name unknown tools: %v", ds.name, rep.Skipped)
		}
		floor, ok := qualityFloor[ds.name]
		if !ok {
			t.Errorf("%s: no quality floor recorded", ds.name)
			continue
		}
		if rep.EmptyQueries > 0 && rep.EmptyMeanResults > floor.empty {
			t.Errorf("%s: queries with no answer got %.2f results on average, want at most %.2f", ds.name, rep.EmptyMeanResults, floor.empty)
		}
		if rep.NDCG10 < floor.ndcg || rep.Recall5 < floor.recall5 {
			t.Errorf("%s: nDCG@10 %.3f Recall@5 %.3f, below the floor %.3f %.3f", ds.name, rep.NDCG10, rep.Recall5, floor.ndcg, floor.recall5)
		}
	}
}
