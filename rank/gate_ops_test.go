package rank_test

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
)

// An opsRule is one variant of the operations gate (TUNING.md, "Ninth pass"): a query of
// at most words words led by a verb of rank.VerbOps, its best hit under share of its
// informative weight, is answered empty when no tool holding a word of the query's
// object (a word the best hit holds in its name or title) does what the verb asks.
type opsRule struct {
	label string
	share float64
	words int
	// satOps reads a tool's operations from the words of its operation table it holds at
	// a saturation of 0.7 (name, title or a short description) instead of its name.
	satOps bool
	// satBest and satTool, when not 0, read "in its name or title" as a saturation of at
	// least that much, for the best hit and for the other tools, instead of the text.
	satBest, satTool float32
	noWild           bool // a tool whose name holds no operation word does none, not all
	verbHeld         bool // no exemption for a best hit holding the verb's stem in any field
}

// opsCatalog is what the study reads of a catalog: each tool's name and title stems and
// its operations, from its name's words and from saturations.
type opsCatalog struct {
	ix     *rank.Index
	named  []map[string]bool
	ops    []uint32
	satOps []uint32
}

func newOpsCatalog(ix *rank.Index, docs []rank.Doc) *opsCatalog {
	c := &opsCatalog{ix: ix}
	stems := map[string]uint32{}
	for w, cl := range rank.ToolOpWords {
		for _, s := range rank.Analyze(w) {
			stems[s] |= cl
		}
	}
	for d, doc := range docs {
		m := map[string]bool{}
		for _, s := range rank.Analyze(doc.Name + " " + doc.Title) {
			m[s] = true
		}
		c.named = append(c.named, m)
		ops, sat := rank.NameOps(doc.Name), uint32(0)
		for s, cl := range stems {
			if v, _ := ix.Sat(s, d); v >= 0.7 {
				sat |= cl
			}
		}
		c.ops = append(c.ops, ops)
		c.satOps = append(c.satOps, sat)
	}
	return c
}

// empties reports whether rule r answers query empty (all docs allowed).
func (c *opsCatalog) empties(r opsRule, query string) bool {
	words, best, share := c.ix.GateFigures(query, allOf(len(c.named)))
	if best < 0 || words > r.words || share >= r.share {
		return false
	}
	lead := rank.LeadWord(query)
	want := rank.VerbOps[lead]
	if want == 0 {
		return false
	}
	verb := rank.Analyze(lead) // empty for a stop word ("give")
	named := func(d int, s string) bool {
		level := r.satTool
		if d == best {
			level = r.satBest
		}
		if level > 0 {
			v, _ := c.ix.Sat(s, d)
			return v >= level
		}
		return c.named[d][s]
	}
	serves := func(d int) bool {
		ops := c.ops[d]
		if r.satOps {
			ops = c.satOps[d]
		}
		return ops&want != 0 || ops == 0 && !r.noWild
	}
	if serves(best) {
		return false
	}
	if !r.verbHeld {
		for _, s := range verb {
			if _, held := c.ix.Sat(s, best); held {
				return false
			}
		}
	}
	var objects []string
	for _, s := range rank.Analyze(query) {
		if !slices.Contains(verb, s) && named(best, s) && !slices.Contains(objects, s) {
			objects = append(objects, s)
		}
	}
	for d := range c.named {
		for _, o := range objects {
			if named(d, o) && serves(d) {
				return false
			}
		}
	}
	return len(objects) > 0
}

// TestOpsGateGrid prints, for RANK_GATE=opsgrid, what variants of the operations gate
// (opsRule) change in the tuning pools, as TestOpsGateTrade prints the gate: no-match
// queries answered empty, answered queries emptied and their cost. RANK_GATE_SHOW=1
// prints the queries each empties.
func TestOpsGateGrid(t *testing.T) {
	if os.Getenv("RANK_GATE") != "opsgrid" {
		t.Skip("set RANK_GATE=opsgrid")
	}
	var rules []opsRule
	for _, sh := range []float64{0.2, 0.3, 0.5, 100} {
		for _, w := range []int{8, 10, 12} {
			rules = append(rules, opsRule{label: fmt.Sprintf("names, share %g, %d words", sh, w), share: sh, words: w})
		}
	}
	rules = append(rules,
		opsRule{label: "names, no wildcard, 0.5 x 10", share: 0.5, words: 10, noWild: true},
		opsRule{label: "names, no wildcard, 0.2 x 8", share: 0.2, words: 8, noWild: true},
		opsRule{label: "names, verb held no exemption, 0.5 x 10", share: 0.5, words: 10, verbHeld: true},
		opsRule{label: "names, verb held no exemption, any x 10", share: 100, words: 10, verbHeld: true},
		opsRule{label: "sat ops, names objects, 0.5 x 10", share: 0.5, words: 10, satOps: true},
		opsRule{label: "sat ops, names objects, any x 10", share: 100, words: 10, satOps: true},
		opsRule{label: "sat ops, sat objects 0.7, 0.5 x 10", share: 0.5, words: 10, satOps: true, satBest: 0.7, satTool: 0.7},
		opsRule{label: "sat ops, sat objects 0.7, any x 10", share: 100, words: 10, satOps: true, satBest: 0.7, satTool: 0.7},
	)
	for _, lv := range [][2]float32{{0.7, 0.5}, {0.7, 0.6}, {0.7, 0.7}, {0.7, 0.8}, {0.8, 0.5}, {0.8, 0.7}, {0.8, 0.8}} {
		rules = append(rules, opsRule{label: fmt.Sprintf("names ops, sat objects %.1f/%.1f, 0.5 x 10", lv[0], lv[1]),
			share: 0.5, words: 10, satBest: lv[0], satTool: lv[1]})
	}
	rules = append(rules, opsRule{label: "names ops, sat objects 0.7/0.7, any x 10", share: 100, words: 10, satBest: 0.7, satTool: 0.7})
	sets := gateSets(t, false)
	cats := map[string]*opsCatalog{}
	for _, ds := range sets {
		if cats[ds.catalog] == nil {
			cats[ds.catalog] = newOpsCatalog(rank.NewIndex(ds.docs), ds.docs)
		}
	}
	show := os.Getenv("RANK_GATE_SHOW") != ""
	for _, r := range rules {
		fmt.Println(r.label)
		pools := gateTrade(sets, show, emptyWhen(func(ds gateSet, _ *rank.Index, query string, _ rank.Set) bool {
			return cats[ds.catalog].empties(r, query)
		}))
		printTrade(pools)
	}
}
