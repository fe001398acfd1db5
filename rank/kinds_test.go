package rank_test

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// TestKinds prints, for RANK_KINDS=1, the figures of every development set (the
// held-out .fresh and the blind .kblind sets only with RANK_KINDS=all): nDCG@10, Recall@5
// and @10, the share of no-answer queries answered empty, and the mean tools and bytes of
// a first page at limit 16; then the .kinds sets pooled by kind of query (paraphrase,
// task, nomatch, nonenglish), and the mean over the other sets.
func TestKinds(t *testing.T) {
	mode := os.Getenv("RANK_KINDS")
	if mode == "" {
		t.Skip("set RANK_KINDS=1 (or all, with the held-out and blind sets)")
	}
	type pooled struct{ n, empty, all, answered, ndcg, r5, r10, tools, bytes float64 }
	pools := map[string]*pooled{}
	add := func(key string, rep *rankeval.Report) {
		p := pools[key]
		if p == nil {
			p = &pooled{}
			pools[key] = p
		}
		n, e := float64(rep.Queries), float64(rep.EmptyQueries)
		p.n += n
		p.empty += e
		p.answered += rep.EmptyAnswered * e
		p.ndcg += rep.NDCG10 * n
		p.r5 += rep.Recall5 * n
		p.r10 += rep.Recall10 * n
		p.all += n + e
		p.tools += rep.PageTools * (n + e)
		p.bytes += rep.PageBytes * (n + e)
	}
	for _, ds := range devSets(t) {
		blind := strings.HasSuffix(ds.name, ".kblind")
		if (heldOut(ds.name) || blind) && mode != "all" {
			continue
		}
		docs, qs := ds.load(t)
		rep := rankeval.Evaluate(docs, qs, rankeval.Ours(docs))
		fmt.Printf("%-20s n=%4d nDCG@10 %.3f R@5 %.3f R@10 %.3f empty %d answered %.2f page %5.2f tools %6.0f bytes\n",
			ds.name, rep.Queries, rep.NDCG10, rep.Recall5, rep.Recall10, rep.EmptyQueries, rep.EmptyAnswered, rep.PageTools, rep.PageBytes)
		switch {
		case strings.HasSuffix(ds.name, ".kinds") || blind:
			group := "kinds"
			if blind {
				group = "kblind"
			}
			for k, r := range rep.ByKind {
				add(group+":"+k, r)
			}
			add(group+":all", &rep)
		case ds.name == "metatool":
		case heldOut(ds.name):
			add("fresh", &rep)
		default:
			add("dev", &rep)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(pools)) {
		p := pools[k]
		d := max(p.n, 1)
		fmt.Printf("POOL %-18s n=%3.0f nDCG@10 %.3f R@5 %.3f R@10 %.3f empty %2.0f answered %.2f page %5.2f tools %6.0f bytes\n",
			k, p.n, p.ndcg/d, p.r5/d, p.r10/d, p.empty, p.answered/max(p.empty, 1), p.tools/max(p.all, 1), p.bytes/max(p.all, 1))
	}
}
