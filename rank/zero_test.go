package rank_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/internal/nopanic"
	"github.com/deferredtools/deferredtools/rank"
)

// The zero Index is an empty index: it finds nothing, and Update of it builds the index
// NewIndex would, ranking alike (it had built one with zero scoring constants whose
// first new term panicked on a nil map). A nil or short Set allows nothing past its end.
// from naming a doc of the empty index still panics, as Update documents. SPEC ERR-5.
func TestZeroIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	docs := randomCatalog(r, 120, "z")
	all := rank.NewSet(len(docs))
	for i := range docs {
		all.Add(i)
	}
	from := make([]int, len(docs))
	for i := range from {
		from[i] = -1
	}
	var zero rank.Index
	if n, hits := zero.Len(), zero.Search(nil, "list", all, 10); n != 0 || len(hits) != 0 {
		t.Errorf("zero Index: Len %d, Search %v; want empty", n, hits)
	}
	var up *rank.Index
	err := nopanic.Call(func() error {
		up = zero.Update(docs, from)
		return nil
	})
	if err != nil {
		t.Fatalf("zero Index: Update = %v", err)
	}
	want := rank.NewIndex(docs)
	for range 30 {
		q := randomQuery(r)
		if got, w := up.Search(nil, q, all, 20), want.Search(nil, q, all, 20); !slices.Equal(got, w) {
			t.Fatalf("zero Index: Update(docs).Search(%q) = %v, want NewIndex's %v", q, got, w)
		}
	}
	if got := want.Search(nil, "list", nil, 10); len(got) != 0 {
		t.Errorf("Search with a nil Set = %v, want nothing allowed", got)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("zero Index: Update naming doc 0 did not panic as documented")
			}
		}()
		zero.Update(docs[:1], []int{0})
	}()
}

// NewSet with a negative n is the empty set (it panicked in make below -63); Add past a
// Set's end panics as an index out of range does, as its doc says.
func TestSetBounds(t *testing.T) {
	for _, n := range []int{-1, -64, -200, -1 << 40} {
		err := nopanic.Call(func() error {
			if s := rank.NewSet(n); len(s) != 0 || s.Count() != 0 || s.Has(0) {
				return fmt.Errorf("= %v, want the empty set", s)
			}
			return nil
		})
		if err != nil {
			t.Errorf("NewSet(%d) %v", n, err)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Add(64) on NewSet(64) did not panic")
			}
		}()
		rank.NewSet(64).Add(64)
	}()
}
