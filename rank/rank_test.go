package rank_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deferredtools/deferredtools/rank"
)

func allOf(n int) rank.Set {
	s := rank.NewSet(n)
	for i := range n {
		s.Add(i)
	}
	return s
}

func names(docs []rank.Doc, hits []rank.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = docs[h.Doc].Name
	}
	return out
}

var smallCatalog = []rank.Doc{
	{Name: "list_branches", Title: "List branches", Description: "List the branches of a repository."},
	{Name: "create_branch", Title: "Create branch", Description: "Create a new branch in a repository."},
	{Name: "list_pull_requests", Title: "List pull requests", Description: "List pull requests in a GitHub repository."},
	{Name: "merge_pull_request", Title: "Merge pull request", Description: "Merge a pull request."},
	{Name: "compute_vm_create", Title: "Create virtual machine", Description: "Create an Azure virtual machine."},
	{Name: "browser_take_screenshot", Title: "Take a screenshot", Description: "Take a screenshot of the current page."},
	{Name: "getFileContents", Description: "Get the contents of a file or directory."},
	{Name: "repo.search", Description: "Search repositories by keyword."},
	{Name: "create_issue", Title: "创建议题", Description: "在代码仓库中创建新的议题。"},
	{Name: "résumé_parser", Description: "Parse a CV (curriculum vitæ) into fields."},
}

// TestSearchFindsTheTool checks the matching choices on a small catalog: name splitting,
// stems, abbreviations, CJK and accents.
func TestSearchFindsTheTool(t *testing.T) {
	ix := rank.NewIndex(smallCatalog)
	all := allOf(len(smallCatalog))
	tests := []struct {
		query, want string
	}{
		{"listing branches", "list_branches"},
		{"list my open PRs", "list_pull_requests"},
		{"merge PR", "merge_pull_request"},
		{"make a new VM", "compute_vm_create"},
		{"screenshots", "browser_take_screenshot"},
		{"file content", "getFileContents"},
		{"search repos", "repo.search"},
		{"代码仓库 议题", "create_issue"},
		{"创建", "create_issue"},
		{"RESUME", "résumé_parser"},
		{"curriculum vitae", "résumé_parser"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits := ix.Search(nil, tt.query, all, 3)
			if len(hits) == 0 || smallCatalog[hits[0].Doc].Name != tt.want {
				t.Errorf("Search(%q) = %v, want %s first", tt.query, names(smallCatalog, hits), tt.want)
			}
		})
	}
}

// SPEC DISC-6: a query matching nothing, made only of stop words, or matching only docs
// outside allowed, returns no hits.
func TestSearchNoMatch(t *testing.T) {
	ix := rank.NewIndex(smallCatalog)
	all := allOf(len(smallCatalog))
	for _, q := range []string{"", "   ", "bake a chocolate cake", "the of and to with", "?!,.", "x"} {
		t.Run(q, func(t *testing.T) {
			if hits := ix.Search(nil, q, all, 10); len(hits) != 0 {
				t.Errorf("Search(%q) = %v, want no hits", q, names(smallCatalog, hits))
			}
		})
	}
	onlyFirst := rank.NewSet(len(smallCatalog))
	onlyFirst.Add(0) // list_branches
	if hits := ix.Search(nil, "screenshot", onlyFirst, 10); len(hits) != 0 {
		t.Errorf("Search(screenshot) over {list_branches} = %v, want no hits", names(smallCatalog, hits))
	}
	if hits := ix.Search(nil, "branch", nil, 10); len(hits) != 0 {
		t.Errorf("Search over the empty set = %v, want no hits", hits)
	}
	if hits := rank.NewIndex(nil).Search(nil, "branch", nil, 10); len(hits) != 0 {
		t.Errorf("Search on an empty index = %v, want no hits", hits)
	}
}

