package rank

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/deferredtools/deferredtools/internal/cputime"
	dtrank "github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

const benchTools = 10000

// benchData is the synthetic 10,000-tool catalog (the real catalogs repeated with
// suffixed names when present) and a seeded random half of it allowed.
func benchData(b *testing.B) (docs []dtrank.Doc, allowed dtrank.Set, allowedDocs []dtrank.Doc) {
	docs, real, err := rankeval.Synthetic(filepath.Join(dataDir, "catalogs"), benchTools)
	if err != nil {
		b.Fatal(err)
	}
	if !real {
		b.Logf("real catalogs absent under %s: using a generated catalog of %d tools", dataDir, benchTools)
	}
	r := rand.New(rand.NewPCG(1, 7))
	allowed = dtrank.NewSet(len(docs))
	for i, d := range docs {
		if r.IntN(2) == 0 {
			allowed.Add(i)
			allowedDocs = append(allowedDocs, d)
		}
	}
	return docs, allowed, allowedDocs
}

// BenchmarkSearch ranks the same 100 queries (one per iteration in turn, 17 results: a
// page of 16 and one to know there is more) with rank and with bleve on the same content
// (SPEC PERF-2):
//
//   - ours: rank over the 10,000 tools with a random half allowed (statistics over the
//     allowed half only);
//   - bleve: bleve over the same 10,000 tools, no filter;
//   - bleve-allowed: bleve over an index holding only the allowed half, which gives bleve
//     the same statistics and half the postings;
//   - bleve-scorch, bleve-scorch-allowed: the same on bleve's default index type, scorch,
//     in memory (bleve.NewMemOnly uses the older upsidedown type).
func BenchmarkSearch(b *testing.B) {
	docs, allowed, allowedDocs := benchData(b)
	queries := rankeval.BenchQueries
	b.Run("ours", func(b *testing.B) {
		ix := dtrank.NewIndex(docs)
		dst := make([]dtrank.Hit, 0, 32)
		b.ReportAllocs()
		b.ResetTimer()
		stop := cputime.Report(b)
		for i := 0; b.Loop(); i++ {
			dst = ix.Search(dst[:0], queries[i%len(queries)], allowed, 17)
		}
		stop()
	})
	for _, c := range []struct {
		name string
		docs []dtrank.Doc
		new  func([]dtrank.Doc) (*Bleve, error)
	}{
		{"bleve", docs, NewBleve},
		{"bleve-allowed", allowedDocs, NewBleve},
		{"bleve-scorch", docs, NewBleveScorch},
		{"bleve-scorch-allowed", allowedDocs, NewBleveScorch},
	} {
		b.Run(c.name, func(b *testing.B) {
			bl, err := c.new(c.docs)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			stop := cputime.Report(b)
			for i := 0; b.Loop(); i++ {
				if _, err := bl.Search(queries[i%len(queries)], 17); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}
