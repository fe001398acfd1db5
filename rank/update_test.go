package rank_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/internal/cputime"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// updated returns next and, for each doc of next, the position in prev of a doc equal
// to it in all four fields, or -1: the from argument of Update.
func updated(prev, next []rank.Doc) []int {
	at := make(map[rank.Doc]int, len(prev))
	for i, d := range prev {
		at[d] = i
	}
	from := make([]int, len(next))
	for i, d := range next {
		j, ok := at[d]
		if !ok {
			j = -1
		}
		from[i] = j
		delete(at, d) // a doc of prev serves once
	}
	return from
}

// churn returns a version of docs with some removed, some changed (new words among
// them), some renamed, and some added, sorted by name or shuffled.
func churn(r *rand.Rand, docs []rank.Doc, round int, shuffle bool) []rank.Doc {
	fresh := strings.Fields("kubernetes helm chart pod quota invoice refund ledger zzyzx wiki glossary")
	var out []rank.Doc
	for i, d := range docs {
		switch r.IntN(10) {
		case 0: // removed
			continue
		case 1: // changed, sometimes with words no doc held
			d.Description += " " + fresh[r.IntN(len(fresh))]
			d.Params = fresh[r.IntN(len(fresh))] + " " + d.Params
		case 2: // renamed
			d.Name = fmt.Sprintf("renamed_%d_%d", round, i)
		}
		out = append(out, d)
	}
	if round == 0 { // a doc of 300 words no other holds, all gone by round 3
		w := make([]string, 300)
		for i := range w {
			w[i] = fmt.Sprintf("solo%dword", i)
		}
		out = append(out, rank.Doc{Name: "solo", Description: "zzyzx " + strings.Join(w, " ")})
	}
	for i := range 1 + r.IntN(8) {
		out = append(out, rank.Doc{
			Name:        fmt.Sprintf("added_%d_%d", round, i),
			Description: fresh[r.IntN(len(fresh))] + " list files",
			Params:      fresh[r.IntN(len(fresh))],
		})
	}
	if shuffle {
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	} else {
		slices.SortFunc(out, func(a, b rank.Doc) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

// sameSearches fails t when any of the queries, over all docs and over random allowed
// subsets, ranks differently (docs or scores) on got and want.
func sameSearches(t *testing.T, r *rand.Rand, got, want *rank.Index, n int, queries []string) {
	t.Helper()
	sets := []rank.Set{allOf(n)}
	for range 3 {
		s := rank.NewSet(n)
		for i := range n {
			if r.IntN(3) == 0 {
				s.Add(i)
			}
		}
		sets = append(sets, s)
	}
	for _, q := range queries {
		for si, s := range sets {
			for _, k := range []int{0, 5} {
				g, w := got.Search(nil, q, s, k), want.Search(nil, q, s, k)
				if !slices.Equal(g, w) {
					t.Fatalf("Search(%q, set %d, k %d): Update's index gives %v, NewIndex's %v", q, si, k, g, w)
				}
			}
		}
	}
}

// TestUpdateRanksAsNewIndex checks an index built by Update, and by Updates of Updates,
// ranks every query exactly as NewIndex on the same docs does, whether docs are removed
// (with every doc holding some term), changed, renamed, added with new terms, kept in
// name order or shuffled.
func TestUpdateRanksAsNewIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2))
	queries := []string{"kubernetes", "zzyzx", "helm chart", "refund ledger files", "wiki",
		strings.Repeat("list get create delete zzyzx glossary ", 70)}
	solo := make([]string, 300)
	for i := range solo {
		solo[i] = fmt.Sprintf("solo%dword", i)
	}
	// More terms than a query weighs: those no doc holds must not take the place of list.
	queries = append(queries, strings.Join(solo, " ")+" list")
	for range 40 {
		queries = append(queries, randomQuery(r))
	}
	for trial := range 12 {
		docs := randomCatalog(r, 30+r.IntN(300), "u")
		ix := rank.NewIndex(docs)
		for round := range 4 {
			next := churn(r, docs, round, trial%3 == 2)
			if round == 3 {
				// Every doc holding zzyzx or wiki goes: their terms are held by no doc.
				next = slices.DeleteFunc(next, func(d rank.Doc) bool {
					return strings.Contains(d.Description+d.Params, "zzyzx") || strings.Contains(d.Description+d.Params, "wiki")
				})
			}
			from := updated(docs, next)
			arg := slices.Clone(next)
			for i := range arg {
				if from[i] >= 0 {
					arg[i] = rank.Doc{Name: arg[i].Name} // Update reads only the Name of a kept doc
				}
			}
			up := ix.Update(arg, from)
			if up.Len() != len(next) {
				t.Fatalf("trial %d round %d: Update's index holds %d docs, want %d", trial, round, up.Len(), len(next))
			}
			want := rank.NewIndex(next)
			if err := rank.SameIndex(up, want); err != nil {
				t.Fatalf("trial %d round %d: Update's index: %v", trial, round, err)
			}
			sameSearches(t, r, up, want, len(next), queries)
			docs, ix = next, up
		}
	}
}

