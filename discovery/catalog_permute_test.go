package discovery

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
)

// TestPermute checks permute puts tools[order[p]] and docs[order[p]] at p for every p,
// in place, on the identity, one long cycle, and random permutations of 0 to 300 items.
func TestPermute(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(order []int32) {
		t.Helper()
		n := len(order)
		tools, docs := make([]tool, n), make([]rank.Doc, n)
		for i := range n {
			tools[i].name = strconv.Itoa(i)
			docs[i].Title = strconv.Itoa(i)
		}
		permute(order, tools, docs)
		for p, i := range order {
			if want := strconv.Itoa(int(i)); tools[p].name != want || docs[p].Title != want {
				t.Fatalf("order %v: position %d holds tool %s, doc %s; want %s", order, p, tools[p].name, docs[p].Title, want)
			}
		}
	}
	for _, n := range []int{0, 1, 2, 3, 10, 300} {
		id := make([]int32, n)
		cycle := make([]int32, n)
		for i := range n {
			id[i], cycle[i] = int32(i), int32((i+1)%n)
		}
		check(id)
		check(cycle)
		for range 20 {
			perm := make([]int32, n)
			for i, v := range r.Perm(n) {
				perm[i] = int32(v)
			}
			check(perm)
		}
	}
}
