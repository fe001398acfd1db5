package rank_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// rankerFor is rankeval.Ours over an index built with p (TestTune's variants).
func rankerFor(docs []rank.Doc, p rank.Params) rankeval.Ranker {
	ix := rank.NewIndexParams(docs, p)
	all := rank.NewSet(len(docs))
	for i := range docs {
		all.Add(i)
	}
	return func(q string, k int) []string {
		var names []string
		for _, h := range ix.Search(nil, q, all, k) {
			names = append(names, docs[h.Doc].Name)
		}
		return names
	}
}

// TestDebugMisses prints, for RANK_DEBUG=<pattern>, each query under nDCG@10 1 (a
// no-match query: answered at all) of the sets whose name matches the path.Match
// pattern, with its score, the rank of each relevant tool in the first 50 (0: absent)
// and the first six hits. The sets are the development ones (github.long, *.para,
// metatool) and tune2's as tune2/CATALOG.KIND; held-out sets only when named whole.
func TestDebugMisses(t *testing.T) {
	pattern := os.Getenv("RANK_DEBUG")
	if pattern == "" {
		t.Skip("set RANK_DEBUG to a set name or pattern (github.long, *.kinds, tune2/*.para)")
	}
	sets := devSets(t)
	tune2, _ := filepath.Glob("testdata/tune2/*.json")
	for _, f := range tune2 {
		n := strings.TrimSuffix(filepath.Base(f), ".json")
		catalog, _, _ := strings.Cut(n, ".")
		sets = append(sets, devSet{"tune2/" + n, filepath.Join(sharedData, "catalogs", catalog+".json"), f})
	}
	for _, ds := range sets {
		if ok, err := path.Match(pattern, ds.name); err != nil {
			t.Fatal(err)
		} else if !ok || heldOut(ds.name) && pattern != ds.name {
			continue
		}
		docs, qs := ds.load(t)
		r := rankeval.Ours(docs)
		for _, q := range qs {
			got := r(q.Query, 50)
			m := rankeval.Score(got, q.Relevant)
			if len(q.Relevant) > 0 && m.NDCG10 > 0.999 || len(q.Relevant) == 0 && len(got) == 0 {
				continue
			}
			var ranks []string
			for _, n := range q.Relevant {
				ranks = append(ranks, fmt.Sprintf("%s:%d", n, slices.Index(got, n)+1))
			}
			fmt.Printf("%s %.3f %q\n   want %v\n   got  %v\n", ds.name, m.NDCG10, q.Query, ranks, got[:min(6, len(got))])
		}
	}
}

type devSet struct{ name, catalog, queries string }

func (d devSet) load(t testing.TB) ([]rank.Doc, []rankeval.Query) {
	docs, err := rankeval.LoadCatalog(d.catalog)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := rankeval.LoadQueries(d.queries)
	if err != nil {
		t.Fatal(err)
	}
	return docs, qs
}

const sharedData = "../../shared/data"

// devSets lists the development datasets: MetaTool and our query sets for the real
// catalogs. It skips when the shared data folder is absent and fails when it is present
// but holds none of them.
func devSets(t testing.TB) []devSet {
	if _, err := os.Stat(sharedData); err != nil {
		t.Skipf("shared data folder %s absent: no quality evaluation", sharedData)
	}
	var sets []devSet
	mt := filepath.Join(sharedData, "retrieval/metatool")
	if _, err := os.Stat(filepath.Join(mt, "queries.json")); err == nil {
		sets = append(sets, devSet{"metatool", filepath.Join(mt, "tools.json"), filepath.Join(mt, "queries.json")})
	}
	qfiles, _ := filepath.Glob("testdata/queries/*.json")
	for _, q := range qfiles {
		n := strings.TrimSuffix(filepath.Base(q), ".json")
		catalog, _, _ := strings.Cut(n, ".") // github.agent.json is a second set for github.json
		c := filepath.Join(sharedData, "catalogs", catalog+".json")
		if _, err := os.Stat(c); err == nil {
			sets = append(sets, devSet{n, c, q})
		}
	}
	if len(sets) == 0 {
		t.Fatalf("shared data folder %s present but no dev dataset found in it", sharedData)
	}
	return sets
}

// TestTune prints the metrics of parameter variants on every development set but the
// held-out ones, for RANK_TUNE=1 (every variant), RANK_TUNE=features (features turned
// off one at a time) or RANK_TUNE=params (the grid of parameter-field constants).
func TestTune(t *testing.T) {
	if os.Getenv("RANK_TUNE") == "" {
		t.Skip("set RANK_TUNE=1")
	}
	var sets []devSet
	for _, ds := range devSets(t) {
		if !heldOut(ds.name) {
			sets = append(sets, ds)
		}
	}
	type loaded struct {
		docs []rank.Doc
		qs   []rankeval.Query
	}
	var data []loaded
	for _, ds := range sets {
		d, q := ds.load(t)
		data = append(data, loaded{d, q})
	}
	run := func(label string, p rank.Params) {
		line := fmt.Sprintf("%-28s", label)
		sumN, sumR := 0.0, 0.0
		for i, ds := range sets {
			p := p
			if label == "pivot=catalog average" {
				p.Pivot = rank.AverageLengths(data[i].docs)
			}
			rep := rankeval.Evaluate(data[i].docs, data[i].qs, rankerFor(data[i].docs, p))
			line += fmt.Sprintf(" %s %.3f/%.3f", ds.name, rep.NDCG10, rep.Recall5)
			sumN += rep.NDCG10
			sumR += rep.Recall5
		}
		n := float64(len(sets))
		fmt.Printf("%s | mean %.4f/%.4f\n", line, sumN/n, sumR/n)
	}
	base := rank.DefaultParams
	run("default", base)
	run("pivot=catalog average", base)
	for _, v := range variants(base) {
		run(v.label, v.p)
	}
}

// heldOut reports the query sets written after all tuning and measured once, unread
// (the .fresh sets): TestTune leaves them out so that nobody tunes on them. (The .agent,
// .terse and .task sets were held out in their turn; rank/TUNING.md says which
// choices saw them.)
func heldOut(name string) bool {
	return strings.HasSuffix(name, ".fresh") || strings.HasSuffix(name, ".kblind") || strings.HasSuffix(name, ".lblind") || strings.HasSuffix(name, ".nmblind")
}

type variant struct {
	label string
	p     rank.Params
}
