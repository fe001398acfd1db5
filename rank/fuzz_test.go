package rank_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/rank"
)

// FuzzSearch feeds arbitrary queries (untrusted input) to Search: it must not panic, and
// its hits must be allowed docs, at most max, best first with ties by name, the prefix
// of the unlimited ranking, and those of an index keeping one list per term.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{"listing branches", "merge PR", "创建代码仓库", "Crème brûlée", "the of",
		"getFileContents", "\xff\xfe", "ＡＢＣ", strings.Repeat("list ", 300), "a-b_c.d/e", "IDs VMs HTTPServer",
		"Find the page 'still one', add a to-do list to it, then leave a comment and go through the 'PRs: yet' ones to-",
		// The eighth pass: a polite lead, a phrase's pair, a URL echoing the request, numbers
		// joined by "and", a capitalized title, turn off, a title after an article.
		"Could you open an issue on the issues page https://github.com/acme/api/issues/45 for #45 and #46, turn off our Bug Tracker database, then cut release/2.4 and create a 'Notes' page",
		// Hostile queries (BenchmarkSearchHostile): unclosed quotes of each kind, a
		// closed span after unclosed ones, the ligature NFKD makes four Arabic words,
		// words beyond ASCII in ß, Cyrillic and Greek.
		"'ab 'cd \"ef `gh 'ij' done", "`a `b \"c 'd' `e`", "\ufdfa\ufdfa دمج الفرع", "Straße ВЕТКУ ΣΊΣΥΦΟΣ"} {
		f.Add(q, uint8(3))
	}
	docs := slices.Clone(smallCatalog)
	for i := range docs { // parameter text on some docs: their lists of their own are searched too
		if i%2 == 0 {
			docs[i].Params = "owner repo branch page perPage query " + docs[(i+3)%len(docs)].Description
		}
	}
	ix := rank.NewIndex(docs)
	joined := rank.DefaultParams
	joined.Joined = true
	one := rank.NewIndexParams(docs, joined)
	allowed := rank.NewSet(len(docs))
	for i := range docs {
		if i%3 != 1 {
			allowed.Add(i)
		}
	}
	f.Fuzz(func(t *testing.T, q string, k uint8) {
		for _, term := range rank.Analyze(q) {
			if term == "" || !utf8.ValidString(term) {
				t.Fatalf("Analyze(%q) gave the term %q", q, term)
			}
		}
		every := ix.Search(nil, q, allowed, 0)
		got := ix.Search(nil, q, allowed, int(k))
		if want := one.Search(nil, q, allowed, int(k)); !slices.Equal(got, want) {
			t.Fatalf("Search(%q, %d) = %v, with one list per term %v", q, k, got, want)
		}
		if k > 0 && len(got) > int(k) {
			t.Fatalf("Search(%q, %d) = %d hits", q, k, len(got))
		}
		for i, h := range got {
			if h != every[i] {
				t.Fatalf("Search(%q, %d) = %v, not a prefix of %v", q, k, got, every)
			}
		}
		for i, h := range every {
			if !allowed.Has(h.Doc) || h.Score <= 0 {
				t.Fatalf("Search(%q) hit %v: outside allowed or not positive", q, h)
			}
			if i > 0 {
				p := every[i-1]
				if p.Score < h.Score || p.Score == h.Score && docs[p.Doc].Name > docs[h.Doc].Name {
					t.Fatalf("Search(%q) = %v: not best first, ties by name", q, every)
				}
			}
		}
	})
}
