package rank_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
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
	sets := loadKindSets(t, mode == "all")
	pools := evalPools(sets, true)
	for _, k := range slices.Sorted(maps.Keys(pools)) {
		fmt.Printf("POOL %-18s %s\n", k, pools[k])
	}
}

// TestFloorGrid prints, for RANK_FLOOR=1, the pooled figures of the tuning sets for a
// grid of no-answer gates (the best hit's share of the query's informative weight) and
// one of tail rules (rank/answer.go: under tail of the best score, matching only words
// under word times the idf of the query's most informative one).
func TestFloorGrid(t *testing.T) {
	if os.Getenv("RANK_FLOOR") == "" {
		t.Skip("set RANK_FLOOR=1")
	}
	sets := loadKindSets(t, false)
	for _, info := range []float64{0.03, 0.05, 0.07, 0.1, 0.15, 0.2} {
		restore := rank.SetFloor(rank.FloorTop, info, 1)
		pools := evalPools(sets, false)
		restore()
		fmt.Printf("info %.2f", info)
		printPools(pools)
	}
	for _, tw := range [][2]float64{{0, 0}, {0.2, 0.8}, {0.25, 0.6}, {0.25, 0.8}, {0.25, 1}, {0.3, 0.8}, {0.4, 0.8}, {0.5, 0.8}} {
		restore := rank.SetTail(tw[0], tw[1])
		pools := evalPools(sets, false)
		restore()
		fmt.Printf("tail %.2f word %.2f", tw[0], tw[1])
		printPools(pools)
	}
}

// TestRelatedGrid prints, for RANK_RELATED=1, the pooled figures of the tuning sets for
// a grid of related-word weights.
func TestRelatedGrid(t *testing.T) {
	if os.Getenv("RANK_RELATED") == "" {
		t.Skip("set RANK_RELATED=1")
	}
	sets := loadKindSets(t, false)
	for _, w := range []float64{0, 0.2, 0.3, 0.4, 0.5} {
		restore := rank.SetRelatedWeight(w)
		pools := evalPools(sets, false)
		restore()
		fmt.Printf("related %.2f", w)
		printPools(pools)
	}
}

// printPools prints the pools the grids compare on one line.
func printPools(pools map[string]*pooled) {
	for _, k := range []string{"metatool", "dev", "long15", "long", "typo(generated)", "kinds:paraphrase", "kinds:task", "kinds:nonenglish", "kinds:nomatch", "nomatch"} {
		p := pools[k]
		if p == nil {
			continue
		}
		d := max(p.n, 1)
		fmt.Printf(" | %s %.3f/%.3f/%.3f e%.2f p%.2f/%.0f", k, p.ndcg/d, p.r5/d, p.r10/d, p.answered/max(p.empty, 1), p.tools/max(p.all, 1), p.bytes/max(p.all, 1))
	}
	fmt.Println()
}

// typoQueries returns qs with the two letters after the second of the longest word of
// each query swapped, as a typing slip would ("branches" -> "brnaches"); queries whose
// words are all shorter than five letters are left out.
func typoQueries(qs []rankeval.Query) []rankeval.Query {
	var out []rankeval.Query
	for _, q := range qs {
		words := strings.Fields(q.Query)
		long := -1
		for i, w := range words {
			if len(w) >= 5 && (long < 0 || len(w) > len(words[long])) {
				long = i
			}
		}
		if long < 0 || len(q.Relevant) == 0 {
			continue
		}
		b := []byte(words[long])
		b[2], b[3] = b[3], b[2]
		words[long] = string(b)
		out = append(out, rankeval.Query{Query: strings.Join(words, " "), Relevant: q.Relevant, Kind: "typo"})
	}
	return out
}

type kindSet struct {
	devSet
	docs []rank.Doc
	qs   []rankeval.Query
}

// loadKindSets loads the development sets, with the held-out and blind ones if all.
func loadKindSets(t *testing.T, all bool) []kindSet {
	var sets []kindSet
	for _, ds := range devSets(t) {
		if heldOut(ds.name) && !all {
			continue
		}
		docs, qs := ds.load(t)
		sets = append(sets, kindSet{ds, docs, qs})
	}
	return sets
}

type pooled struct{ n, empty, all, answered, ndcg, r5, r10, tools, bytes float64 }

