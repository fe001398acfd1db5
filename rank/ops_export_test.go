package rank

// SetOps sets the operations gate's share of the informative weight (answer.go,
// opsObject; 0 turns it off) and its most words, and returns a function restoring them.
func SetOps(share float64, words int) func() {
	sh, w := opsShare, opsWords
	opsShare, opsWords = share, words
	return func() { opsShare, opsWords = sh, w }
}

// NameOps returns the operation classes of a tool's name (ops.go).
func NameOps(name string) uint32 { return nameOps(name) }

// DocOps returns the operation classes the index keeps for doc d.
func (ix *Index) DocOps(d int) uint32 { return ix.ops[d] }

// GateFigures returns what the no-answer gate reads of query over allowed: its words as
// the gate counts them, its best hit (-1 for none) and that hit's share of the query's
// informative weight, from a full evaluation.
func (ix *Index) GateFigures(query string, allowed Set) (words, best int, share float64) {
	s := ix.getScratch()
	defer ix.putScratch(s)
	allowed, ok := s.prepare(ix, query, allowed)
	if !ok {
		return 0, -1, 0
	}
	words = len(s.gate)
	s.order()
	top, b := int64(0), uint32(0)
	for _, d := range s.score(ix, allowed, 0) {
		if v := s.acc[d]; v > top || v == top && ix.order[d] < ix.order[b] {
			top, b = v, d
		}
	}
	for _, d := range s.touched {
		s.acc[d] = 0
	}
	if top == 0 || s.info == 0 {
		return words, -1, 0
	}
	return words, int(b), float64(top) / float64(s.info)
}

// LeadWord returns the query's first word that is no step filler, in lower case, as
// the gates read its verb ("" for none).
func LeadWord(query string) string {
	var buf [16]byte
	_, w := leadWord(query, buf[:0])
	return string(w)
}

// VerbOps and ToolOpWords are the tables of ops.go.
var VerbOps, ToolOpWords = verbOps, toolOpWords
