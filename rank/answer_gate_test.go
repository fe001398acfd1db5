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

// tune2Sets loads tune2's sets (testdata/tune2) of the given catalogs, named CAT.t2KIND.
func tune2Sets(t *testing.T, catalogs ...string) []kindSet {
	var sets []kindSet
	files, _ := filepath.Glob("testdata/tune2/*.json")
	for _, f := range files {
		cat, kind, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".json"), ".")
		if !slices.Contains(catalogs, cat) {
			continue
		}
		ds := devSet{cat + ".t2" + kind, filepath.Join(sharedData, "catalogs", cat+".json"), f}
		docs, qs := ds.load(t)
		sets = append(sets, kindSet{ds, docs, qs})
	}
	return sets
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
		qs := ds.qs
		if _, group, _ := strings.Cut(ds.name, "."); group != "kinds" && group != "nomatch" && ds.name != "metatool" && !strings.HasPrefix(group, "t2") {
			qs = append(slices.Clone(qs), typoQueries(ds.qs)...)
		}
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
	if os.Getenv("RANK_GATE") != "trade" {
		t.Skip("set RANK_GATE=trade")
	}
	pools := shortTrade(gateSets(t, os.Getenv("RANK_GATE_CHECK") != ""), shortWords, shortShare, os.Getenv("RANK_GATE_SHOW") != "")
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
	return gateTrade(sets, show, func(ix *rank.Index, query string, all rank.Set) (before, after []rank.Hit) {
		before = ix.Search(nil, query, all, rankeval.K)
		if len(before) > 0 && ix.ShortGate(query, all, words, share) {
			return before, nil
		}
		return before, before
	})
}

// objectTrade evaluates every set with Search as it is against Search without the
// verb-object gate (answer.go).
func objectTrade(sets []gateSet, show bool) map[string]*gatePool {
	return gateTrade(sets, show, func(ix *rank.Index, query string, all rank.Set) (before, after []rank.Hit) {
		restore := rank.SetObject(0, 0)
		before = ix.Search(nil, query, all, rankeval.K)
		restore()
		return before, ix.Search(nil, query, all, rankeval.K)
	})
}