func (p *pooled) String() string {
	d := max(p.n, 1)
	return fmt.Sprintf("n=%4.0f nDCG@10 %.3f R@5 %.3f R@10 %.3f empty %2.0f answered %.2f page %5.2f tools %6.0f bytes",
		p.n, p.ndcg/d, p.r5/d, p.r10/d, p.empty, p.answered/max(p.empty, 1), p.tools/max(p.all, 1), p.bytes/max(p.all, 1))
}

func (p *pooled) add(rep *rankeval.Report) {
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

// evalPools evaluates every set and pools the reports: metatool, dev (our older sets),
// fresh (held out), the .kinds and .kblind sets by kind, and the older sets' queries
// with a typo.
func evalPools(sets []kindSet, print bool) map[string]*pooled {
	pools := map[string]*pooled{}
	add := func(key string, rep *rankeval.Report) {
		if pools[key] == nil {
			pools[key] = &pooled{}
		}
		pools[key].add(rep)
	}
	for _, ds := range sets {
		rep := rankeval.Evaluate(ds.docs, ds.qs, rankeval.Ours(ds.docs))
		if print {
			one := &pooled{}
			one.add(&rep)
			fmt.Printf("%-20s %s\n", ds.name, one)
		}
		var long []rankeval.Query
		for _, q := range ds.qs {
			if len(strings.Fields(q.Query)) >= 15 {
				long = append(long, q)
			}
		}
		if len(long) > 0 {
			// Long queries (15 words or more) of every set, MetaTool's included.
			lrep := rankeval.Evaluate(ds.docs, long, rankeval.Ours(ds.docs))
			add("long15", &lrep)
		}
		_, group, _ := strings.Cut(ds.name, ".")
		if group != "kinds" && group != "kblind" && group != "nomatch" && group != "nmblind" && ds.name != "metatool" {
			// The same queries with a typo: two letters of the longest word swapped.
			typo := rankeval.Evaluate(ds.docs, typoQueries(ds.qs), rankeval.Ours(ds.docs))
			add("typo(generated)", &typo)
		}
		switch group {
		case "kinds", "kblind":
			for k, r := range rep.ByKind {
				add(group+":"+k, r)
			}
			add(group+":all", &rep)
		case "":
			if ds.name == "metatool" {
				add(ds.name, &rep)
			} else {
				add("dev", &rep)
			}
		case "fresh":
			add("fresh", &rep)
		case "long", "lblind":
			add(group, &rep) // long task queries (issue 15), and their blind third
		case "nomatch", "nmblind":
			add(group, &rep) // no-match queries (issue 15), and their blind third
		default:
			add("dev", &rep)
		}
	}
	return pools
}

// TestNoMatchDump writes, for RANK_DUMP=file, a full evaluation of every query of the
// tuning sets (JSON lines: set, query, relevant tools, kind, terms, best 30 hits), for
// studying the no-answer gate offline.
func TestNoMatchDump(t *testing.T) {
	out := os.Getenv("RANK_DUMP")
	if out == "" {
		t.Skip("set RANK_DUMP=file")
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, ds := range loadKindSets(t, false) {
		ix := rank.NewIndex(ds.docs)
		all := allOf(len(ds.docs))
		qs := ds.qs
		if _, group, _ := strings.Cut(ds.name, "."); group != "kinds" && group != "kblind" && group != "nomatch" && ds.name != "metatool" {
			qs = append(slices.Clone(qs), typoQueries(ds.qs)...)
		}
		for _, q := range qs {
			dg := ix.Diagnose(q.Query, all, 30)
			type hit struct {
				Name    string
				Rel     bool
				Bytes   int
				Score   float64
				Contrib []float64
			}
			var hits []hit
			for _, h := range dg.Hits {
				d := ds.docs[h.Doc]
				hits = append(hits, hit{d.Name, slices.Contains(q.Relevant, d.Name), len(d.Name) + len(d.Title) + len(d.Description) + len(d.Params), h.Score, h.Contrib})
			}
			if err := enc.Encode(map[string]any{"set": ds.name, "query": q.Query, "relevant": q.Relevant, "kind": q.Kind,
				"info": dg.Info, "terms": dg.Terms, "hits": hits}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
