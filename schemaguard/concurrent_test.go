package schemaguard_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/schemaguard"
)

// The package doc: Canonicalize keeps its scratch space in a sync.Pool and "is safe for
// concurrent use". Many goroutines canonicalizing different texts at once (run with
// -race) each get the form a lone call gives, and the same Measure.
func TestCanonicalizeConcurrent(t *testing.T) {
	const goroutines, each = 8, 200
	texts := make([][]byte, goroutines*4)
	for i := range texts {
		texts[i] = fmt.Appendf(nil, `{ "z%d": [1.0, "a\u00e9%d", {"y": true, "b": null}], "a": %de%d, "m": {"k": [%s]} }`,
			i, i, i, i%5, bytes.Repeat([]byte(`"s",`), i)[:max(0, 4*i-1)])
	}
	want := make([][]byte, len(texts))
	wantM := make([]schemaguard.Measure, len(texts))
	for i, src := range texts {
		out, m, err := schemaguard.Canonicalize(nil, src)
		if err != nil {
			t.Fatalf("text %d: %v", i, err)
		}
		want[i], wantM[i] = out, m
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			var dst []byte
			for k := range each {
				i := (g + k*3) % len(texts)
				out, m, err := schemaguard.Canonicalize(dst[:0], texts[i])
				if err != nil || !bytes.Equal(out, want[i]) || m != wantM[i] {
					t.Errorf("goroutine %d, text %d: %s %+v %v, want %s %+v", g, i, out, m, err, want[i], wantM[i])
					return
				}
				dst = out
			}
		})
	}
	wg.Wait()
}
