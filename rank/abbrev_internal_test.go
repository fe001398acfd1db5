package rank

import "testing"

// An abbreviation of two words ("VMs": virtual, machine) is one word of the query: each
// word of its expansion weighs partWeight, where a word of the query weighs 1 and an
// abbreviation of one word ("repo": repository) stays a word. A doc still counts both
// words in its field's length, and the whole name and the whole query hold them.
func TestAbbrevPartsWeighOneWord(t *testing.T) {
	if partWeight >= 1 {
		t.Fatalf("partWeight = %v: the test proves nothing", partWeight)
	}
	docs := []Doc{
		{Name: "list_vms", Description: "List the virtual machines of a repository."},
		{Name: "delete_repo", Description: "Delete a machine image."},
	}
	ix := NewIndex(docs)
	s := ix.getScratch()
	defer ix.putScratch(s)
	weights := func(query string) map[string]float64 {
		if !s.queryTerms(ix, query) {
			t.Fatalf("queryTerms(%q) found no term", query)
		}
		weight := map[string]float64{}
		for _, q := range s.qterms {
			for term, id := range ix.terms {
				if id == q.id && !q.param && q.from == fromWord {
					weight[displayTerm(term)] = q.qtf
				}
			}
		}
		return weight
	}
	for query, wants := range map[string]map[string]float64{
		"list VMs in the repo": {"list": 1, "virtual": partWeight, "machin": partWeight, "repository": 1},
		"list VMs":             {"list virtual machin": 1}, // the whole name list_vms
	} {
		weight := weights(query)
		for term, want := range wants {
			if got, ok := weight[term]; !ok || got != want {
				t.Errorf("%q: query term %q weighs %v (found %v), want %v", query, term, got, ok, want)
			}
		}
	}
	a := newAnalyzer(0)
	a.add("list VMs")
	if got := a.words(); got != 3 {
		t.Errorf("words(\"list VMs\") = %d, want 3 (a doc's field length counts both words of VM)", got)
	}
	for i := range a.n() {
		want := termWord
		if term := string(a.term(i)); term == "virtual" || term == "machin" {
			want = termPart
		}
		if a.kind[i] != want {
			t.Errorf("term %q of kind %d, want %d", a.term(i), a.kind[i], want)
		}
	}
}
