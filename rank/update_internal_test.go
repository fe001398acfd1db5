package rank

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
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

// denseDocs returns n docs named in order, of words from a vocabulary of 40, so that most
// lists have a dense set.
func denseDocs(r *rand.Rand, n int, tag string) []Doc {
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{Name: fmt.Sprintf("%s_%05d", tag, i), Description: denseText(r), Params: denseText(r)}
	}
	return docs
}

// denseText returns 3 to 12 words of a vocabulary of 40.
func denseText(r *rand.Rand) string {
	w := make([]string, 3+r.IntN(10))
	for i := range w {
		w[i] = fmt.Sprintf("word%c", 'a'+rune(r.IntN(40)))
	}
	return strings.Join(w, " ")
}

// listCopy is one list of an index, copied: its postings, bitset and largest saturation.
type listCopy struct {
	docs []uint32
	sat  []float32
	bits []uint64
	max  float32
}

// copyLists returns a copy of every list of ix.
func copyLists(ix *Index) []listCopy {
	out := make([]listCopy, len(ix.maxSat))
	for l := range out {
		c := &out[l]
		c.docs, c.sat = ix.postingsOf(uint32(l))
		c.max = ix.maxSat[l]
		if ds := ix.denseSet(uint32(l)); ds != nil {
			c.bits = slices.Clone(ds.bits)
		}
	}
	return out
}

// inPlaceVersion returns docs with k of them, at random, given other text under the same
// name, and the from argument of Update for it.
func inPlaceVersion(r *rand.Rand, docs []Doc, k int) ([]Doc, []int) {
	next := slices.Clone(docs)
	from := make([]int, len(docs))
	for i := range from {
		from[i] = i
	}
	for range k {
		i := r.IntN(len(docs))
		next[i].Description, next[i].Params, from[i] = denseText(r), denseText(r), -1
	}
	return next, from
}

// TestUpdateKeepsVersions checks that no index of a chain of Updates (in place, and with
// docs gone and come) changes when a later one is built from it: the later ones share its
// dense sets' slabs. Each version also equals NewIndex over its docs.
func TestUpdateKeepsVersions(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 20))
	docs := denseDocs(r, 700, "v")
	ix := NewIndex(docs)
	var versions []*Index
	var copies [][]listCopy
	for round := range 24 {
		versions, copies = append(versions, ix), append(copies, copyLists(ix))
		next, from := inPlaceVersion(r, docs, 1+r.IntN(6))
		if round%4 == 3 { // one doc gone, one come under another name: numbers shift
			gone := r.IntN(len(next))
			next = slices.Delete(next, gone, gone+1)
			from = slices.Delete(from, gone, gone+1)
			next = append(next, Doc{Name: fmt.Sprintf("w_%02d", round), Description: denseText(r)})
			from = append(from, -1)
		}
		arg := slices.Clone(next)
		for i := range arg {
			if from[i] >= 0 {
				arg[i] = Doc{Name: arg[i].Name}
			}
		}
		ix = ix.Update(arg, from)
		if err := SameIndex(ix, NewIndex(next)); err != nil {
			t.Fatalf("round %d: Update's index: %v", round, err)
		}
		docs = next
	}
	for v, old := range versions {
		now := copyLists(old)
		for l := range now {
			a, b := copies[v][l], now[l]
			if !slices.Equal(a.docs, b.docs) || !slices.Equal(a.sat, b.sat) || !slices.Equal(a.bits, b.bits) || a.max != b.max {
				t.Fatalf("version %d, list %d changed after later versions were built from it", v, l)
			}
		}
	}
}

// TestUpdateSharesDense checks an Update in place of one doc shares with the index it
// starts from the dense sets of the lists the doc was and is not in, and, in the others,
// the postings of every word but the doc's: only that word's are written anew.
func TestUpdateSharesDense(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 21))
	docs := denseDocs(r, 1000, "s")
	ix := NewIndex(docs)
	const changed = 517
	next := slices.Clone(docs)
	next[changed].Description, next[changed].Params = "worda wordb wordc", "wordd"
	arg := make([]Doc, len(next))
	from := make([]int, len(next))
	for i := range arg {
		arg[i], from[i] = Doc{Name: next[i].Name}, i
	}
	arg[changed], from[changed] = next[changed], -1
	nu := ix.Update(arg, from)
	if err := SameIndex(nu, NewIndex(next)); err != nil {
		t.Fatal(err)
	}
	const w = changed / 64
	shared, patched := 0, 0
	var pairs [][2]uint32                  // a list of nu and the same list of ix
	for t := range uint32(len(ix.terms)) { // a term keeps its id in an Update
		pairs = append(pairs, [2]uint32{t, t}, [2]uint32{nu.paramOnlyList(t), ix.paramOnlyList(t)})
	}
	for _, p := range pairs {
		if p[0] == noTerm || p[1] == noTerm {
			continue
		}
		l := p[0]
		ds, old := nu.denseSet(p[0]), ix.denseSet(p[1])
		if ds == nil || old == nil {
			continue
		}
		if ds.bits[w]&(1<<(changed%64)) == 0 && old.bits[w]&(1<<(changed%64)) == 0 {
			if &ds.bits[0] != &old.bits[0] || ds.nslabs != old.nslabs {
				t.Fatalf("list %d: the doc is not in it, but its dense set is not ix's", l)
			}
			shared++
			continue
		}
		patched++
		if ds.nslabs != old.nslabs+1 || &ds.slabs[0][0] != &old.slabs[0][0] {
			t.Fatalf("list %d: %d slabs, want ix's %d and one more", l, ds.nslabs, old.nslabs)
		}
		if got, want := len(ds.slabs[ds.nslabs-1]), bits.OnesCount64(ds.bits[w]); got != want {
			t.Fatalf("list %d: %d postings written anew, want the %d of the doc's word", l, got, want)
		}
		for v := range ds.at {
			if v != w && ds.at[v] != old.at[v] {
				t.Fatalf("list %d: word %d moved", l, v)
			}
		}
	}
	if shared == 0 || patched == 0 {
		t.Fatalf("%d dense sets shared, %d patched: the test needs both", shared, patched)
	}
}

