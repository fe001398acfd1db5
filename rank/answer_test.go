package rank_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deferredtools/deferredtools/rank"
)

// answerRef applies the relevance floor and the no-answer gate (rank/answer.go) to a
// full evaluation of query, naively: the hits Search must return with k = 0.
func answerRef(ix *rank.Index, query string, allowed rank.Set) []rank.Hit {
	dg := ix.Diagnose(query, allowed, ix.Len())
	if len(dg.Hits) == 0 {
		return nil
	}
	fixed := func(x float64) int64 { return int64(x * (1 << 32)) }
	top := fixed(dg.Hits[0].Score)
	info := float64(fixed(dg.Info))
	if top < int64(rank.FloorInfo*info) {
		return nil
	}
	heavy := 0.0
	ownWord := func(t rank.DiagTerm) bool { return t.Word > 0 || t.Param && t.From == "word" }
	for _, t := range dg.Terms {
		if ownWord(t) {
			heavy = max(heavy, t.IDF)
		}
	}
	strong := func(h rank.DiagHit) bool {
		for i, t := range dg.Terms {
			if h.Contrib[i] > 0 && (t.From == "synonym" || t.From == "related" || t.From == "word" && t.IDF >= rank.TailWord*heavy) {
				return true
			}
		}
		return false
	}
	bar, tail := int64(rank.FloorTop*float64(top)), int64(rank.TailTop*float64(top))
	var out []rank.Hit
	for _, h := range dg.Hits {
		if v := fixed(h.Score); v >= bar && (v >= tail || strong(h)) {
			out = append(out, rank.Hit{Doc: h.Doc, Score: h.Score})
		}
	}
	return out
}

// Search serves exactly the hits of a full evaluation that pass the relevance floor and
// the no-answer gate, and for any k the first k of them, though pruning (MaxScore) left
// out docs the tail rule would have needed.
func TestSearchAnswerExact(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 7))
	tailCut, topCut := 0, 0
	for trial := range 60 {
		docs := randomCatalog(r, 50+r.IntN(400), "d")
		ix := rank.NewIndex(docs)
		allowed := rank.NewSet(len(docs))
		for i := range docs {
			if r.IntN(3) > 0 {
				allowed.Add(i)
			}
		}
		for range 10 {
			q := randomQuery(r)
			want := answerRef(ix, q, allowed)
			restore := rank.SetTail(0, rank.TailWord)
			floorOnly := ix.Search(nil, q, allowed, 0)
			restore()
			tailCut += len(floorOnly) - len(want)
			for _, k := range []int{0, 1, 2, 5, 17} {
				got := ix.Search(nil, q, allowed, k)
				w := want
				if k > 0 {
					w = want[:min(k, len(want))]
					if len(floorOnly) > 0 && !slices.Equal(floorOnly[:min(k, len(floorOnly))], w) {
						topCut++ // the tail rule dropped one of the best k
					}
				}
				if diff := cmp.Diff(w, got, cmp.Comparer(func(a, b float64) bool { return a == b })); diff != "" {
					t.Fatalf("trial %d: Search(%q, max %d) (-want +got):\n%s", trial, q, k, diff)
				}
			}
		}
	}
	// tailCatalog: pruning leaves out of the best k the hits the tail rule needs.
	docs := tailCatalog()
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	want := answerRef(ix, "make alpha beta", all)
	for _, k := range []int{1, 3, 5} {
		if got := ix.Search(nil, "make alpha beta", all, k); !slices.Equal(got, want[:min(k, len(want))]) {
			t.Errorf("Search(make alpha beta, max %d) = %v, want %v", k, got, want[:min(k, len(want))])
		}
	}
	if tailCut == 0 || topCut == 0 {
		t.Fatalf("the tail rule cut %d hits, %d times among the best k: the test proves nothing", tailCut, topCut)
	}
	t.Logf("tail rule: %d hits cut, %d times among the best k", tailCut, topCut)
}

// When the tail rule drops some of the best k that pruning kept, Search scores the query
// again (answer.go): the hits it needs are the weak ones pruning never gathered ("make":
// a synonym). With 20 or 30 tools matching the common word alone, of lengths that
// differ, the tail rule drops k-1 of the best k for each k from 2 to 8 (the one alpha
// tool passes), and Search serves the hits of a full evaluation for each k from 1 to 8:
// a cheaper re-score must keep that.
func TestSearchAnswerRescore(t *testing.T) {
	for _, weak := range []int{20, 30} {
		docs := tailCatalogOf(weak, weak)
		ix := rank.NewIndex(docs)
		all := allOf(len(docs))
		want := answerRef(ix, "make alpha beta", all)
		if len(want) < 3 {
			t.Fatalf("%d weak tools: %d hits pass, want 3 or more (the catalog proves nothing)", weak, len(want))
		}
		for k := 1; k <= 8; k++ {
			got := ix.Search(nil, "make alpha beta", all, k)
			if diff := cmp.Diff(want[:min(k, len(want))], got, cmp.Comparer(func(a, b float64) bool { return a == b })); diff != "" {
				t.Errorf("%d weak tools: Search(make alpha beta, max %d) (-want +got):\n%s", weak, k, diff)
			}
		}
	}
}