// gateTrade evaluates every set with search, which returns a query's hits before and
// after a no-answer rule; show prints the queries the rule empties, those of the checked
// pools aside.
func gateTrade(sets []gateSet, show bool, search func(ix *rank.Index, query string, all rank.Set) (before, after []rank.Hit)) map[string]*gatePool {
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
			hb, ha := search(ix, q.Query, all)
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

// A signalRow is what TestGateSignals3 reads of one query.
type signalRow struct {
	pool                  string
	noMatch, empty, found bool
	ndcg, r5              float64
	words                 int
	ratio                 float64 // best score / informative weight
	// verbObject: led by an operation verb that some allowed tool names in its name or
	// title, while the best hit holds the verb nowhere, and no tool naming the verb holds
	// any of the words the best hit holds in its name or title (the query's object).
	verbObject bool
	// ownVerb: as verbObject, with the verb's own stem (not its synonyms, related words or
	// phrase) in the name or title of some allowed tool.
	ownVerb bool
	// textVerb: as ownVerb, reading name, title and description alike: the verb's own stem
	// in the text of some allowed tool, the best hit holding none of the verb's terms in
	// its text, objects the words the best hit holds in its text, and no tool holding the
	// verb's stem and an object in its text.
	textVerb bool
	// satVerb[i]: as ownVerb, a word counting as in a name or title when its saturation
	// in the doc reaches satLevels[i] (the index keeps no fields).
	satVerb    [len(satLevels)]bool
	unknownObj int     // words after the verb no allowed doc holds, nor a related word: letters, unquoted, outside paths
	cover      float64 // share of the informative weight (idf of each word) the best hit holds
	query      string
}

// signalRows computes the rows of TestGateSignals3 over sets.
func signalRows(sets []gateSet) []signalRow {
	var rows []signalRow
	for _, ds := range sets {
		ix := rank.NewIndex(ds.docs)
		all := allOf(len(ds.docs))
		for _, q := range ds.qs {
			hits := ix.Search(nil, q.Query, all, rankeval.K)
			got := names(ds.docs, hits)
			m := rankeval.Score(got, q.Relevant)
			g := ix.GateStats(q.Query, all)
			r := signalRow{pool: ds.pool, noMatch: len(q.Relevant) == 0, empty: len(hits) == 0,
				found: len(q.Relevant) > 0 && m.Recall10 > 0, ndcg: m.NDCG10, r5: m.Recall5, words: g.Words, query: ds.name + ": " + q.Query}
			if len(hits) == 0 {
				rows = append(rows, r)
				continue
			}
			r.ratio = g.Top / max(g.Info, 1e-9)
			best := ds.docs[hits[0].Doc]
			groups := ix.WordGroups(q.Query, all, hits[:1], ds.docs)
			lead := -1
			for i, gr := range groups {
				if g.LeadVerb && slices.Contains(g.LeadTerms, gr.Word) {
					lead = i
					break
				}
			}
			heaviest, sum, held := 0.0, 0.0, 0.0
			for _, gr := range groups {
				heaviest = max(heaviest, gr.IDF)
			}
			var objects []int // words the best hit holds in its name or title
			for i, gr := range groups {
				w := gr.IDF
				if gr.DF == 0 {
					w = heaviest
				}
				sum += w
				if gr.Fields[0] != 0 {
					held += gr.IDF
				}
				if i != lead && gr.DF > 0 && gr.Fields[0]&3 != 0 {
					objects = append(objects, i)
				}
				if i != lead && gr.DF == 0 && !gr.Related && !gr.Quoted && !gr.Path && lettersOnly(gr.Word) {
					r.unknownObj++
				}
			}
			r.cover = held / max(sum, 1e-9)
			var textObjects []int
			for i, gr := range groups {
				if i != lead && gr.DF > 0 && gr.Fields[0]&7 != 0 {
					textObjects = append(textObjects, i)
				}
			}
			if lead >= 0 && ix.TermFields(best, g.LeadTerms)&7 == 0 && len(textObjects) > 0 {
				named, cooc := false, false
				for _, d := range ds.docs {
					if ix.TermFields(d, []string{groups[lead].Word})&7 == 0 {
						continue
					}
					named = true
					for _, i := range textObjects {
						if ix.TermFields(d, groups[i].GroupTerms())&7 != 0 {
							cooc = true
						}
					}
				}
				r.textVerb = named && !cooc
			}
			if lead >= 0 {
				for li, level := range satLevels {
					r.satVerb[li] = satVerbObject(ix, ds.docs, hits[0].Doc, g.LeadTerms, groups, lead, level)
				}
			}
			if lead >= 0 && ix.TermFields(best, g.LeadTerms) == 0 && len(objects) > 0 {
				named, cooc := false, false
				for _, d := range ds.docs {
					if ix.TermFields(d, g.LeadTerms)&3 == 0 {
						continue
					}
					named = true
					r.ownVerb = r.ownVerb || ix.TermFields(d, []string{groups[lead].Word})&3 != 0
					for _, i := range objects {
						if ix.TermFields(d, groups[i].GroupTerms()) != 0 {
							cooc = true
						}
					}
				}
				r.verbObject = named && !cooc
				r.ownVerb = r.ownVerb && r.verbObject
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// satLevels are the saturations tried as "in a name or title" (signalRow.satVerb).
var satLevels = [...]float32{0.5, 0.55, 0.6, 0.65, 0.7}

// satVerbObject is signalRow.ownVerb with a saturation of level or more standing for a
// word in a name or title.
func satVerbObject(ix *rank.Index, docs []rank.Doc, best int, lead []string, groups []rank.WordGroup, at int, level float32) bool {
	holds := func(d int, terms []string, strong bool) bool {
		for _, t := range terms {
			sat, any := ix.Sat(t, d)
			if strong && sat >= level || !strong && any {
				return true
			}
		}
		return false
	}
	if holds(best, lead, false) {
		return false
	}
	var objects []int
	for i, gr := range groups {
		if i != at && gr.DF > 0 && holds(best, gr.GroupTerms(), true) {
			objects = append(objects, i)
		}
	}
	if len(objects) == 0 {
		return false
	}
	named := false
	for d := range docs {
		if !holds(d, []string{groups[at].Word}, true) {
			continue
		}
		named = true
		for _, i := range objects {
			if holds(d, groups[i].GroupTerms(), false) {
				return false
			}
		}
	}
	return named
}

// lettersOnly reports whether w is three letters a-z or more.
func lettersOnly(w string) bool {
	return len(w) >= 3 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == ""
}

// TestGateSignals3 prints, for RANK_GATE=3, what the eighth pass's no-answer signals
// (TUNING.md) would do on the pools of gateSets: a verb-object mismatch (signalRow), a
// word after the verb that no allowed doc knows, and the best hit's share of the
// informative weight, alone, under a share of the informative weight, in queries of at
// most some words, and together. For each pool: its no-match queries answered empty
// (today's and the rule's), the answered queries emptied (with a relevant tool in the top
// 10) and the nDCG@10 / Recall@5 they take off the pool. RANK_GATE_SHOW=label prints
// the queries a rule empties (never those of the checked pools); RANK_GATE_CHECK=1
// prints the one rule checked, on the checked pools too (gateSets).
func TestGateSignals3(t *testing.T) {
	if os.Getenv("RANK_GATE") != "3" {
		t.Skip("set RANK_GATE=3")
	}
	check := os.Getenv("RANK_GATE_CHECK") != ""
	rows := signalRows(gateSets(t, check))
	npool := map[string]int{}
	for _, r := range rows {
		if !r.noMatch {
			npool[r.pool]++
		}
	}
	try := func(label string, rule func(r signalRow) bool) {
		type acc struct {
			nm, empty, lost int
			ndcg, r5        float64
		}
		pools := map[string]*acc{}
		for _, r := range rows {
			p := pools[r.pool]
			if p == nil {
				p = &acc{}
				pools[r.pool] = p
			}
			gate := !r.empty && rule(r)
			if gate && label == os.Getenv("RANK_GATE_SHOW") && !strings.HasPrefix(r.pool, "CHECK") {
				fmt.Printf("  emptied (no-match %v, found %v): %s\n", r.noMatch, r.found, r.query)
			}
			switch {
			case r.noMatch:
				p.nm++
				p.empty += b2i(r.empty || gate)
			case gate:
				p.lost += b2i(r.found)
				p.ndcg += r.ndcg
				p.r5 += r.r5
			}
		}
		fmt.Printf("%-44s", label)
		for _, k := range slices.Sorted(maps.Keys(pools)) {
			p := pools[k]
			if p.nm > 0 {
				fmt.Printf(" | %s empty %d/%d", k, p.empty, p.nm)
			}
			if n := npool[k]; n > 0 && p.lost > 0 {
				fmt.Printf(" | %s lost %d -%.4f/-%.4f", k, p.lost, p.ndcg/float64(n), p.r5/float64(n))
			}
		}
		fmt.Println()
	}
	try("today", func(signalRow) bool { return false })
	if check {
		// The one rule checked on the held-out pools, chosen on the tuning pools first.
		try("own verb-object, best < 0.2, <= 8 words", func(r signalRow) bool {
			return r.ownVerb && r.ratio < 0.2 && r.words <= 8
		})
		return
	}
	for _, words := range []int{6, 8, 12, 1000} {
		for _, share := range []float64{0.2, 0.3, 0.5, 100} {
			try(fmt.Sprintf("verb-object, best < %.1f, <= %d words", share, words), func(r signalRow) bool {
				return r.verbObject && r.ratio < share && r.words <= words
			})
		}
	}
	for _, words := range []int{6, 8, 12, 1000} {
		for _, share := range []float64{0.2, 0.3, 0.5, 100} {
			try(fmt.Sprintf("own verb-object, best < %.1f, <= %d words", share, words), func(r signalRow) bool {
				return r.ownVerb && r.ratio < share && r.words <= words
			})
			try(fmt.Sprintf("text verb-object, best < %.1f, <= %d words", share, words), func(r signalRow) bool {
				return r.textVerb && r.ratio < share && r.words <= words
			})
			for li, level := range satLevels {
				try(fmt.Sprintf("sat %.2f verb-object, best < %.1f, <= %d words", level, share, words), func(r signalRow) bool {
					return r.satVerb[li] && r.ratio < share && r.words <= words
				})
			}
		}
	}
	for _, n := range []int{1, 2} {
		for _, words := range []int{4, 6, 8, 1000} {
			for _, share := range []float64{0.1, 0.2, 0.3} {
				try(fmt.Sprintf("%d unknown, best < %.1f, <= %d words", n, share, words), func(r signalRow) bool {
					return r.unknownObj >= n && r.ratio < share && r.words <= words
				})
			}
		}
	}
	for _, c := range []float64{0.3, 0.4, 0.5} {
		for _, words := range []int{4, 6, 8, 1000} {
			try(fmt.Sprintf("cover < %.1f, <= %d words", c, words), func(r signalRow) bool { return r.cover < c && r.words <= words })
			try(fmt.Sprintf("cover < %.1f, best < 0.2, <= %d words", c, words), func(r signalRow) bool {
				return r.cover < c && r.ratio < 0.2 && r.words <= words
			})
		}
	}
	for _, words := range []int{6, 8, 12} {
		try(fmt.Sprintf("verb-object or unknown, best < 0.2, <= %d", words), func(r signalRow) bool {
			return (r.verbObject || r.unknownObj > 0) && r.ratio < 0.2 && r.words <= words
		})
		try(fmt.Sprintf("verb-object and unknown, <= %d", words), func(r signalRow) bool {
			return r.verbObject && r.unknownObj > 0 && r.words <= words
		})
	}
}

// TestObjectGateTrade prints, for RANK_GATE=object, what the verb-object gate
// (answer.go) changes pool by pool, as TestShortGateTrade does for the short gate
// (RANK_GATE_CHECK=1: the checked pools too, pooled; RANK_GATE_SHOW=1: the tuning
// queries it empties).
func TestObjectGateTrade(t *testing.T) {
	if os.Getenv("RANK_GATE") != "object" {
		t.Skip("set RANK_GATE=object")
	}
	pools := objectTrade(gateSets(t, os.Getenv("RANK_GATE_CHECK") != ""), os.Getenv("RANK_GATE_SHOW") != "")
	printTrade(pools)
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