// TestUpdateLeavesOldIndex checks Update does not change the index it starts from.
func TestUpdateLeavesOldIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 3))
	docs := randomCatalog(r, 200, "o")
	ix := rank.NewIndex(docs)
	next := churn(r, docs, 0, false)
	ix.Update(next, updated(docs, next))
	queries := []string{"kubernetes", "list files"}
	for range 20 {
		queries = append(queries, randomQuery(r))
	}
	sameSearches(t, r, ix, rank.NewIndex(docs), len(docs), queries)
}

// TestUpdatePanics checks Update refuses a from that does not describe docs.
func TestUpdatePanics(t *testing.T) {
	docs := []rank.Doc{{Name: "a"}, {Name: "b"}}
	ix := rank.NewIndex(docs)
	for _, from := range [][]int{{0}, {0, 0}, {0, 2}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Update(docs, %v) did not panic", from)
				}
			}()
			ix.Update(docs, from)
		}()
	}
}

// BenchmarkUpdate measures Update over the synthetic 10,000-tool catalog with 10 docs
// replaced by others (new names, new text), against BenchmarkNewIndex's full build.
func BenchmarkUpdate(b *testing.B) {
	docs := benchCatalog(b, 10000)
	ix := rank.NewIndex(docs)
	next := slices.Clone(docs)
	from := make([]int, len(next))
	for i := range from {
		from[i] = i
	}
	for k := range 10 {
		i := k * 997
		next[i] = rank.Doc{Name: fmt.Sprintf("%s_v2", docs[i].Name), Description: docs[i+1].Description + " kubernetes", Params: docs[i+2].Params}
		from[i] = -1
	}
	b.ReportAllocs()
	stop := cputime.Report(b)
	for b.Loop() {
		ix.Update(next, from)
	}
	stop()
}

// BenchmarkUpdateInPlace measures Update over the synthetic 10,000-tool catalog with 10
// docs changed under the same names (the common swap: kept docs keep their numbers).
func BenchmarkUpdateInPlace(b *testing.B) {
	docs := benchCatalog(b, 10000)
	slices.SortFunc(docs, func(a, b rank.Doc) int { return strings.Compare(a.Name, b.Name) })
	ix := rank.NewIndex(docs)
	next := make([]rank.Doc, len(docs))
	from := make([]int, len(next))
	for i := range from {
		next[i], from[i] = rank.Doc{Name: docs[i].Name}, i
	}
	for k := range 10 {
		i := k * 997
		next[i] = rank.Doc{Name: docs[i].Name, Description: docs[i+1].Description + " kubernetes", Params: docs[i+2].Params}
		from[i] = -1
	}
	b.ReportAllocs()
	stop := cputime.Report(b)
	for b.Loop() {
		ix.Update(next, from)
	}
	stop()
}

// TestUpdateRanksAsNewIndexSynthetic checks Update against NewIndex on the synthetic
// catalog of real tools (generated when the real catalogs are absent), for the
// benchmark queries.
func TestUpdateRanksAsNewIndexSynthetic(t *testing.T) {
	docs, real, err := rankeval.Synthetic(sharedData+"/catalogs", 2000)
	if err != nil {
		t.Fatal(err)
	}
	if !real {
		t.Logf("real catalogs absent under %s/catalogs: a generated catalog", sharedData)
	}
	r := rand.New(rand.NewPCG(14, 4))
	ix := rank.NewIndex(docs)
	for round := range 2 {
		next := churn(r, docs, round, false)
		up := ix.Update(next, updated(docs, next))
		want := rank.NewIndex(next)
		if err := rank.SameIndex(up, want); err != nil {
			t.Fatalf("round %d: Update's index: %v", round, err)
		}
		sameSearches(t, r, up, want, len(next), rankeval.BenchQueries)
		docs, ix = next, up
	}
}