// tailCatalog is a catalog where "make alpha beta" finds one tool matching alpha, the
// rare word, many matching beta alone, a common word, and a few matching "create" (a
// synonym of make) weakly.
func tailCatalog() []rank.Doc { return tailCatalogOf(30, 1) }

// tailCatalogOf is tailCatalog with weak tools matching beta alone, their descriptions
// of spread lengths (1: all equal).
func tailCatalogOf(weak, spread int) []rank.Doc {
	docs := []rank.Doc{{Name: "alpha_beta", Description: "Alpha beta."}}
	for i := range weak {
		docs = append(docs, rank.Doc{Name: fmt.Sprintf("beta_b%02d", i), Description: "Beta." + strings.Repeat(" Zeta", i%spread)})
	}
	for i := range 5 {
		docs = append(docs, rank.Doc{Name: fmt.Sprintf("thing_c%02d", i), Description: "Create things."})
	}
	for i := range 200 {
		docs = append(docs, rank.Doc{Name: fmt.Sprintf("delta_d%03d", i), Description: "Delta."})
	}
	return docs
}

// A hit under TailTop of the best score matching only a generic word of the query is not
// served, one matching a synonym is (make -> create), whatever k: pruning may have left
// the latter out of the best k before the tail rule dropped the former.
func TestSearchWeakTail(t *testing.T) {
	docs := tailCatalog()
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	want := []string{"alpha_beta", "thing_c00", "thing_c01", "thing_c02", "thing_c03", "thing_c04"}
	for _, k := range []int{0, 1, 3, 5, 17} {
		w := want
		if k > 0 {
			w = want[:min(k, len(want))]
		}
		if got := names(docs, ix.Search(nil, "make alpha beta", all, k)); !slices.Equal(got, w) {
			t.Errorf("Search(make alpha beta, max %d) = %v, want %v", k, got, w)
		}
	}
	defer rank.SetTail(0, rank.TailWord)()
	if got := names(docs, ix.Search(nil, "make alpha beta", all, 3)); !slices.Equal(got, []string{"alpha_beta", "beta_b00", "beta_b01"}) {
		t.Errorf("without the tail rule Search(make alpha beta, max 3) = %v, want the beta tools: the test proves nothing", got)
	}
}

// SPEC DISC-5: whether a query is answered at all depends on the allowed docs only. A
// word of the query counts in the no-answer gate as known when an allowed doc holds it
// or a related word standing for it ("erase" -> delete), whatever docs outside allowed
// hold. Each case adds one doc outside allowed: holding the related word (the word then
// read as known: 50 hits against 0 before the gate read related words over allowed), or
// the word itself (then read as unknown though an allowed doc holds a related word: 0
// hits against 50). The allowed docs hold the query's other word in their parameters.
func TestSearchGateAllowedOnly(t *testing.T) {
	for _, c := range []struct{ params, outside string }{
		{"widget: the widget", "Delete a thing."},
		{"widget: the widget to delete", "Erase a thing."},
	} {
		var docs []rank.Doc
		for i := range 50 {
			docs = append(docs, rank.Doc{Name: fmt.Sprintf("tool_%02d", i), Description: "Does things.", Params: c.params})
		}
		sub := slices.Clone(docs)
		docs = append(docs, rank.Doc{Name: "outside", Description: c.outside})
		allowed := allOf(len(sub))
		for _, q := range []string{"erase widget", "erase the widget"} {
			got := rank.NewIndex(docs).Search(nil, q, allowed, 0)
			want := rank.NewIndex(sub).Search(nil, q, allOf(len(sub)), 0)
			if len(got) != len(want) {
				t.Errorf("Search(%q), params %q: %d hits with a doc outside allowed (%q), %d without it", q, c.params, len(got), c.outside, len(want))
			}
		}
	}
}

