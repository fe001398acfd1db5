package rank

import (
	"fmt"
	"os"
	"testing"

	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// TestCompareDebug prints, for COMPARE_DEBUG=<dataset>, the queries where bleve ranks a
// relevant tool higher than rank does; with COMPARE_MISSES=1 also every query where rank
// leaves a relevant tool out of its first five.
func TestCompareDebug(t *testing.T) {
	name := os.Getenv("COMPARE_DEBUG")
	if name == "" {
		t.Skip("set COMPARE_DEBUG to a dataset name")
	}
	for _, ds := range datasets(t) {
		if ds.name != name {
			continue
		}
		docs, _ := rankeval.LoadCatalog(ds.catalog)
		qs, _ := rankeval.LoadQueries(ds.queries)
		bl, err := NewBleve(docs)
		if err != nil {
			t.Fatal(err)
		}
		ours, theirs := rankeval.Ours(docs), bl.Ranker()
		worse := 0
		for _, q := range qs {
			if len(q.Relevant) == 0 {
				continue
			}
			a, b := ours(q.Query, 10), theirs(q.Query, 10)
			ma, mb := rankeval.Score(a, q.Relevant), rankeval.Score(b, q.Relevant)
			if os.Getenv("COMPARE_MISSES") != "" && ma.Recall5 < 1 {
				fmt.Printf("MISS@5 %q want %v\n  ours  %v\n  bleve %v\n", q.Query, q.Relevant, a[:min(6, len(a))], b[:min(6, len(b))])
			}
			if mb.NDCG10 > ma.NDCG10+1e-9 {
				worse++
				if worse <= 40 {
					fmt.Printf("%q want %v\n  ours  %v\n  bleve %v\n", q.Query, q.Relevant, a[:min(4, len(a))], b[:min(4, len(b))])
				}
			}
		}
		fmt.Println("queries where bleve is better:", worse)
	}
}
