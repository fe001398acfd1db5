package validate

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestFullBudget: NewFull estimates the library's work before it runs and refuses
// (ErrLimit, the work-steps error) arguments whose estimate passes the budget, so
// products the bounds leave open (3,000 enum values × 3,000 items, a fan-out of
// references applying one schema 2^14 times, 250,000 characters against a large
// pattern, 8,000 items under uniqueItems, 8,000 30-digit numbers NewFull must move
// apart) end in well under SPEC PERF-4's 5 ms instead of 5 ms to seconds; what the
// estimate admits runs.
//
// SPEC CALL-5
// SPEC CALL-7
// SPEC PERF-4
func TestFullBudget(t *testing.T) {
	refused := map[string]bool{
		"pattern": true, "uniqueItems": true, "uniqueItems30digits": true, "items": true,
		"objects": true, "enum3000x3000": true, "fanout": true, "numbers30digits": true,
	}
	c := NewFull(nil)
	for _, tc := range fullHeavyCases() {
		t.Run(tc.name, func(t *testing.T) {
			v := mustCompile(t, c, tc.schema)
			start := time.Now()
			err := v.Validate([]byte(tc.args))
			elapsed := time.Since(start)
			if got := err == errSteps; got != refused[tc.name] {
				t.Errorf("Validate = %v, want the work budget refusal %v", err, refused[tc.name])
			}
			t.Logf("%s: %v, estimate %d steps", verdict(err), elapsed, v.(*fullValidator).estimate([]byte(tc.args)))
		})
	}
	// Within the budget: a quarter of the items, and ordinary arguments.
	for _, tc := range []struct{ schema, args, want string }{
		{`{"type":"array","items":{"type":"integer"}}`, "[" + strings.TrimSuffix(strings.Repeat("7,", 2000), ",") + "]", "ok"},
		{`{"type":"array","uniqueItems":true}`, "[" + strings.Join(thirtyDigits(1000, false), ",") + "]", "ok"},
		{`{"type":"array","items":{"enum":["a","b","c"]}}`, `["a","b","d"]`, "invalid:enum"},
		{`{"type":"object","properties":{"s":{"type":"string","pattern":"^[a-z]+$"}}}`, `{"s":"` + strings.Repeat("a", 10000) + `"}`, "ok"},
	} {
		v := mustCompile(t, c, tc.schema)
		if got := verdict(v.Validate([]byte(tc.args))); got != tc.want {
			t.Errorf("NewFull.Compile(%s).Validate(%.40s) = %s, want %s", tc.schema, tc.args, got, tc.want)
		}
	}
}

// TestFullBudgetLimits: Limits.MaxSteps sets the full validator's budget; lifted, the
// same arguments run in the library.
//
// SPEC CALL-5
func TestFullBudgetLimits(t *testing.T) {
	schema, args := `{"type":"array","items":{"type":"integer"}}`, []byte("["+strings.TrimSuffix(strings.Repeat("7,", 8000), ",")+"]")
	if err := mustCompile(t, NewFull(nil), schema).Validate(args); !errors.Is(err, ErrLimit) {
		t.Errorf("default budget: Validate = %v, want ErrLimit", err)
	}
	if err := mustCompile(t, NewFull(&FullOptions{Limits: Limits{MaxSteps: 1 << 20}}), schema).Validate(args); err != nil {
		t.Errorf("MaxSteps 1<<20: Validate = %v, want nil", err)
	}
	if err := mustCompile(t, NewFull(&FullOptions{Limits: Limits{MaxSteps: 100}}), schema).Validate([]byte(`[1,2]`)); err != nil {
		t.Errorf("MaxSteps 100, two items: Validate = %v, want nil", err)
	}
}
