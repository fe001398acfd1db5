package rank

import (
	"slices"
	"strings"
	"testing"
)

// A word of a request's own grammar (queryStop) in quotes is a value the task passes on,
// in the whole query and in its steps alike: "titled 'still broken'" keeps "still" in
// the step that holds it, as the whole query keeps it; unquoted, the steps drop it.
func TestStepsKeepQuotedGrammar(t *testing.T) {
	docs := []Doc{
		{Name: "search_pages", Description: "Search pages by title, still open or closed."},
		{Name: "add_comment", Description: "Add a comment to a page."},
		{Name: "close_page", Description: "Close a page."},
	}
	q := "Find the page titled 'still broken', then add a comment saying it is still failing, and close the page afterwards."
	ix, s := stepsOf(t, docs, q)
	id, ok := ix.terms["still"]
	if !ok {
		t.Fatal("the index lacks \"still\": the test proves nothing")
	}
	if !slices.ContainsFunc(s.qterms, func(q qterm) bool { return q.id == id }) {
		t.Fatal("the whole query dropped the quoted \"still\"")
	}
	var steps []int
	for _, st := range s.steps.terms {
		if st.id == id {
			steps = append(steps, st.step)
		}
	}
	quoted := strings.Index(q, "still broken")
	want := 0
	for want+1 < s.steps.n && int(s.steps.spans[want][1]) <= quoted {
		want++
	}
	if !slices.Equal(steps, []int{want}) {
		t.Errorf("\"still\" in steps %v, want [%d]: the quoted one only (the clause %q), not the unquoted one",
			steps, want, q[s.steps.spans[want][0]:s.steps.spans[want][1]])
	}
}

// A quoted word of queryStop is content: a query holding it drops its unquoted grammar
// ("one"), as any other word would make it; a query of unquoted grammar alone keeps it.
func TestQuotedGrammarIsContent(t *testing.T) {
	ix := NewIndex([]Doc{
		{Name: "pick_one", Description: "Pick one item."},
		{Name: "merge_together", Description: "Merge lists together."},
	})
	s := ix.getScratch()
	defer ix.putScratch(s)
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"one 'together'", []string{"together"}},
		{"one together", []string{"one", "together"}},
		{"merge one", []string{"merg"}},
	} {
		s.queryTerms(ix, tt.query)
		var got []string
		for _, term := range []string{"one", "together", "merg"} {
			if id, ok := ix.terms[term]; ok && slices.ContainsFunc(s.qterms, func(q qterm) bool { return q.id == id && !q.param }) {
				got = append(got, term)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("query %q scores %v of one, together, merg; want %v", tt.query, got, tt.want)
		}
	}
}