// SPEC DISC-4: equal scores are ordered by name, ascending byte order, and the same
// inputs give the same hits.
func TestSearchTiesByName(t *testing.T) {
	docs := []rank.Doc{
		{Name: "zeta", Description: "Delete a widget."},
		{Name: "Alpha", Description: "Delete a widget."},
		{Name: "alpha", Description: "Delete a widget."},
		{Name: "beta", Description: "Delete a widget."},
		{Name: "_under", Description: "Delete a widget."},
	}
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	want := []string{"Alpha", "_under", "alpha", "beta", "zeta"}
	for _, k := range []int{0, 2, 5} {
		hits := ix.Search(nil, "widget", all, k)
		w := want
		if k > 0 {
			w = want[:k]
		}
		if got := names(docs, hits); !slices.Equal(got, w) {
			t.Errorf("Search(widget, max %d) = %q, want %q", k, got, w)
		}
		for _, h := range hits {
			if h.Score != hits[0].Score {
				t.Errorf("scores of identical docs differ: %v", hits)
			}
		}
	}
	first := ix.Search(nil, "delete widgets", all, 0)
	for range 5 {
		if again := ix.Search(nil, "delete widgets", all, 0); !slices.Equal(again, first) {
			t.Fatalf("same search gave %v then %v", first, again)
		}
	}
}

// Search appends to dst, keeps its prefix, honours max and returns hits best first.
func TestSearchAppendsAndLimits(t *testing.T) {
	ix := rank.NewIndex(smallCatalog)
	all := allOf(len(smallCatalog))
	prefix := []rank.Hit{{Doc: -1, Score: -1}}
	got := ix.Search(slices.Clone(prefix), "create branch pull request", all, 2)
	if len(got) != 3 || got[0] != prefix[0] {
		t.Fatalf("Search with a prefix = %v, want the prefix and 2 hits", got)
	}
	every := ix.Search(nil, "create branch pull request", all, 0)
	if len(every) < 4 {
		t.Fatalf("Search with no limit = %d hits, want at least 4", len(every))
	}
	if !slices.Equal(got[1:], every[:2]) {
		t.Errorf("max 2 = %v, want the first 2 of %v", got[1:], every)
	}
	for i := 1; i < len(every); i++ {
		if every[i].Score > every[i-1].Score {
			t.Errorf("hits not best first: %v", every)
		}
	}
}

// randomCatalog builds n docs from a small vocabulary so that terms are shared and
// document frequencies matter.
func randomCatalog(r *rand.Rand, n int, tag string) []rank.Doc {
	vocab := strings.Fields("list get create delete branch branches pull request merge issue issues comment file files repository user team page block screenshot browser tab cookie virtual machine cluster database table query search run runs job jobs log logs")
	pick := func(m int) string {
		w := make([]string, m)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	docs := make([]rank.Doc, n)
	for i := range docs {
		docs[i] = rank.Doc{
			Name:        strings.ReplaceAll(pick(1+r.IntN(3)), " ", "_") + fmt.Sprintf("_%s%d", tag, i),
			Title:       pick(r.IntN(4)),
			Description: pick(r.IntN(25)),
			Params:      pick(r.IntN(12)),
		}
		if r.IntN(8) == 0 { // some exact duplicates of text, to exercise ties
			docs[i].Title, docs[i].Description = docs[0].Title, docs[0].Description
		}
	}
	return docs
}

func randomQuery(r *rand.Rand) string {
	words := strings.Fields("list get create delete branches pull request merge issue comment files repository user page screenshot browser cookie virtual machine database query search runs logs the of unknownword")
	q := make([]string, 1+r.IntN(4))
	for i := range q {
		q[i] = words[r.IntN(len(words))]
	}
	return strings.Join(q, " ")
}

// SPEC DISC-5: every statistic is computed over the allowed docs only. For random
// catalogs and allowed subsets, Search over (catalog, allowed) equals Search over a
// catalog holding only the allowed docs, scores bit for bit; and adding, changing or
// removing docs outside allowed changes nothing.
func TestSearchAllowedOnly(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 17))
	for trial := range 80 {
		n := 1 + r.IntN(200)
		docs := randomCatalog(r, n, "d")
		allowed := rank.NewSet(n)
		var sub []rank.Doc
		var subIndex []int // sub doc -> catalog doc
		for i := range docs {
			if r.IntN(3) != 0 {
				allowed.Add(i)
				sub = append(sub, docs[i])
				subIndex = append(subIndex, i)
			}
		}
		// Changed outside allowed: other text, and extra docs at the end.
		changed := slices.Clone(docs)
		extra := randomCatalog(r, r.IntN(50), "x")
		for i := range changed {
			if !allowed.Has(i) {
				changed[i] = extra0(r, changed[i].Name)
			}
		}
		changed = append(changed, extra...)
		changedAllowed := rank.NewSet(len(changed))
		for i := range docs {
			if allowed.Has(i) {
				changedAllowed.Add(i)
			}
		}
		full, part, other := rank.NewIndex(docs), rank.NewIndex(sub), rank.NewIndex(changed)
		subAll := allOf(len(sub))
		for range 10 {
			q := randomQuery(r)
			k := []int{0, 1, 3, 10}[r.IntN(4)]
			got := full.Search(nil, q, allowed, k)
			want := part.Search(nil, q, subAll, k)
			for i := range want {
				want[i].Doc = subIndex[want[i].Doc]
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("trial %d: Search(%q, max %d) over the catalog differs from the allowed-only catalog (-want +got):\n%s", trial, q, k, diff)
			}
			if diff := cmp.Diff(got, other.Search(nil, q, changedAllowed, k)); diff != "" {
				t.Fatalf("trial %d: Search(%q, max %d) changed when docs outside allowed changed (-before +after):\n%s", trial, q, k, diff)
			}
		}
	}
}