// TestUpdateChainBounded checks a long chain of Updates in place keeps every dense set's
// slabs within half again its postings and maxSlabs, their length counted exactly, and
// the last version equal to NewIndex over its docs: words written anew are gathered
// back into one slab in time.
func TestUpdateChainBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 22))
	docs := denseDocs(r, 600, "c")
	ix := NewIndex(docs)
	gathered := false
	for round := range 300 {
		next, from := inPlaceVersion(r, docs, 1+r.IntN(4))
		prev := ix
		ix = ix.Update(next, from)
		docs = next
		for i := range ix.dense {
			ds := &ix.dense[i]
			room := 0
			for _, s := range ds.slabs[:ds.nslabs] {
				room += len(s)
			}
			for _, s := range ds.slabs[ds.nslabs:] {
				if s != nil {
					t.Fatalf("round %d: a slab past the dense set's %d", round, ds.nslabs)
				}
			}
			if room != int(ds.room) || 2*room > 3*int(ds.n) {
				t.Fatalf("round %d: dense set of %d postings: %d slabs of %d postings (counted %d)",
					round, ds.n, ds.nslabs, room, ds.room)
			}
		}
		for l := range uint32(len(prev.terms)) { // a term keeps its list in an Update
			if ds, old := ix.denseSet(l), prev.denseSet(l); ds != nil && old != nil && ds.nslabs == 1 && old.nslabs > 1 {
				gathered = true
			}
		}
	}
	if err := SameIndex(ix, NewIndex(docs)); err != nil {
		t.Fatal(err)
	}
	if !gathered {
		t.Fatal("no dense set was gathered back into one slab")
	}
}

// FuzzUpdate checks, for any edits of a catalog whose common words have dense sets
// (docs changed in place, removed, added, renamed; in name order or not), over two
// Updates in a row, that each index Update builds equals NewIndex's over the same docs.
func FuzzUpdate(f *testing.F) {
	f.Add([]byte{0, 5, 0, 77, 0, 140}, uint64(1))
	f.Add([]byte{1, 3, 2, 9, 0, 50, 3, 120}, uint64(2))
	f.Add([]byte{2, 0, 2, 1, 2, 2, 1, 100, 1, 101, 7}, uint64(3))
	f.Add([]byte{3, 10, 3, 11, 0, 12, 255}, uint64(4))
	f.Fuzz(func(t *testing.T, ops []byte, seed uint64) {
		if len(ops) > 64 {
			return
		}
		r := rand.New(rand.NewPCG(seed, 23))
		docs := denseDocs(r, 150, "f")
		ix := NewIndex(docs)
		for round := range 2 {
			next := slices.Clone(docs)
			for i := 0; i+1 < len(ops); i += 2 {
				if len(next) == 0 {
					break
				}
				j := int(ops[i+1]) % len(next)
				switch ops[i] % 4 {
				case 0: // changed in place
					next[j].Description = denseText(r)
				case 1: // removed
					next = slices.Delete(next, j, j+1)
				case 2: // added
					next = append(next, Doc{Name: fmt.Sprintf("f_%05d_%d_%d", j, round, i), Params: denseText(r)})
				case 3: // renamed
					next[j].Name = fmt.Sprintf("g_%d_%d", round, i)
				}
			}
			if len(ops)%2 == 1 && ops[len(ops)-1]%2 == 1 {
				r.Shuffle(len(next), func(a, b int) { next[a], next[b] = next[b], next[a] })
			} else {
				slices.SortStableFunc(next, func(a, b Doc) int { return strings.Compare(a.Name, b.Name) })
			}
			at := make(map[Doc][]int, len(docs))
			for i, d := range docs {
				at[d] = append(at[d], i)
			}
			from := make([]int, len(next))
			arg := slices.Clone(next)
			for i, d := range next {
				from[i] = -1
				if js := at[d]; len(js) > 0 {
					from[i], at[d] = js[0], js[1:]
					arg[i] = Doc{Name: d.Name}
				}
			}
			ix = ix.Update(arg, from)
			if err := SameIndex(ix, NewIndex(next)); err != nil {
				t.Fatalf("round %d: Update's index: %v", round, err)
			}
			docs = next
		}
	})
}
