package rankeval_test

import (
	"fmt"

	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// Score grades one ranked list against the tools that answer its query: the first
// relevant name is second (MRR 1/2), both are in the top five (Recall@5 1), and
// nDCG@10 is (1/log2 3 + 1/log2 4) / (1 + 1/log2 3).
func ExampleScore() {
	m := rankeval.Score([]string{"issue_get", "issue_create", "pr_list"}, []string{"issue_create", "pr_list"})
	fmt.Printf("recall@1 %.2f recall@5 %.2f mrr@10 %.2f ndcg@10 %.3f\n", m.Recall1, m.Recall5, m.MRR10, m.NDCG10)
	// Output:
	// recall@1 0.00 recall@5 1.00 mrr@10 0.50 ndcg@10 0.693
}

// Evaluate runs a labelled query set through a Ranker (here package rank's, Ours) and
// averages the metrics over the queries that have relevant tools; a query naming a
// tool the catalog lacks is skipped, and one expecting no tool is measured by what
// it got.
func ExampleEvaluate() {
	docs := []rank.Doc{
		{Name: "issue_create", Description: "Create a new issue in a repository."},
		{Name: "issue_close", Description: "Close an issue."},
		{Name: "branch_delete", Description: "Delete a branch."},
	}
	queries := []rankeval.Query{
		{Query: "open a new issue", Relevant: []string{"issue_create"}},
		{Query: "remove a branch", Relevant: []string{"branch_delete"}},
		{Query: "book a flight", Relevant: nil},                         // no tool should match
		{Query: "merge a pull request", Relevant: []string{"pr_merge"}}, // not in the catalog
	}
	r := rankeval.Evaluate(docs, queries, rankeval.Ours(docs))
	fmt.Printf("%d queries: recall@1 %.2f mrr@10 %.2f\n", r.Queries, r.Recall1, r.MRR10)
	fmt.Printf("%d without a relevant tool, answered empty: %.0f%%\n", r.EmptyQueries, 100*r.EmptyAnswered)
	fmt.Printf("skipped: query %d (%s)\n", r.Skipped[0].Index, r.Skipped[0].Unknown)
	// Output:
	// 2 queries: recall@1 1.00 mrr@10 1.00
	// 1 without a relevant tool, answered empty: 100%
	// skipped: query 3 (pr_merge)
}
