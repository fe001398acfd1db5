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
	"metatool":              {0.617, 0.675, 0},
	"azure":                 {0.934, 0.99, 0},
	"azure.agent":           {0.91, 0.99, 0},
	"azure.fresh":           {0.916, 0.896, 8.5},
	"azure.kblind":          {0.883, 0.857, 7},
	"azure.kinds":           {0.831, 0.869, 5.67},
	"azure.lblind":          {0.879, 0.907, 0},
	"azure.long":            {0.922, 0.888, 0},
	"azure.nmblind":         {0, 0, 10},
	"azure.nomatch":         {0, 0, 7},
	"azure.task":            {0.817, 0.925, 0.5},
	"azure.terse":           {0.933, 0.954, 0},
	"github":                {0.802, 0.89, 0},
	"github.agent":          {0.855, 0.94, 0},
	"github.fresh":          {0.669, 0.709, 2}, // 0.74 before the long-query reordering (issue 15)
	"github.kblind":         {0.369, 0.421, 10},
	"github.kinds":          {0.613, 0.715, 8.4},
	"github.lblind":         {0.805, 0.74, 0},
	"github.long":           {0.774, 0.627, 0},
	"github.nmblind":        {0, 0, 8},
	"github.nomatch":        {0, 0, 6.7},
	"github.task":           {0.813, 0.903, 3.5},
	"github.terse":          {0.763, 0.865, 0},
	"gitlab":                {0.897, 0.954, 10},
	"gitlab.agent":          {0.747, 0.873, 0},
	"gitlab.fresh":          {0.725, 0.771, 5},
	"gitlab.kblind":         {0.604, 0.75, 6.5}, // R@5 0.79 before the step lead and hints (issue 15; seen, not tuned on); results 5 before the vocabulary of operations (sixth pass, measured once)
	"gitlab.kinds":          {0.659, 0.699, 5.75},
	"gitlab.lblind":         {0.812, 0.677, 0}, // 0.843 before the verb phrases (issue 15; held out, seen once)
	"gitlab.long":           {0.895, 0.786, 0},
	"gitlab.nmblind":        {0, 0, 8.2},
	"gitlab.nomatch":        {0, 0, 5.8},
	"gitlab.task":           {0.691, 0.765, 7},
	"gitlab.terse":          {0.82, 0.901, 0},
	"mcp-reference":         {0.887, 0.99, 0},
	"mcp-reference.fresh":   {0.85, 0.904, 2},   // 0.855 before the vocabulary of operations (0.865 -> 0.854; issue 15, sixth pass; held out)
	"mcp-reference.kblind":  {0.96, 0.923, 2.5}, // 0.977 before the step lead and hints (issue 15; seen, not tuned on)
	"mcp-reference.kinds":   {0.84, 0.893, 7},
	"mcp-reference.lblind":  {0.982, 0.99, 0},
	"mcp-reference.long":    {0.952, 0.933, 0},
	"mcp-reference.nmblind": {0, 0, 7.2},
	"mcp-reference.nomatch": {0, 0, 3.9},
	"mcp-reference.task":    {0.813, 0.89, 0},
	"mcp-reference.terse":   {0.844, 0.89, 0.5},
	"notion":                {0.892, 0.99, 0},
	"notion.fresh":          {0.727, 0.865, 0},
	"notion.kblind":         {0.716, 0.99, 4},
	"notion.kinds":          {0.625, 0.636, 6},
	"notion.lblind":         {0.833, 0.844, 0}, // 0.848 before "database" -> data source (issue 15; held out)
	"notion.long":           {0.832, 0.761, 0},
	"notion.nmblind":        {0, 0, 5.6}, // 4.6 before "database" -> data source, 5.5 before the vocabulary of operations (issue 15; held out)
	"notion.nomatch":        {0, 0, 4.1},
	"notion.task":           {0.552, 0.567, 0},
	"notion.terse":          {0.712, 0.851, 1},
	"playwright":            {0.871, 0.948, 0},
	"playwright.agent":      {0.912, 0.94, 0},
	"playwright.fresh":      {0.847, 0.927, 1.5},
	"playwright.kblind":     {0.838, 0.84, 3.5},
	"playwright.kinds":      {0.838, 0.927, 3.34}, // 0.849 before the long-query reordering (issue 15)
	"playwright.lblind":     {0.827, 0.64, 0},
	"playwright.long":       {0.912, 0.87, 0},
	"playwright.nmblind":    {0, 0, 4}, // 3.6 before the vocabulary of operations (issue 15, sixth pass; held out)
	"playwright.nomatch":    {0, 0, 3.5},
	"playwright.task":       {0.58, 0.69, 1.5},
	"playwright.terse":      {0.882, 0.929, 1},
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
