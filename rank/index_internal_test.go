package rank

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestInvertParallelSameIndex checks that NewIndex, which analyses docs on every core,
// builds the index one goroutine builds: the same term ids, lists, postings and
// saturations, over docs sharing terms across the ranges the workers take.
func TestInvertParallelSameIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("list get create files repo issue pull request branch commit user " +
		"HTTPServer getV2Config café naïve 日本語 search deploy model")
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))])
			fmt.Fprintf(&b, "%d ", r.IntN(300)) // terms rare and common
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		return b.String()
	}
	docs := make([]Doc, 5*docChunk+17)
	for i := range docs {
		docs[i] = Doc{Name: fmt.Sprintf("tool_%d_%s", i, words[r.IntN(len(words))]), Title: text(1),
			Description: text(8), Params: text(6)}
	}
	build := func(procs int) *Index {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return NewIndex(docs)
	}
	one, many := build(1), build(4)
	if !maps.Equal(one.terms, many.terms) {
		t.Fatalf("term ids differ: %d terms on one goroutine, %d on four", len(one.terms), len(many.terms))
	}
	for _, f := range []struct {
		name    string
		one, at any
	}{
		{"paramOnly", one.paramOnly, many.paramOnly},
		{"off", one.off, many.off},
		{"docs", one.docs, many.docs},
		{"sat", one.sat, many.sat},
		{"maxSat", one.maxSat, many.maxSat},
		{"dense", one.dense, many.dense},
		{"order", one.order, many.order},
	} {
		if !reflect.DeepEqual(f.one, f.at) {
			t.Errorf("index.%s differs between one goroutine and four", f.name)
		}
	}
}
