package rank_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// TestTune2Misses prints, for RANK_TUNE2MISS=<kind>, each tune2 query of that kind (of
// testdata/queries for kinds, and for long with RANK_MISSDIR set)
// under nDCG@10 1 with its score, the rank of each relevant tool (0: not in the first
// 50) and the first five hits.
func TestTune2Misses(t *testing.T) {
	kind := os.Getenv("RANK_TUNE2MISS")
	if kind == "" {
		t.Skip("set RANK_TUNE2MISS to long, para or nomatch")
	}
	if _, err := os.Stat(sharedData); err != nil {
		t.Skipf("shared data folder %s absent", sharedData)
	}
	dir := "testdata/tune2"
	if kind == "kinds" || kind == "long" && os.Getenv("RANK_MISSDIR") != "" {
		dir = "testdata/queries" // a tuning set of our own: never a blind or held-out one
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*."+kind+".json"))
	for _, f := range files {
		cat, _, _ := strings.Cut(filepath.Base(f), ".")
		docs, qs := devSet{cat, filepath.Join(sharedData, "catalogs", cat+".json"), f}.load(t)
		r := rankerFor(docs, rank.DefaultParams)
		for _, q := range qs {
			got := r(q.Query, 50)
			m := rankeval.Score(got, q.Relevant)
			if len(q.Relevant) > 0 && m.NDCG10 > 0.999 {
				continue
			}
			var ranks []string
			for _, n := range q.Relevant {
				ranks = append(ranks, fmt.Sprintf("%s:%d", n, slices.Index(got, n)+1))
			}
			fmt.Printf("%s %.3f %q\n   want %v\n   got  %v\n", cat, m.NDCG10, q.Query, ranks, got[:min(6, len(got))])
		}
	}
}
