package rank

import (
	"fmt"
	"strings"
	"testing"
)

// SPEC DISC-5: TestGateWordsPastQueryTerms checks the no-answer gate reads a word as
// known when an allowed doc holds it, in its description or its parameters alone, also
// when the query has more terms than maxQueryTerms and the word's lists are not among
// them (heldAllowed then counts the lists' docs itself).
func TestGateWordsPastQueryTerms(t *testing.T) {
	const c = "bcdfghjkmnpqrtvwxz" // no letter a stem rule reads
	var docs []Doc
	var words []string
	for i := range 2 * maxQueryTerms {
		w := fmt.Sprintf("zk%c%c%c", c[i%len(c)], c[i/len(c)%len(c)], c[i/len(c)/len(c)])
		words = append(words, w)
		d := Doc{Name: fmt.Sprintf("tool_%03d", i), Description: "Does " + w + "."}
		if i%2 == 1 {
			d = Doc{Name: fmt.Sprintf("tool_%03d", i), Description: "Does things.", Params: "x: " + w}
		}
		docs = append(docs, d)
	}
	ix := NewIndex(docs)
	s := ix.getScratch()
	defer ix.putScratch(s)
	all := make(Set, (len(docs)+63)/64)
	for i := range all {
		all[i] = ^uint64(0)
	}
	query := strings.Join(words, " ")
	for _, c := range []struct {
		allowed Set
		want    float64
	}{{all, 0}, {make(Set, len(all)), float64(len(words))}} {
		if !s.queryTerms(ix, query) {
			t.Fatal("queryTerms found no term of the query")
		}
		if len(s.qterms) != maxQueryTerms || len(s.gate) != len(words) {
			t.Fatalf("%d query terms, %d words for the gate; want maxQueryTerms (%d), %d: the test proves nothing",
				len(s.qterms), len(s.gate), maxQueryTerms, len(words))
		}
		allowed, n := ix.clipAllowed(c.allowed)
		for i := range s.qterms {
			s.qterms[i].df = ix.allowedDF(s.qterms[i].id, allowed) // as weigh does first
		}
		if got := s.unknownWords(ix, allowed); got != c.want {
			t.Errorf("%d of %d docs allowed: unknownWords = %v, want %v", n, len(docs), got, c.want)
		}
	}
}
