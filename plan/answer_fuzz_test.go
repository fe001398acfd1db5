package plan_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

// FuzzAnswerSearch feeds the model's search arguments (untrusted) to both host
// search answers: never a panic or a Go error for bad arguments, and only deferred,
// granted tools of the request come back.
func FuzzAnswerSearch(f *testing.F) {
	for _, s := range []string{`{"query":"deploy"}`, `{"query":""}`, `{"query":"x","limit":99}`,
		`{"query":"x","cursor":"AAAA"}`, `[]`, `null`, `{"query":1}`, `{"Query":"deploy"}`, "\xff"} {
		f.Add([]byte(s))
	}
	fx := newRenderFixture(f)
	ctx := context.Background()
	pl, ra, ro := clientSearchRenderings(f, fx)
	f.Fuzz(func(t *testing.T, args []byte) {
		res, loaded, err := pl.AnswerAnthropicSearch(ctx, fx.p, ra, "toolu_f", json.RawMessage(args))
		if err != nil || res == nil || len(res.Content) == 0 {
			t.Fatalf("Anthropic answer %+v, err %v", res, err)
		}
		for _, name := range loaded {
			if !slices.Contains(ra.Deferred, name) || slices.Contains(fx.denied, name) {
				t.Errorf("Anthropic answer references %s, not a deferred granted tool", name)
			}
		}
		out, loaded, err := pl.AnswerOpenAISearch(ctx, fx.p, ro, "call_f", json.RawMessage(args))
		if err != nil || out == nil {
			t.Fatalf("OpenAI answer %+v, err %v", out, err)
		}
		for _, name := range loaded {
			if !slices.Contains(ro.Deferred, name) || slices.Contains(fx.denied, name) {
				t.Errorf("OpenAI answer returns %s, not a deferred granted tool", name)
			}
		}
	})
}
