package rank

import (
	"slices"
)

// Test hooks for the no-answer gate: a full evaluation of a query's terms over every
// allowed doc, for tuning.

// DiagTerm is one query term as the gate sees it.
type DiagTerm struct {
	Term  string
	From  string
	Word  float64 // weight of the query's own words in it
	QTF   float64
	IDF   float64
	DF    int
	Param bool // the list of docs holding it in their parameters alone
	Pair  int  // index in Terms of the other list of the same term, -1 if none
}

// DiagHit is one doc's score and per-term contributions (indexed as Diag.Terms).
type DiagHit struct {
	Doc     int
	Score   float64
	Contrib []float64
}

// Diag is a full evaluation of a query: its terms, informative weight and best n docs.
type Diag struct {
	Info  float64
	Terms []DiagTerm
	Hits  []DiagHit
}

// Diagnose evaluates query over allowed without pruning and floor.
func (ix *Index) Diagnose(query string, allowed Set, n int) Diag {
	s := ix.getScratch()
	defer ix.putScratch(s)
	var dg Diag
	if !s.queryTerms(ix, query) {
		return dg
	}
	allowed, na := ix.clipAllowed(allowed)
	if na == 0 {
		return dg
	}
	ok := s.weigh(ix, allowed, na)
	dg.Info = float64(s.info) / scoreScale
	if !ok {
		return dg
	}
	names := map[uint32]string{}
	for t, id := range ix.terms {
		names[id] = t
	}
	qs := slices.Clone(s.qterms)
	for _, q := range qs {
		id := q.id
		if q.param {
			id = q.partner
		}
		t := DiagTerm{Term: displayTerm(names[id]), From: q.from.String(), Word: q.word, QTF: q.qtf,
			IDF: q.wt / q.qtf / scoreScale, DF: q.df, Param: q.param, Pair: -1}
		for j, o := range qs {
			if q.partner != noTerm && o.id == q.partner {
				t.Pair = j
			}
		}
		dg.Terms = append(dg.Terms, t)
	}
	var hits []DiagHit
	for d := 0; d < ix.n; d++ {
		if allowed[d>>6]&(1<<(uint(d)&63)) == 0 {
			continue
		}
		h := DiagHit{Doc: d, Contrib: make([]float64, len(qs))}
		var sum int64
		for i, q := range qs {
			if sat := ix.lookup(q.id, uint32(d)); sat != 0 {
				c := contribution(q.wt, sat)
				sum += c
				h.Contrib[i] = float64(c) / scoreScale
			}
		}
		if sum > 0 {
			h.Score = float64(sum) / scoreScale
			hits = append(hits, h)
		}
	}
	slices.SortFunc(hits, func(a, b DiagHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return int(ix.order[a.Doc]) - int(ix.order[b.Doc])
	})
	if len(hits) > n {
		hits = hits[:n]
	}
	dg.Hits = hits
	return dg
}

// FloorInfo is the no-answer gate's fraction of the query's informative weight.
var FloorInfo = floorInfo

// SetTail sets the tail rule's constants and returns a function restoring them.
func SetTail(top, word float64) func() {
	tt, tw := tailTop, tailWord
	tailTop, tailWord = top, word
	return func() { tailTop, tailWord = tt, tw }
}

// TailTop and TailWord are the tail rule's constants.
var TailTop, TailWord = tailTop, tailWord