func extra0(r *rand.Rand, name string) rank.Doc {
	d := randomCatalog(r, 1, "y")[0]
	d.Name = name + "_changed"
	return d
}

// Pruning (MaxScore) must not change results: the best k are the first k of the full
// ranking, with the same scores.
func TestSearchLimitIsPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 3))
	for trial := range 60 {
		docs := randomCatalog(r, 50+r.IntN(400), "d")
		ix := rank.NewIndex(docs)
		allowed := rank.NewSet(len(docs))
		for i := range docs {
			if r.IntN(2) == 0 {
				allowed.Add(i)
			}
		}
		for range 10 {
			q := randomQuery(r)
			every := ix.Search(nil, q, allowed, 0)
			for _, k := range []int{1, 2, 5, 17} {
				got := ix.Search(nil, q, allowed, k)
				want := every[:min(k, len(every))]
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("trial %d: Search(%q, max %d) is not the prefix of the full ranking (-want +got):\n%s", trial, q, k, diff)
				}
			}
			for _, h := range every {
				if !allowed.Has(h.Doc) {
					t.Fatalf("Search(%q) returned doc %d outside allowed", q, h.Doc)
				}
			}
		}
	}
}

// A search allocates nothing once dst has room (SPEC PERF-1: allocations do not grow
// with the catalog).
func TestSearchAllocations(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	docs := randomCatalog(r, 5000, "d")
	ix := rank.NewIndex(docs)
	allowed := allOf(len(docs))
	dst := make([]rank.Hit, 0, 32)
	// Words beyond ASCII after NFKD (Cyrillic, ß, Arabic, the ligature U+FDFA of four
	// Arabic words) are case-folded through x/text, which allocated once a word.
	for _, q := range []string{"list pull request files", "Créer une BRANCHE ＦＵＬＬ width", "创建代码仓库 get-FileContents",
		"создать ВЕТКУ в репозитории", "Straße löschen", "\ufdfa\ufdfa دمج الفرع"} {
		t.Run(q, func(t *testing.T) {
			ix.Search(dst, q, allowed, 17) // warm the scratch buffers
			allocs := testing.AllocsPerRun(100, func() {
				dst = ix.Search(dst[:0], q, allowed, 17)
			})
			if allocs > 0 {
				t.Errorf("Search(%q) allocated %v times per call, want 0", q, allocs)
			}
		})
	}
}

