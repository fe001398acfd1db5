package rank

import (
	"fmt"
	"os"
	"testing"

	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// TestCompareDebug prints, for COMPARE_DEBUG=<dataset>, the queries where bleve ranks a
// relevant tool higher than rank does.
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
