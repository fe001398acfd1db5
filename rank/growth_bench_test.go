package rank_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/internal/cputime"
	"github.com/deferredtools/deferredtools/rank"
)

// growthKinds are the shapes of hostileQueries that a longer text repeats: a unit and
// the separator between its copies.
var growthKinds = []struct{ name, unit, sep string }{
	{"long", "list the open pull requests of the repository and merge them", " "},
	{"steps", "create a branch, push the file src/main.go, and open a pull request titled 'Fix it'", ". "},
	{"camel", "getPullRequestReviews listBranchesForUser", " "},
	{"caps", "HTTPSERVER GETPULLREQUESTS", " "},
	{"capsrun", "AB", ""},
	{"urls", "https://example.com/a/b/c/pipelines/9", " "},
	{"path", "ab", "/"},
	{"pathecho", "branch/pull/request", "/"},
	{"quotes", "'ab", " "},
	{"closedquotes", "'ab'", " "},
	{"backquotes", "`a", " "},
	{"numbers", "#45 and #46", " and "},
	{"cyrillic", "создать ветку", " "},
	{"cjk", "创建分支合并请求", ""},
	{"marks", "\u0301", ""},
	{"marksword", "e\u0301\u0302\u0303", ""},
	{"ligature", "\ufdfa", ""},
	{"stop", "the of and to a in for on with by", " "},
	{"phrases", "open an issue and ask lee to review", " "},
	{"all", "list get name id create", " "},
	{"letters", "a b c d e f g h i j k l m n o p q r s t u v w x y z", " "},
	{"word", "a", ""},
}

// growthSizes are the query lengths BenchmarkSearchGrowth runs, in bytes.
var growthSizes = []int{2048, 16384}

// BenchmarkSearchGrowth ranks each of growthKinds at 2 KiB and at 16 KiB (rank's own
// API takes any string; discovery stops at 500 code points) over the synthetic
// 10,000-tool catalog with a random half allowed: the CPU time of bytes=16384 over
// that of bytes=2048 is what 8 times the text costs, linear near 8.
//
// SPEC PERF-2
func BenchmarkSearchGrowth(b *testing.B) {
	docs := benchCatalog(b, 10000)
	ix := rank.NewIndex(docs)
	allowed := halfAllowed(len(docs), 1)
	for _, k := range growthKinds {
		for _, n := range growthSizes {
			q := repeatTo(k.unit, k.sep, n)
			if k.name == "marks" {
				q = "e" + repeatTo(k.unit, "", n-1)
			}
			b.Run(fmt.Sprintf("kind=%s/bytes=%d", k.name, n), func(b *testing.B) {
				if len(q) < n-len(k.unit)-len(k.sep) || !strings.Contains(q, k.unit) {
					b.Fatalf("query of %d bytes, want about %d", len(q), n)
				}
				dst := make([]rank.Hit, 0, 64)
				b.ReportAllocs()
				stop := cputime.Report(b)
				for b.Loop() {
					dst = ix.Search(dst[:0], q, allowed, 17)
				}
				stop()
			})
		}
	}
}

// BenchmarkSearchDepth ranks a query most tools match, asking for more hits: discovery's
// page at offset o asks for o + limit + 1 (k = 17 is the first page), and k = 0 here
// means every hit. It reports the hits found (hits/op).
//
// SPEC PERF-2
func BenchmarkSearchDepth(b *testing.B) {
	docs := benchCatalog(b, 10000)
	ix := rank.NewIndex(docs)
	allowed := halfAllowed(len(docs), 1)
	for _, q := range []string{"list get name id create", "list"} {
		for _, k := range []int{17, 1000, 0} {
			if k == 0 {
				k = len(docs)
			}
			name := fmt.Sprint(k)
			if k == len(docs) {
				name = "all"
			}
			b.Run(fmt.Sprintf("q=%s/k=%s", strings.ReplaceAll(q, " ", "_"), name), func(b *testing.B) {
				dst := make([]rank.Hit, 0, k)
				b.ReportAllocs()
				stop := cputime.Report(b)
				for b.Loop() {
					dst = ix.Search(dst[:0], q, allowed, k)
				}
				stop()
				b.ReportMetric(float64(len(dst)), "hits/op")
			})
		}
	}
}
