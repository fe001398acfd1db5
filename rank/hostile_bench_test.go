package rank_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/internal/cputime"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// maxDiscoverQuery is the longest query discovery accepts: 500 code points (SPEC DISC-2).
const maxDiscoverQuery = 500

// repeatTo returns s repeated, joined by sep, up to n bytes or fewer, cut at a whole s.
func repeatTo(s, sep string, n int) string {
	var b strings.Builder
	for b.Len()+len(sep)+len(s) <= n {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(s)
	}
	return b.String()
}

// repeatRunes is repeatTo counting code points: the longest query discovery allows
// when n is maxDiscoverQuery.
func repeatRunes(s, sep string, n int) string {
	var b strings.Builder
	count := 0
	ls, lsep := len([]rune(s)), len([]rune(sep))
	for {
		add := ls
		if count > 0 {
			add += lsep
		}
		if count+add > n {
			return b.String()
		}
		if count > 0 {
			b.WriteString(sep)
		}
		b.WriteString(s)
		count += add
	}
}

// oneLetters returns n one-letter words.
func oneLetters(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(byte('a' + i%26))
	}
	return b.String()
}

// hostileQueries are the worst queries found for Search and Explain, each beside the
// realistic queries of BenchmarkSearch: the longest query discovery allows (500 code
// points, SPEC DISC-2) of each kind the analyzer reads in its own way, and, through
// rank's own API, which takes any string, queries far longer.
var hostileQueries = sync.OnceValue(func() []struct{ name, q string } {
	return []struct{ name, q string }{
		{"typical", ""}, // rankeval.BenchQueries in turn
		{"long500", repeatRunes("list the open pull requests of the repository and merge them", " ", maxDiscoverQuery)},
		{"steps500", repeatRunes("create a branch, push the file src/main.go, and open a pull request titled 'Fix it'", ". ", maxDiscoverQuery)},
		{"camel500", repeatRunes("getPullRequestReviews listBranchesForUser", " ", maxDiscoverQuery)},
		{"caps500", repeatRunes("HTTPSERVER GETPULLREQUESTS", " ", maxDiscoverQuery)},
		{"capsrun500", strings.Repeat("AB", maxDiscoverQuery/2)},
		{"urls500", repeatRunes("https://example.com/a/b/c/pipelines/9", " ", maxDiscoverQuery)},
		{"path500", "src/" + repeatRunes("ab", "/", maxDiscoverQuery-4)},
		{"pathecho500", "branch pull request " + repeatRunes("branch/pull/request", "/", maxDiscoverQuery-20)},
		{"quotes500", repeatRunes("'ab", " ", maxDiscoverQuery)},
		{"closedquotes500", repeatRunes("'ab'", " ", maxDiscoverQuery)},
		{"backquotes500", repeatRunes("`a", " ", maxDiscoverQuery)},
		{"numbers500", repeatRunes("#45 and #46", " and ", maxDiscoverQuery)},
		{"cyrillic500", repeatRunes("создать ветку", " ", maxDiscoverQuery)},
		{"cjk500", repeatRunes("创建分支合并请求", "", maxDiscoverQuery)},
		{"marks500", "e" + strings.Repeat("\u0301", maxDiscoverQuery-1)},
		{"marksword500", repeatRunes("e\u0301\u0302\u0303", "", maxDiscoverQuery)},
		{"ligature500", strings.Repeat("\ufdfa", maxDiscoverQuery)}, // NFKD: 18 code points each
		{"stop500", repeatRunes("the of and to a in for on with by", " ", maxDiscoverQuery)},
		{"phrases500", repeatRunes("open an issue and ask lee to review", " ", maxDiscoverQuery)},
		{"all500", repeatRunes("list get name id create", " ", maxDiscoverQuery)},
		{"letters10k", oneLetters(10000)},
		{"word4k", strings.Repeat("a", 4096)},
		{"words4k", repeatTo("list the open pull requests of the repository and merge them", " ", 4096)},
		{"quotes4k", repeatTo("'ab", " ", 4096)},
		{"path4k", "src/" + repeatTo("ab", "/", 4092)},
	}
})

// BenchmarkSearchHostile ranks each of hostileQueries over the synthetic 10,000-tool
// catalog with a random half allowed (SPEC PERF-2's set-up), and reports the CPU time
// per search and per byte of query, to compare with the typical queries'.
//
// SPEC PERF-2
// SPEC DISC-2
func BenchmarkSearchHostile(b *testing.B) {
	benchHostile(b, func(ix *rank.Index, _ []rank.Doc, allowed rank.Set, qs []string) func(int) {
		dst := make([]rank.Hit, 0, 64)
		return func(j int) { dst = ix.Search(dst[:0], qs[j], allowed, 17) }
	})
}

// BenchmarkExplainHostile explains the best hit (or doc 0) of each of hostileQueries,
// as BenchmarkSearchHostile.
//
// SPEC PERF-2
func BenchmarkExplainHostile(b *testing.B) {
	benchHostile(b, func(ix *rank.Index, docs []rank.Doc, allowed rank.Set, qs []string) func(int) {
		best := make([]int, len(qs))
		for i, q := range qs {
			if hits := ix.Search(nil, q, allowed, 1); len(hits) > 0 {
				best[i] = hits[0].Doc
			}
		}
		return func(j int) { ix.Explain(qs[j], allowed, best[j], docs[best[j]]) }
	})
}

// benchHostile runs a sub-benchmark for each of hostileQueries over the synthetic
// 10,000-tool catalog with a random half allowed: prepare, untimed, returns the op on
// the j-th of the case's queries (rankeval.BenchQueries for "typical"), run on each in
// turn; it reports allocations, the CPU time per op and the time per byte of query.
func benchHostile(b *testing.B, prepare func(ix *rank.Index, docs []rank.Doc, allowed rank.Set, qs []string) func(j int)) {
	docs := benchCatalog(b, 10000)
	ix := rank.NewIndex(docs)
	allowed := halfAllowed(len(docs), 1)
	for _, c := range hostileQueries() {
		b.Run(c.name, func(b *testing.B) {
			qs := []string{c.q}
			if c.q == "" {
				qs = rankeval.BenchQueries
			}
			op := prepare(ix, docs, allowed, qs)
			bytes := 0
			b.ReportAllocs()
			stop := cputime.Report(b)
			for i := 0; b.Loop(); i++ {
				j := i % len(qs)
				bytes += len(qs[j])
				op(j)
			}
			stop()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(bytes), "ns/B")
		})
	}
}
