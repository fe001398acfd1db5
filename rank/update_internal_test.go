package rank

import (
	"fmt"
	"strings"
	"testing"
)

// TestUpdateDropsDeadTerms checks a run of Updates that removes the docs holding many
// terms keeps fewer than a quarter of its terms dead, and ranks as NewIndex does after
// the terms are dropped.
func TestUpdateDropsDeadTerms(t *testing.T) {
	docs := make([]Doc, 40)
	for i := range docs {
		docs[i] = Doc{Name: fmt.Sprintf("tool_%02d", i), Description: fmt.Sprintf("list files word%d other%d", i, i),
			Params: fmt.Sprintf("param%d files", i)}
	}
	ix := NewIndex(docs)
	compacted := false
	for len(docs) > 2 {
		next := docs[1:]
		from := make([]int, len(next))
		for i := range from {
			from[i] = i + 1
		}
		before := len(ix.terms)
		ix = ix.Update(next, from)
		docs = next
		if dead := ix.deadTerms(); dead*4 >= len(ix.terms) && dead > 0 {
			t.Fatalf("%d docs: %d of %d terms dead", len(docs), dead, len(ix.terms))
		}
		if len(ix.terms) < before {
			compacted = true
		}
		fresh := NewIndex(docs)
		all := NewSet(len(docs))
		for i := range docs {
			all.Add(i)
		}
		for _, q := range []string{"list files", "word39 files", "param20", strings.Repeat("word1 ", 3), "other5 tool"} {
			g, w := ix.Search(nil, q, all, 0), fresh.Search(nil, q, all, 0)
			if fmt.Sprint(g) != fmt.Sprint(w) {
				t.Fatalf("%d docs: Search(%q) after Updates %v, NewIndex %v", len(docs), q, g, w)
			}
		}
	}
	if !compacted {
		t.Fatal("no Update dropped a term")
	}
}