// gistCatalog is a catalog that does things to gists and deletes files, branches and
// more, but deletes no gist; the other tools read issues.
func gistCatalog() []rank.Doc {
	docs := []rank.Doc{
		{Name: "create_gist", Title: "Create gist", Description: "Create a new gist with the given files."},
		{Name: "get_gist", Title: "Get gist", Description: "Get a gist by its id."},
		{Name: "list_gists", Title: "List gists", Description: "List the gists of a user."},
		{Name: "delete_file", Title: "Delete file", Description: "Delete a file from a repository."},
	}
	for _, o := range []string{"branch", "label", "milestone", "tag", "release", "webhook"} {
		docs = append(docs, rank.Doc{Name: "delete_" + o, Title: "Delete " + o, Description: "Delete a " + o + " of a repository."})
	}
	for i := range 40 {
		docs = append(docs, rank.Doc{Name: fmt.Sprintf("get_issue_%02d", i), Title: "Get issue", Description: "Get an issue of a repository."})
	}
	return docs
}

// SPEC DISC-6: a short query led by an operation verb whose best hit scores under
// objectShare of its informative weight and holds not the verb, while no allowed tool
// holding the verb holds the query's object, is answered empty: the catalog deletes
// files and creates gists, but deletes no gist. With a tool deleting gists, or asked to
// delete a file, it is answered; and (DISC-5) a tool deleting gists outside the allowed
// set changes nothing.
func TestSearchVerbObject(t *testing.T) {
	const gist = "delete my gist with the old nginx config"
	docs := gistCatalog()
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	if got := names(docs, ix.Search(nil, gist, all, 10)); len(got) != 0 {
		t.Errorf("Search(%q) = %v, want none: no tool deletes a gist", gist, got)
	}
	if got := names(docs, ix.Search(nil, "delete the file with the old nginx config", all, 10)); len(got) == 0 || got[0] != "delete_file" {
		t.Errorf("Search(delete the file ...) = %v, want delete_file first", got)
	}
	// DISC-5: a tool outside the allowed set deleting gists changes nothing; allowed, it
	// is the answer.
	more := append(slices.Clone(docs), rank.Doc{Name: "delete_gist", Title: "Delete gist", Description: "Delete a gist."})
	mix := rank.NewIndex(more)
	if got := names(more, mix.Search(nil, gist, all, 10)); len(got) != 0 {
		t.Errorf("Search(%q) with delete_gist outside allowed = %v, want none", gist, got)
	}
	if got := names(more, mix.Search(nil, gist, allOf(len(more)), 10)); len(got) == 0 || got[0] != "delete_gist" {
		t.Errorf("Search(%q) with delete_gist allowed = %v, want delete_gist first", gist, got)
	}
	// The gate reads the verb: the same query led by no operation verb is answered.
	if got := names(docs, ix.Search(nil, "my gist with the old nginx config", all, 10)); len(got) == 0 {
		t.Errorf("Search(my gist ...) = none, want the gist tools")
	}
	var dst []rank.Hit
	for _, q := range []string{gist, "delete the file with the old nginx config"} {
		if n := testing.AllocsPerRun(50, func() { dst = ix.Search(dst[:0], q, all, 10) }); n != 0 {
			t.Errorf("Search(%q) allocates %.0f times, want 0", q, n)
		}
	}
}

