package rank_test

import (
	"testing"

	"github.com/deferredtools/deferredtools/internal/cputime"
	"github.com/deferredtools/deferredtools/rank"
)

// longQueries are task requests of several steps, as a user or an agent writes them,
// for BenchmarkSearchLong.
var longQueries = []string{
	"Create a branch fix/login-timeout off main, push src/auth/session.go to it, and open a pull request against main titled 'Fix login timeout'.",
	"The nightly pipeline failed in the test stage; list its jobs, get the log output of the failed job, and retry that job.",
	"Open https://shop.example.com/login, fill the email and password fields, click Sign in, and wait until the text 'Welcome back' appears.",
	"List every resource group in the subscription, then list the virtual machines in rg-payments-prod and show me the details of vm-payments-01.",
	"Find the page called 'Q3 Planning' in the workspace, read its content as markdown, and append a paragraph listing our three goals.",
	"Read the files src/main.go and src/config.go, find where port 8080 is hard-coded, and edit them to read the PORT environment variable.",
}

// BenchmarkSearchLong ranks long queries of several steps, one per iteration in turn,
// over the synthetic 10,000-tool catalog with a random half allowed, and reports the CPU
// time per search.
func BenchmarkSearchLong(b *testing.B) {
	docs := benchCatalog(b, 10000)
	ix := rank.NewIndex(docs)
	allowed := halfAllowed(len(docs), 1)
	dst := make([]rank.Hit, 0, 64)
	b.ReportAllocs()
	b.ResetTimer()
	stop := cputime.Report(b)
	for i := 0; b.Loop(); i++ {
		dst = ix.Search(dst[:0], longQueries[i%len(longQueries)], allowed, 17)
	}
	stop()
}

// BenchmarkExplainLong explains the best hit of each long query of BenchmarkSearchLong in
// turn, over the same catalog, and reports the CPU time per explanation.
func BenchmarkExplainLong(b *testing.B) {
	docs := benchCatalog(b, 10000)
	ix := rank.NewIndex(docs)
	allowed := halfAllowed(len(docs), 1)
	best := make([]int, len(longQueries))
	for i, q := range longQueries {
		hits := ix.Search(nil, q, allowed, 1)
		if len(hits) == 0 {
			b.Fatalf("%q matches nothing", q)
		}
		best[i] = hits[0].Doc
	}
	b.ReportAllocs()
	b.ResetTimer()
	stop := cputime.Report(b)
	for i := 0; b.Loop(); i++ {
		j := i % len(longQueries)
		ix.Explain(longQueries[j], allowed, best[j], docs[best[j]])
	}
	stop()
}