// Index is safe for concurrent use (run with -race).
func TestSearchConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	docs := randomCatalog(r, 400, "d")
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	queries := make([]string, 20)
	want := make([][]rank.Hit, len(queries))
	for i := range queries {
		queries[i] = randomQuery(r)
		want[i] = ix.Search(nil, queries[i], all, 10)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				j := (i + g) % len(queries)
				if got := ix.Search(nil, queries[j], all, 10); !slices.Equal(got, want[j]) {
					t.Errorf("concurrent Search(%q) = %v, want %v", queries[j], got, want[j])
					return
				}
			}
		})
	}
	wg.Wait()
	if ix.Len() != len(docs) {
		t.Errorf("Len() = %d, want %d", ix.Len(), len(docs))
	}
}

func ExampleIndex_Search() {
	docs := []rank.Doc{
		{Name: "list_branches", Title: "List branches", Description: "List the branches of a repository."},
		{Name: "create_branch", Title: "Create branch", Description: "Create a new branch."},
		{Name: "merge_pull_request", Title: "Merge pull request", Description: "Merge a pull request."},
	}
	ix := rank.NewIndex(docs) // once per catalog version
	allowed := rank.NewSet(len(docs))
	allowed.Add(0)
	allowed.Add(2) // this principal may not see create_branch
	for _, h := range ix.Search(nil, "listing branches", allowed, 10) {
		fmt.Println(docs[h.Doc].Name)
	}
	fmt.Println(len(ix.Search(nil, "merge PR", allowed, 10)), len(ix.Search(nil, "bake a cake", allowed, 10)))
	// Output:
	// list_branches
	// 1 0
}

// Bits of allowed beyond Len change nothing: not the hits, not the statistics.
func TestSearchIgnoresBitsBeyondLen(t *testing.T) {
	docs := smallCatalog
	ix := rank.NewIndex(docs)
	exact := allOf(len(docs))
	wide := rank.NewSet(len(docs) + 200)
	for i := range len(docs) + 200 {
		wide.Add(i)
	}
	for _, q := range []string{"create branch", "pull request", "代码"} {
		t.Run(q, func(t *testing.T) {
			if diff := cmp.Diff(ix.Search(nil, q, exact, 0), ix.Search(nil, q, wide, 0)); diff != "" {
				t.Errorf("Search(%q) with bits beyond Len differs (-exact +wide):\n%s", q, diff)
			}
		})
	}
}

// Two words of the query that follow each other as written (stop words aside) in a
// tool's name or title add to its score: "pull requests" prefers show_pull_requests to
// requests_pull_show, which holds the same words in another order. Without pairs the
// two tie and the tie goes to the smaller name; a pair of stems ("pull request") does
// not match the words as written.
func TestSearchPairsAsWritten(t *testing.T) {
	docs := []rank.Doc{
		{Name: "requests_pull_show", Description: "Pull requests shown."},
		{Name: "show_pull_requests", Description: "Pull requests shown."},
	}
	all := allOf(len(docs))
	noPairs := rank.DefaultParams
	noPairs.Pair = 0
	for _, tc := range []struct {
		query string
		p     rank.Params
		want  []string
	}{
		{"pull requests", rank.DefaultParams, []string{"show_pull_requests", "requests_pull_show"}},
		{"requests of pull", rank.DefaultParams, []string{"requests_pull_show", "show_pull_requests"}},
		{"pull requests", noPairs, []string{"requests_pull_show", "show_pull_requests"}},
		{"pull request", rank.DefaultParams, []string{"requests_pull_show", "show_pull_requests"}},
	} {
		t.Run(fmt.Sprintf("%s pair=%v", tc.query, tc.p.Pair), func(t *testing.T) {
			hits := rank.NewIndexParams(docs, tc.p).Search(nil, tc.query, all, 0)
			if got := names(docs, hits); !slices.Equal(got, tc.want) {
				t.Fatalf("Search(%q) with pairs weighing %v = %v, want %v", tc.query, tc.p.Pair, got, tc.want)
			}
			if tc.p.Pair == 0 || tc.query == "pull request" {
				if hits[0].Score != hits[1].Score {
					t.Errorf("Search(%q) with pairs weighing %v: scores %v and %v, want a tie", tc.query, tc.p.Pair, hits[0].Score, hits[1].Score)
				}
			}
		})
	}
}
