package rank_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// tune2Sets loads tune2's sets (testdata/tune2) of the given catalogs (all of them when
// none is given), named CAT.t2KIND.
func tune2Sets(t *testing.T, catalogs ...string) []kindSet {
	var sets []kindSet
	files, _ := filepath.Glob("testdata/tune2/*.json")
	for _, f := range files {
		cat, kind, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".json"), ".")
		if len(catalogs) > 0 && !slices.Contains(catalogs, cat) {
			continue
		}
		ds := devSet{cat + ".t2" + kind, filepath.Join(sharedData, "catalogs", cat+".json"), f}
		docs, qs := ds.load(t)
		sets = append(sets, kindSet{ds, docs, qs})
	}
	return sets
}

// gateQueries returns the queries of ds the gate studies read: its own, and typos of
// those of the older sets (not kinds, nomatch, metatool or tune2's).
func gateQueries(ds kindSet) []rankeval.Query {
	if _, group, _ := strings.Cut(ds.name, "."); group == "kinds" || group == "nomatch" || ds.name == "metatool" || strings.HasPrefix(group, "t2") {
		return ds.qs
	}
	return append(slices.Clone(ds.qs), typoQueries(ds.qs)...)
}

// TestGateWordDump writes, for RANK_WORDDUMP=file, one JSON line per query of the tuning
// sets and of tune2's github, azure and notion sets: today's answer, the gate's figures
// and, for its best five hits, the fields holding each of its words (rank.WordGroups).
func TestGateWordDump(t *testing.T) {
	out := os.Getenv("RANK_WORDDUMP")
	if out == "" {
		t.Skip("set RANK_WORDDUMP=file")
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	sets := append(loadKindSets(t, false), tune2Sets(t, "github", "azure", "notion")...)
	for _, ds := range sets {
		ix := rank.NewIndex(ds.docs)
		all := allOf(len(ds.docs))
		named := map[string]bool{}
		for _, d := range ds.docs {
			for _, term := range rank.Analyze(d.Name + " " + d.Title) {
				named[term] = true
			}
		}
		qs := gateQueries(ds)
		for _, q := range qs {
			hits := ix.Search(nil, q.Query, all, rankeval.K)
			got := names(ds.docs, hits)
			g := ix.GateStats(q.Query, all)
			top := hits[:min(5, len(hits))]
			type hit struct {
				Name  string
				Score float64
				Rel   bool
				Lead  int // fields holding a term of the lead verb
			}
			var hs []hit
			for _, h := range top {
				hs = append(hs, hit{ds.docs[h.Doc].Name, h.Score, slices.Contains(q.Relevant, ds.docs[h.Doc].Name), ix.TermFields(ds.docs[h.Doc], g.LeadTerms)})
			}
			m := rankeval.Score(got, q.Relevant)
			groups := ix.WordGroups(q.Query, all, top, ds.docs)
			// cooc[i]: fields bitmask OR over docs holding a lead term in name or title and
			// group i anywhere; leadDocs: docs holding a lead term in name or title.
			cooc := make([]int, len(groups))
			leadDocs := 0
			if g.LeadVerb {
				for _, d := range ds.docs {
					if ix.TermFields(d, g.LeadTerms)&3 == 0 {
						continue
					}
					leadDocs++
					for i, gr := range groups {
						cooc[i] |= ix.TermFields(d, gr.GroupTerms())
					}
				}
			}
			row := map[string]any{"ndcg": m.NDCG10, "r5": m.Recall5, "n": len(ds.docs),
				"set": ds.name, "query": q.Query, "kind": q.Kind, "nomatch": len(q.Relevant) == 0,
				"empty": len(got) == 0, "found": len(q.Relevant) > 0 && rankeval.Score(got, q.Relevant).Recall10 > 0,
				"top": g.Top, "info": g.Info, "words": g.Words, "novel": g.Novel, "leadverb": g.LeadVerb,
				"unnamed":   g.LeadVerb && !slices.ContainsFunc(g.LeadTerms, func(s string) bool { return named[s] }),
				"leadterms": g.LeadTerms, "hits": hs, "groups": groups, "cooc": cooc, "leaddocs": leadDocs,
			}
			if err := enc.Encode(row); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The short-query gate (TUNING.md, "Eighth pass"): a query of at most shortWords words
// whose best hit scores under shortShare of its informative weight, its novel words alone
// counting as unknown (rank.ShortGate), answered empty. Measured, not adopted.
const (
	shortWords = 5
	shortShare = 0.09
)

// TestShortGateGrid prints, for RANK_GATE=short, the tuning pools for a grid of the
// short-query gate (rank.ShortGate: words x share of the informative weight): for each
// pool, the no-match queries then answered empty, the answered queries it empties (those
// with a relevant tool in their top 10 in parentheses) and the change of nDCG@10 and
// Recall@5. The pools are those of shortTrade without the checked ones.
func TestShortGateGrid(t *testing.T) {
	if os.Getenv("RANK_GATE") != "short" {
		t.Skip("set RANK_GATE=short")
	}
	sets := gateSets(t, false)
	for _, words := range []int{3, 4, 5, 6, 8} {
		for _, share := range []float64{0.07, 0.08, 0.09, 0.1, 0.12} {
			pools := shortTrade(sets, words, share, false)
			fmt.Printf("words %d share %.2f", words, share)
			for _, k := range slices.Sorted(maps.Keys(pools)) {
				p := pools[k]
				fmt.Printf(" | %s", k)
				if p.nm > 0 {
					fmt.Printf(" empty %d->%d", p.emptyBefore, p.emptyAfter)
				}
				if p.n > 0 {
					d := float64(p.n)
					fmt.Printf(" lost %d(%d) %+.4f/%+.4f", p.emptied, p.lost, (p.ndcgA-p.ndcgB)/d, (p.r5A-p.r5B)/d)
				}
			}
			fmt.Println()
		}
	}
}

// TestShortGateTrade prints, for RANK_GATE=trade, what the short-query gate at
// shortWords and shortShare changes, pool by pool: no-match queries answered empty before
// and after, answered queries it empties (and of those, the ones with a relevant tool in
// their top 10), and nDCG@10 / Recall@5 before and after. The pools are the tuning ones
// the gate was chosen on; with RANK_GATE_CHECK=1 also the two it was checked on once,
// each printed pooled only: tune2's gitlab, mcp-reference and playwright sets, and the
// held-out .nmblind sets. RANK_GATE_SHOW=1 prints the tuning queries it empties.
func TestShortGateTrade(t *testing.T) {
	runTrade(t, "trade", func(sets []gateSet, show bool) map[string]*gatePool {
		return shortTrade(sets, shortWords, shortShare, show)
	})
}

// runTrade prints, when RANK_GATE is gate, what trade changes pool by pool in the
// tuning pools (RANK_GATE_CHECK=1: the checked pools too, pooled; RANK_GATE_SHOW=1: the
// tuning queries it empties); otherwise it skips t.
func runTrade(t *testing.T, gate string, trade func(sets []gateSet, show bool) map[string]*gatePool) {
	if os.Getenv("RANK_GATE") != gate {
		t.Skip("set RANK_GATE=" + gate)
	}
	printTrade(trade(gateSets(t, os.Getenv("RANK_GATE_CHECK") != ""), os.Getenv("RANK_GATE_SHOW") != ""))
}

// A gateSet is a set of queries and the pool it counts in.
type gateSet struct {
	kindSet
	pool string
}

// gateSets returns the sets the no-answer gate is studied on, each with its pool: the
// tuning sets (metatool, dev, long, kinds, nomatch; the older sets' queries with a typo
// apart, as TestKinds pools them) and tune2's github, azure and notion sets; with check,
// also tune2's other three catalogs and the held-out .nmblind sets, pooled apart.
func gateSets(t *testing.T, check bool) []gateSet {
	var out []gateSet
	for _, ds := range loadKindSets(t, false) {
		_, group, _ := strings.Cut(ds.name, ".")
		pool := "dev"
		switch {
		case ds.name == "metatool":
			pool = "metatool"
		case group == "kinds" || group == "nomatch" || group == "long":
			pool = group
		}
		out = append(out, gateSet{ds, pool})
		if pool != "metatool" && pool != "kinds" && pool != "nomatch" {
			typo := ds
			typo.qs = typoQueries(ds.qs)
			out = append(out, gateSet{typo, "typo(generated)"})
		}
	}
	for _, ds := range tune2Sets(t, "github", "azure", "notion") {
		out = append(out, gateSet{ds, "tune2 github+azure+notion"})
	}
	if check {
		for _, ds := range tune2Sets(t, "gitlab", "mcp-reference", "playwright") {
			out = append(out, gateSet{ds, "CHECK tune2 gitlab+mcp-reference+playwright"})
		}
		for _, ds := range devSets(t) {
			if strings.HasSuffix(ds.name, ".nmblind") {
				docs, qs := ds.load(t)
				out = append(out, gateSet{kindSet{ds, docs, qs}, "CHECK nmblind"})
			}
		}
	}
	return out
}

// A gatePool is what a no-answer rule changes in one pool of query sets.
type gatePool struct {
	nm, emptyBefore, emptyAfter int     // no-match queries, and those answered empty
	n, emptied, lost            int     // answered queries, those emptied, and of those the ones with a relevant tool in the top 10
	ndcgB, ndcgA, r5B, r5A      float64 // sums over the answered queries, before and after
}

// shortTrade evaluates every set with the short-query gate (rank.ShortGate) at words and
// share, against Search as it is.
func shortTrade(sets []gateSet, words int, share float64, show bool) map[string]*gatePool {
	return gateTrade(sets, show, emptyWhen(func(_ gateSet, ix *rank.Index, query string, all rank.Set) bool {
		return ix.ShortGate(query, all, words, share)
	}))
}

// emptyWhen returns the search of gateTrade for a no-answer rule: Search's hits, and none
// when Search answers and gate holds for the query.
func emptyWhen(gate func(ds gateSet, ix *rank.Index, query string, all rank.Set) bool) func(gateSet, *rank.Index, string, rank.Set) (before, after []rank.Hit) {
	return func(ds gateSet, ix *rank.Index, query string, all rank.Set) (before, after []rank.Hit) {
		before = ix.Search(nil, query, all, rankeval.K)
		if len(before) > 0 && gate(ds, ix, query, all) {
			return before, nil
		}
		return before, before
	}
}

// objectTrade evaluates every set with Search as it is against Search without the
// verb-object gate (answer.go).
func objectTrade(sets []gateSet, show bool) map[string]*gatePool {
	return gateTrade(sets, show, func(_ gateSet, ix *rank.Index, query string, all rank.Set) (before, after []rank.Hit) {
		restore := rank.SetObject(0, 0)
		before = ix.Search(nil, query, all, rankeval.K)
		restore()
		return before, ix.Search(nil, query, all, rankeval.K)
	})
}

// gateTrade evaluates every set with search, which returns a query of the set's hits
// before and after a no-answer rule; show prints the queries the rule empties, those of
// the checked pools aside.
func gateTrade(sets []gateSet, show bool, search func(ds gateSet, ix *rank.Index, query string, all rank.Set) (before, after []rank.Hit)) map[string]*gatePool {
	pools := map[string]*gatePool{}
	for _, ds := range sets {
		p := pools[ds.pool]
		if p == nil {
			p = &gatePool{}
			pools[ds.pool] = p
		}
		ix := rank.NewIndex(ds.docs)
		all := allOf(len(ds.docs))
		for _, q := range ds.qs {
			hb, ha := search(ds, ix, q.Query, all)
			before, after := names(ds.docs, hb), names(ds.docs, ha)
			if show && len(before) > 0 && len(after) == 0 && !strings.HasPrefix(ds.pool, "CHECK") {
				fmt.Printf("  emptied (no-match %v): %s: %s\n", len(q.Relevant) == 0, ds.name, q.Query)
			}
			if len(q.Relevant) == 0 {
				p.nm++
				p.emptyBefore += b2i(len(before) == 0)
				p.emptyAfter += b2i(len(after) == 0)
				continue
			}
			mb, ma := rankeval.Score(before, q.Relevant), rankeval.Score(after, q.Relevant)
			p.n++
			p.ndcgB += mb.NDCG10
			p.ndcgA += ma.NDCG10
			p.r5B += mb.Recall5
			p.r5A += ma.Recall5
			if len(before) > 0 && len(after) == 0 {
				p.emptied++
				p.lost += b2i(mb.Recall10 > 0)
			}
		}
	}
	return pools
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestObjectGateTrade prints, for RANK_GATE=object, what the verb-object gate
// (answer.go) changes pool by pool, as TestShortGateTrade does for the short gate
// (RANK_GATE_CHECK=1: the checked pools too, pooled; RANK_GATE_SHOW=1: the tuning
// queries it empties).
func TestObjectGateTrade(t *testing.T) {
	runTrade(t, "object", objectTrade)
}

// printTrade prints the pools of a gateTrade.
func printTrade(pools map[string]*gatePool) {
	for _, k := range slices.Sorted(maps.Keys(pools)) {
		p := pools[k]
		fmt.Printf("%-44s no-match %d: empty %d -> %d | answered %d: emptied %d (%d with a relevant tool in the top 10)", k, p.nm, p.emptyBefore, p.emptyAfter, p.n, p.emptied, p.lost)
		if p.n > 0 {
			d := float64(p.n)
			fmt.Printf(", nDCG@10 %.4f -> %.4f, R@5 %.4f -> %.4f", p.ndcgB/d, p.ndcgA/d, p.r5B/d, p.r5A/d)
		}
		fmt.Println()
	}
}

// opsTrade evaluates every set with the operations gate (rank.OpsGate at opsShare and
// opsWords), against Search as it is.
func opsTrade(sets []gateSet, show bool) map[string]*gatePool {
	ops := map[string][]uint32{}
	return gateTrade(sets, show, emptyWhen(func(ds gateSet, ix *rank.Index, query string, all rank.Set) bool {
		if ops[ds.catalog] == nil {
			ops[ds.catalog] = rank.DocOps(ds.docs)
		}
		return ix.OpsGate(ops[ds.catalog], query, all, opsShare, opsWords)
	}))
}

// The operations gate (TUNING.md, "Ninth pass"), as fixed before its check: at most
// opsWords words, the best hit under opsShare of the informative weight. Measured, not
// adopted.
const (
	opsShare = 0.5
	opsWords = 10
)

// TestOpsGateTrade prints, for RANK_GATE=ops, what the operations gate (rank.OpsGate)
// changes pool by pool, as TestShortGateTrade does for the short gate
// (RANK_GATE_CHECK=1: the checked pools too, pooled; RANK_GATE_SHOW=1: the tuning
// queries it empties).
func TestOpsGateTrade(t *testing.T) {
	runTrade(t, "ops", opsTrade)
}