// SPEC DISC-6: each condition of the verb-object gate (answer.go's verbObject) keeps a
// query answered when it fails: the best hit holds the verb, or a synonym of it, or a
// word of a verb phrase the verb leads; a tool doing the operation holds the object in
// any field, its parameters too; no tool holds the verb in its name or title. Each case is a catalog the
// gate would answer empty without that condition.
func TestSearchVerbObjectConditions(t *testing.T) {
	// gists is a catalog doing things to gists, deleting a file and six things more
	// (holding delete in their names and titles when named, else in a long description
	// alone: a short one saturates as a name does), with extra.
	gists := func(named bool, extra ...rank.Doc) []rank.Doc {
		docs := []rank.Doc{
			{Name: "create_gist", Title: "Create gist", Description: "Create a new gist with the given files."},
			{Name: "get_gist", Title: "Get gist", Description: "Get a gist by its id."},
			{Name: "list_gists", Title: "List gists", Description: "List the gists of a user."},
		}
		docs = append(docs, extra...)
		for _, o := range []string{"file", "branch", "label", "milestone", "tag", "release", "webhook"} {
			d := rank.Doc{Name: "delete_" + o, Title: "Delete " + o, Description: "Delete a " + o + " of a repository."}
			if !named {
				d.Name, d.Title = "tidy_"+o, "Tidy "+o
				d.Description = "Delete a " + o + " of a repository, with its history, its reviews and every comment left on it by anyone."
			}
			docs = append(docs, d)
		}
		for i := range 40 {
			docs = append(docs, rank.Doc{Name: fmt.Sprintf("get_issue_%02d", i), Title: "Get issue", Description: "Get an issue of a repository."})
		}
		return docs
	}
	// history holds gist in its name and delete in a long description.
	history := rank.Doc{Name: "gist_history", Title: "Gist history",
		Description: "When a gist was made, starred, forked, edited, renamed, shared or deleted, and by whom, as a list of dated events."}
	var removers, deleters []rank.Doc
	for i := range 20 { // delete, common, weighs less than gist
		deleters = append(deleters, rank.Doc{Name: fmt.Sprintf("delete_thing_%02d", i), Title: "Delete thing", Description: "Delete a thing."})
	}
	for _, o := range []string{"file", "label", "tag", "reviewer", "assignee", "member", "collaborator"} {
		removers = append(removers, rank.Doc{Name: "remove_" + o, Title: "Remove " + o, Description: "Remove a " + o + " from a repository."})
	}
	cases := []struct {
		why   string
		query string
		docs  []rank.Doc
		empty bool
	}{
		{"no tool deleting holds gist", "delete my gist with the old nginx config", gists(true), true},
		{"the best hit holds the verb", "delete my gist with the old nginx config", gists(true, history), false},
		{"the best hit holds a synonym of the verb", "remove my gist with the old nginx config",
			gists(true, append(removers, history)...), false},
		{"a tool deleting holds gist in its parameters", "delete my gist with the old nginx config",
			gists(true, append(deleters, rank.Doc{Name: "delete_comment", Title: "Delete comment", Description: "Delete a comment.",
				Params: "gist_id: the gist the comment is on"})...), false},
		{"no tool holds delete in its name or title", "delete my gist with the old nginx config", gists(false), false},
		{"the best hit holds a word of the verb's phrase", "open an issue about the nginx crash",
			[]rank.Doc{{Name: "open_file", Title: "Open file", Description: "Open a file in the editor."},
				{Name: "create_issue", Title: "Create issue", Description: "Create a new issue."},
				{Name: "get_issue", Title: "Get issue", Description: "Get an issue of a repository."}}, false},
	}
	// The best hits here score 0.17 to 0.26 of the queries' informative weight: the gate
	// reads every one of them at a share of 0.5.
	defer rank.SetObject(0.5, 8)()
	for _, c := range cases {
		ix := rank.NewIndex(c.docs)
		got := names(c.docs, ix.Search(nil, c.query, allOf(len(c.docs)), 10))
		if (len(got) == 0) != c.empty {
			t.Errorf("%s: Search(%q) = %v, want empty %v", c.why, c.query, got, c.empty)
		}
	}
}

// SPEC DISC-6: the verb-object gate counts as doing the operation only the tools holding
// the verb strongly, however common the verb: with five more gist tools and 70 tools
// that mention deleting deep in a long description, one of them a gist, the catalog
// still deletes no gist. The verb's list is then a dense set, which eachStrong reads by
// its own branch (this test failed with that branch's saturation check, or its allowed
// mask, removed).
func TestSearchVerbObjectCommonVerb(t *testing.T) {
	const gist = "delete my gist with the old nginx config"
	docs := gistCatalog()
	for _, v := range []string{"update", "star", "fork", "unstar", "comment"} {
		docs = append(docs, rank.Doc{Name: v + "_gist", Title: v + " gist", Description: v + " a gist."})
	}
	for i := range 70 {
		thing := "record"
		if i == 0 {
			thing = "gist"
		}
		docs = append(docs, rank.Doc{Name: fmt.Sprintf("archive_record_%02d", i), Title: "Archive record",
			Description: "Archive a " + thing + " of the project, kept for audits and reports; archived records move to cold storage, and after the retention period of the account the owner may delete them at any time."})
	}
	ix := rank.NewIndex(docs)
	if got := names(docs, ix.Search(nil, gist, allOf(len(docs)), 10)); len(got) != 0 {
		t.Errorf("Search(%q) = %v, want none: no tool deletes a gist", gist, got)
	}
	// DISC-5: a tool deleting gists outside the allowed set changes nothing.
	more := append(slices.Clone(docs), rank.Doc{Name: "delete_gist", Title: "Delete gist", Description: "Delete a gist."})
	mix := rank.NewIndex(more)
	if got := names(more, mix.Search(nil, gist, allOf(len(docs)), 10)); len(got) != 0 {
		t.Errorf("Search(%q) with delete_gist outside allowed = %v, want none", gist, got)
	}
}