// TestUpdateInPlace checks an Update whose kept docs keep their numbers (docs changed in
// place, the last ones removed) ranks as NewIndex on the same docs does.
func TestUpdateInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 5))
	queries := []string{"kubernetes", "helm chart", "list files", "zzyzx wiki"}
	for range 20 {
		queries = append(queries, randomQuery(r))
	}
	fresh := strings.Fields("kubernetes helm chart zzyzx wiki")
	for trial := range 6 {
		docs := randomCatalog(r, 200+r.IntN(600), "p")
		slices.SortFunc(docs, func(a, b rank.Doc) int { return strings.Compare(a.Name, b.Name) })
		ix := rank.NewIndex(docs)
		for range 3 {
			next := slices.Clone(docs)
			if trial%2 == 1 {
				next = next[:len(next)-1-r.IntN(5)]
			}
			from := make([]int, len(next))
			for i := range from {
				from[i] = i
				if r.IntN(40) == 0 { // changed: other text, maybe new terms, same name
					next[i].Description = randomQuery(r) + " " + fresh[r.IntN(len(fresh))]
					next[i].Params = ""
					from[i] = -1
				}
			}
			arg := slices.Clone(next)
			for i := range arg {
				if from[i] >= 0 {
					arg[i] = rank.Doc{Name: arg[i].Name}
				}
			}
			up := ix.Update(arg, from)
			want := rank.NewIndex(next)
			if err := rank.SameIndex(up, want); err != nil {
				t.Fatalf("trial %d: Update's index: %v", trial, err)
			}
			sameSearches(t, r, up, want, len(next), queries)
			docs, ix = next, up
		}
	}
}

// TestUpdateInPlaceGains checks an Update in place where a doc, changed, joins a list
// large enough for a bitset that it was not in and no doc leaves: the bitset must gain
// the doc (SameIndex compares them), not stay the old one.
func TestUpdateInPlaceGains(t *testing.T) {
	docs := []rank.Doc{{Name: "d000", Description: "Beta."}}
	for i := 1; i < 100; i++ {
		docs = append(docs, rank.Doc{Name: fmt.Sprintf("d%03d", i), Description: "Alpha."})
	}
	ix := rank.NewIndex(docs)
	next := slices.Clone(docs)
	next[0].Description = "Alpha beta."
	from := make([]int, len(next))
	arg := make([]rank.Doc, len(next))
	for i := range from {
		from[i], arg[i] = i, rank.Doc{Name: next[i].Name}
	}
	from[0], arg[0] = -1, next[0]
	if err := rank.SameIndex(ix.Update(arg, from), rank.NewIndex(next)); err != nil {
		t.Fatalf("Update's index: %v", err)
	}
}

// BenchmarkUpdateChain measures Updates in place of 10 docs of the synthetic 10,000-tool
// catalog, each from the index the one before built, as a host swapping version after
// version does: BenchmarkUpdateInPlace plus, on average, what gathering a list's words
// back into one slab (updateDense) costs.
func BenchmarkUpdateChain(b *testing.B) {
	docs := benchCatalog(b, 10000)
	slices.SortFunc(docs, func(a, b rank.Doc) int { return strings.Compare(a.Name, b.Name) })
	ix := rank.NewIndex(docs)
	r := rand.New(rand.NewPCG(14, 9))
	next := make([]rank.Doc, len(docs))
	from := make([]int, len(docs))
	b.ReportAllocs()
	stop := cputime.Report(b)
	for b.Loop() {
		for i := range from {
			next[i], from[i] = rank.Doc{Name: docs[i].Name}, i
		}
		for range 10 {
			i, j := r.IntN(len(docs)), r.IntN(len(docs))
			next[i] = rank.Doc{Name: docs[i].Name, Description: docs[j].Description + " v2", Params: docs[j].Params}
			from[i] = -1
		}
		ix = ix.Update(next, from)
	}
	stop()
}
