package rank_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
)

// Explain's matches add up to each hit's score, long queries reordered by their steps
// included, and name the fields holding each term.
func TestExplainSumsToScore(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	checked, steps := 0, 0
	for range 20 {
		docs := randomCatalog(r, 50+r.IntN(200), "d")
		ix := rank.NewIndex(docs)
		allowed := allOf(len(docs))
		for i := range 14 {
			q := randomQuery(r)
			if i >= 10 { // long queries of several steps, reordered by them (rerank.go)
				q = randomQuery(r) + " " + randomQuery(r) + ", then " + randomQuery(r) + " and " + randomQuery(r) + ", " + randomQuery(r)
			}
			for _, h := range ix.Search(nil, q, allowed, 20) {
				ms := ix.Explain(q, allowed, h.Doc, docs[h.Doc])
				sum := 0.0
				for _, m := range ms {
					sum += m.Score
					if m.From == rank.FromSteps {
						steps++
						continue
					}
					if len(m.Fields) == 0 {
						t.Errorf("Explain(%q, %s): term %q (%s) in no field", q, docs[h.Doc].Name, m.Term, m.From)
					}
				}
				if math.Abs(sum-h.Score) > 1e-6 {
					t.Fatalf("Explain(%q, %s) sums to %v, the hit scores %v: %+v", q, docs[h.Doc].Name, sum, h.Score, ms)
				}
				checked++
			}
		}
	}
	if checked == 0 || steps == 0 {
		t.Fatalf("%d hits explained, %d with a steps adjustment: want some of each", checked, steps)
	}
}

func TestExplain(t *testing.T) {
	docs := []rank.Doc{
		{Name: "list_pull_requests", Title: "List pull requests", Description: "List pull requests in a repository."},
		{Name: "delete_branch", Description: "Delete a branch.", Params: "branch name"},
		{Name: "create_issue", Description: "Create an issue."},
	}
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	ms := ix.Explain("erase the branch", all, 1, docs[1])
	var got []string
	for _, m := range ms {
		got = append(got, m.Term+"/"+m.From)
	}
	for _, want := range []string{"branch/word", "delet/synonym"} {
		if !slices.Contains(got, want) {
			t.Errorf("Explain(erase the branch, delete_branch) = %v, want %s among them", got, want)
		}
	}
	for _, m := range ms {
		if m.Term == "branch" && !slices.Equal(m.Fields, []string{"name", "description", "params"}) {
			t.Errorf("branch is in %v, want name, description, params", m.Fields)
		}
	}
	if ms := ix.Explain("a ticket", all, 2, docs[2]); len(ms) != 1 || ms[0].Term != "issu" || ms[0].From != "related" {
		t.Errorf("Explain(a ticket, create_issue) = %+v, want issu (the stem of issue), a related word", ms)
	}
	ms = ix.Explain("pull requests", all, 0, docs[0])
	if len(ms) == 0 || ms[0].From != "word" && ms[0].From != "pair" && ms[0].From != "whole" {
		t.Errorf("Explain(pull requests) = %+v", ms)
	}
	if ms := ix.Explain("erase the branch", all, 0, docs[0]); len(ms) != 0 {
		t.Errorf("Explain of a doc matching nothing = %+v, want none", ms)
	}
	// Largest first, then by term: two terms adding the same come in the terms' order,
	// whatever the query's.
	zoo := withWidgets("a zoo", []rank.Doc{{Name: "feed_zebra", Description: "Feed the zebra yak."}, {Name: "herd", Description: "yak zebra"}})
	zix := rank.NewIndex(zoo)
	ms = zix.Explain("zebra yak", allOf(len(zoo)), 1, zoo[1])
	if len(ms) != 2 || ms[0].Term != "yak" || ms[1].Term != "zebra" || ms[0].Score != ms[1].Score {
		t.Errorf("Explain(zebra yak, herd) = %+v, want yak then zebra, adding the same", ms)
	}
}

// Explain costs what one explained query needs: the memory it allocates does not grow
// with the number of docs a long query matches (it used to gather every hit of the
// query to read the reordering of its steps).
func TestExplainCostsOneQuery(t *testing.T) {
	q := "Find the open issue about the login crash, add a comment to the issue, and then close the issue as completed."
	bytes := func(n int) uint64 {
		var docs []rank.Doc // every other one a hit, and those alike
		for i := range 2 * n {
			d := rank.Doc{Name: fmt.Sprintf("issue_tool_%05d", i), Description: "Find the open issue about a login crash, comment on it, close it as completed."}
			if i%2 == 1 {
				d = rank.Doc{Name: fmt.Sprintf("chart_tool_%05d", i), Description: "Render a chart of sales."}
			}
			docs = append(docs, d)
		}
		ix := rank.NewIndex(docs)
		all := allOf(len(docs))
		if hits := ix.Search(nil, q, all, 0); len(hits) < n {
			t.Fatalf("%d hits of %d docs: the test proves nothing", len(hits), len(docs))
		}
		ix.Explain(q, all, 0, docs[0]) // the pooled scratch grown
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs = 20
		for range runs {
			ix.Explain(q, all, 0, docs[0])
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / runs
	}
	if small, large := bytes(50), bytes(5000); large > small+small/2 {
		t.Errorf("Explain allocates %d bytes for a query of 5,000 hits, %d for one of 50: want about as many", large, small)
	}
}

// Explain's matches add up to each hit's score when a verb phrase brings its tool into
// the window reordered by steps ("file an issue": create_issue), which then holds more
// than stepWindow hits: each of them is reordered, wherever it ends.
func TestExplainSumsPairWindow(t *testing.T) {
	q := "list the open critical dependabot alerts on acme/storefront, give me the full details of the worst one, and file an issue summarising it for the team"
	adjusted := 0
	for crowd := 14; crowd <= 24; crowd += 2 {
		docs := []rank.Doc{{Name: "list_dependabot_alerts", Description: "List the open dependabot alerts of a repository, critical first."},
			{Name: "get_dependabot_alert", Description: "Get the full details of a dependabot alert."}}
		for i := range 4 {
			docs = append(docs, rank.Doc{Name: fmt.Sprintf("create_issue_%d", i), Description: "Create a new issue in a repository."})
		}
		for i := range crowd {
			docs = append(docs, rank.Doc{Name: fmt.Sprintf("dependabot_tool_%02d", i), Description: "Dependabot alerts and their details for a team."})
		}
		for i := range 30 {
			docs = append(docs, rank.Doc{Name: fmt.Sprintf("issue_tool_%02d", i), Description: "Update, label or comment on an issue."})
		}
		ix := rank.NewIndex(docs)
		allowed := allOf(len(docs))
		for i, h := range ix.Search(nil, q, allowed, 0) {
			sum := 0.0
			for _, m := range ix.Explain(q, allowed, h.Doc, docs[h.Doc]) {
				sum += m.Score
				if m.From == rank.FromSteps && i >= 17 {
					adjusted++
				}
			}
			if math.Abs(sum-h.Score) > 1e-6 {
				t.Errorf("crowd %d: Explain(%s), hit %d, sums to %v, the hit scores %v", crowd, docs[h.Doc].Name, i+1, sum, h.Score)
			}
		}
	}
	if adjusted == 0 {
		t.Error("no hit after the 17th was reordered: the test proves nothing")
	}
}
