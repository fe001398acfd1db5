package rank

import (
	"fmt"
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
