package rank_test

import (
	"fmt"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
)

// Spans that are no range of their source are no pieces: NewIndex never panics on
// them, and the pieces that are ranges rank, and are explained, as the same text held
// whole.
func TestPiecesOutOfRange(t *testing.T) {
	src := "owner name of the repository"
	bad := &rank.Pieces{Src: src, Spans: []uint32{0, 5, 9, 3, 6, 10, 11, 99, 18, 28, 4}}
	docs := []rank.Doc{
		{Name: "a_tool", Description: "does a thing", ParamPieces: bad},
		{Name: "b_tool", Description: "does a thing", Params: "owner name repository"},
	}
	ix := rank.NewIndex(docs) // panicked before: slice bounds out of range
	all := rank.NewSet(len(docs))
	all.Add(0)
	all.Add(1)
	hits := ix.Search(nil, "repository owner", all, 2)
	if len(hits) != 2 || hits[0].Score != hits[1].Score {
		t.Fatalf("hits %+v: want both tools, scored alike", hits)
	}
	// Explain reads a doc's parameters from its pieces as NewIndex does.
	if a, b := ix.Explain("repository owner", all, 0, docs[0]), ix.Explain("repository owner", all, 1, docs[1]); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("Explain of the pieces = %+v, of the text = %+v: want the same", a, b)
	}
}
