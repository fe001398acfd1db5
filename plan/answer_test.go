package plan_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/deferredtools/deferredtools/plan"
)

// The host search answers read a found tool from the Planner's cache when it holds the
// definition, else from the page's definition: both give the same answer (the cache
// dropped between the request and the answer).
func TestAnswerSearchWithoutCache(t *testing.T) {
	f := newRenderFixture(t)
	ctx := context.Background()
	args := json.RawMessage(`{"query":"model version deploy list","limit":16}`)
	for _, c := range renderCases {
		if c.path != plan.PathAnthropicClient && c.path != plan.PathOpenAIClient {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			pl := f.plannerNS(c.search, plan.UndiscoveredAnswer, c.ns)
			r, err := pl.Request(ctx, f.p, c.caps)
			if err != nil {
				t.Fatal(err)
			}
			answer := func() []byte {
				var v any
				var loaded []string
				if c.path == plan.PathOpenAIClient {
					v, loaded, err = pl.AnswerOpenAISearch(ctx, f.p, r, "call_c", args)
				} else {
					v, loaded, err = pl.AnswerAnthropicSearch(ctx, f.p, r, "toolu_c", args)
				}
				if err != nil || len(loaded) == 0 {
					t.Fatalf("answer loads %v, err %v; want tools", loaded, err)
				}
				// The cursor is sealed afresh on each page.
				return regexp.MustCompile(`cursor \\"[^\\]+\\"`).ReplaceAll(encode(t, v), []byte(`cursor \"CURSOR\"`))
			}
			cached := answer()
			if _, tools, _ := plan.CacheStats(pl); tools == 0 {
				t.Fatal("the request cached no tool")
			}
			plan.ClearCache(pl)
			if read := answer(); string(read) != string(cached) {
				t.Errorf("answer read from the page =\n%s\nwant the cached answer\n%s", read, cached)
			}
		})
	}
}

// BenchmarkAnswerSearch answers a host search of 16 tools over the 200-tool golden
// catalog on each host-search path.
func BenchmarkAnswerSearch(b *testing.B) {
	f := newRenderFixture(b)
	ctx := context.Background()
	args := json.RawMessage(`{"query":"model version deploy list","limit":16}`)
	for _, c := range renderCases {
		if c.path != plan.PathAnthropicClient && c.path != plan.PathOpenAIClient {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			pl := f.plannerNS(c.search, plan.UndiscoveredAnswer, c.ns)
			r, err := pl.Request(ctx, f.p, c.caps)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				var n int
				if c.path == plan.PathOpenAIClient {
					_, loaded, err := pl.AnswerOpenAISearch(ctx, f.p, r, "call_b", args)
					n, _ = len(loaded), err
				} else {
					_, loaded, err := pl.AnswerAnthropicSearch(ctx, f.p, r, "toolu_b", args)
					n, _ = len(loaded), err
				}
				if n == 0 {
					b.Fatal("no tool found")
				}
			}
		})
	}
}
