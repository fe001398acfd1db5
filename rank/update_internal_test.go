package rank

import (
	"fmt"
	"slices"
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

// TestUpdateNameOrderTies checks Update orders docs of the same name as NewIndex does, by
// number, whether they are kept, new, or both.
func TestUpdateNameOrderTies(t *testing.T) {
	names := []string{"a", "b", "b", "c", "c", "c", "d"}
	docs := make([]Doc, len(names))
	for i, n := range names {
		docs[i] = Doc{Name: n, Description: fmt.Sprintf("word%d files", i)}
	}
	ix := NewIndex(docs)
	// Doc 2 (b) and 4 (c) change; a new b and c come between the kept ones; e goes first.
	next := []Doc{{Name: "e"}, {Name: "a"}, {Name: "b"}, {Name: "b", Description: "new b"}, {Name: "b", Description: "other b"},
		{Name: "c"}, {Name: "c", Description: "new c"}, {Name: "c"}, {Name: "d"}}
	from := []int{-1, 0, 1, -1, -1, 3, -1, 5, 6}
	want := slices.Clone(next)
	for i, d := range from {
		if d >= 0 {
			want[i] = docs[d]
		}
	}
	if err := SameIndex(ix.Update(next, from), NewIndex(want)); err != nil {
		t.Fatal(err)
	}
}
