package rank

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestTermTable checks the table NewIndex numbers terms with: ids in the order terms are
// first met, the same id each time a term comes back (across the table's growth, and
// for terms that are prefixes of others), and a map from finish that holds each term
// with its id.
func TestTermTable(t *testing.T) {
	const n = 20000 // enough for the slots to double a few times
	tt := newTermTable()
	var next uint32
	term := func(i int) []byte { return fmt.Appendf(nil, "t%d", i) } // t1 is a prefix of t10
	for i := range n {
		if id := tt.id(term(i), &next); id != uint32(i) {
			t.Fatalf("new term %q numbered %d, want %d", term(i), id, i)
		}
	}
	for i := n - 1; i >= 0; i-- {
		if id := tt.id(term(i), &next); id != uint32(i) {
			t.Fatalf("term %q met again numbered %d, want %d", term(i), id, i)
		}
	}
	if next != n {
		t.Fatalf("next = %d after %d distinct terms", next, n)
	}
	if id := tt.id(nil, &next); id != n {
		t.Fatalf("empty term numbered %d, want %d", id, n)
	}
	m := tt.finish()
	if len(m) != n+1 {
		t.Fatalf("finish holds %d terms, want %d", len(m), n+1)
	}
	for i := range n {
		if id, ok := m[string(term(i))]; !ok || id != uint32(i) {
			t.Fatalf("finish()[%q] = %d, %v; want %d", term(i), id, ok, i)
		}
	}
	if id, ok := m[""]; !ok || id != n {
		t.Fatalf(`finish()[""] = %d, %v; want %d`, id, ok, n)
	}
}

// TestNameOrder checks nameOrder gives each doc its position in a stable sort by name:
// docs of the same name in their order, sorted or not.
func TestNameOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 300} {
		docs := make([]Doc, n)
		for i := range docs {
			docs[i].Name = fmt.Sprint("t", r.IntN(n/3+1))
		}
		for _, sorted := range []bool{false, true} {
			if sorted {
				slices.SortStableFunc(docs, func(a, b Doc) int { return strings.Compare(a.Name, b.Name) })
			}
			byName := make([]int, n)
			for i := range byName {
				byName[i] = i
			}
			sort.SliceStable(byName, func(a, b int) bool { return docs[byName[a]].Name < docs[byName[b]].Name })
			got := nameOrder(docs)
			for pos, d := range byName {
				if got[d] != uint32(pos) {
					t.Fatalf("%d docs (sorted %v): doc %d (%s) at %d, want %d", n, sorted, d, docs[d].Name, got[d], pos)
				}
			}
		}
	}
}
