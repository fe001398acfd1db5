package validate

import (
	"fmt"
	"strings"
	"testing"
)

// worstPatternCases are the costliest patterns per byte found on the longest string
// CALL-5 allows (262,144 code units), in the characters that cost the most to read:
// two-byte ones (é) give the most code points per byte, so per step (linearBytes),
// and a class of many intervals (\p{L}, upper- and lower-case letters alternating, as
// in Latin Extended-A) the longest search for each code point's class.
func worstPatternCases() []struct{ name, schema, args string } {
	str := func(s string) string { return `"` + s + `"` }
	alternating := strings.Repeat("Āā", 262144/2) // U+0100 U+0101: Lu, Ll, each its own interval
	return []struct{ name, schema, args string }{
		{"plain/ascii", `{"type":"string"}`, str(strings.Repeat("a", 262144))},
		{"plain/2-byte", `{"type":"string"}`, str(strings.Repeat("é", 262144))},
		{"plain/3-byte", `{"type":"string"}`, str(strings.Repeat("一", 262144))},
		{"(a|b)+!/ascii", `{"pattern":"(a|b)+!"}`, str(strings.Repeat("a", 262144))},
		{"(a|b)+!/2-byte", `{"pattern":"(a|b)+!"}`, str(strings.Repeat("é", 262144))},
		{"letters/2-byte", `{"pattern":"\\p{L}+!"}`, str(strings.Repeat("é", 262144))},
		{"letters/3-byte", `{"pattern":"\\p{L}+!"}`, str(strings.Repeat("一", 262144))},
		{"cases/alternating", `{"pattern":"(\\p{Lu}\\p{Ll}|\\p{Lo}\\p{Nd}|\\p{Lm}\\p{Mn})+!"}`, str(alternating)},
	}
}

// BenchmarkWorstPattern validates each of worstPatternCases and reports the CPU time
// per validation (SPEC PERF-4: < 5 ms within the CALL-5 bounds) and the work steps
// charged: the string alone (plain) beside a pattern's match of it.
//
// SPEC PERF-4
// SPEC CALL-5
func BenchmarkWorstPattern(b *testing.B) {
	c := NewCompiler(nil)
	for _, tc := range worstPatternCases() {
		v := mustCompile(b, c, tc.schema)
		args := []byte(tc.args)
		b.Run(tc.name, func(b *testing.B) { benchWorst(b, v, args) })
	}
}

// TestWorstPatternVerdicts pins what BenchmarkWorstPattern measures: each string is
// within the bounds and each pattern is matched in full (no match: invalid), not
// refused.
//
// SPEC CALL-5
func TestWorstPatternVerdicts(t *testing.T) {
	c := NewCompiler(nil)
	for _, tc := range worstPatternCases() {
		want := "invalid:pattern"
		if strings.HasPrefix(tc.name, "plain/") {
			want = "ok"
		}
		if got := verdict(mustCompile(t, c, tc.schema).Validate([]byte(tc.args))); got != want {
			t.Errorf("%s: Validate = %s, want %s", tc.name, got, want)
		}
	}
}

// worstShapeCases are the other shapes tried for the costliest validation, none worse
// than the adversarial table's worst (worstCase): uniqueItems over long strings beyond
// ASCII, over numbers of many digits in exponent form (refused: digits count as code
// units), over nested arrays (refused by the node bound); an enum of many objects;
// oneOf of item schemas over a long array; a minimum of 5,000 digits.
func worstShapeCases() []struct{ name, schema, args, want string } {
	list := func(n int, f func(i int) string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = f(i)
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	digits := strings.Repeat("9", 30)
	enum := list(900, func(i int) string {
		return fmt.Sprintf(`{"k":[%d,%d,%d],"s":"%s"}`, i, i, i, strings.Repeat("é", 20))
	})
	big := "1" + strings.Repeat("0", 5000)
	return []struct{ name, schema, args, want string }{
		{"unique-strings-beyond-ascii", `{"uniqueItems":true}`, list(8000, func(i int) string { return fmt.Sprintf(`"%s%05d"`, strings.Repeat("é", 24), i) }), "ok"},
		{"unique-long-numbers", `{"uniqueItems":true}`, list(8000, func(i int) string { return fmt.Sprintf("%d%s.%se-%d", i+1, digits, digits, 30+i%7) }), "limit"},
		{"unique-nested-arrays", `{"uniqueItems":true}`, list(1500, func(i int) string { return fmt.Sprintf("[[%d],[1],[2]]", i) }), "limit"},
		{"enum-900-objects", `{"enum":` + enum + `}`, `{"k":[899,899,899],"s":"` + strings.Repeat("é", 20) + `"}`, "ok"},
		{"oneOf-items-8000", `{"oneOf":[{"items":{"type":"integer"}},{"items":{"minimum":0}},{"items":{"maximum":1e9}},{"items":{"type":"number"}}]}`, list(8000, func(i int) string { return fmt.Sprint(i) }), "invalid:oneOf"},
		{"minimum-5000-digits", `{"items":{"minimum":` + big + `.5}}`, list(50, func(int) string { return big + ".4" }), "invalid:minimum"},
	}
}

// BenchmarkWorstShapes validates each of worstShapeCases and reports the CPU time
// (SPEC PERF-4: < 5 ms within the CALL-5 bounds) and the work steps charged.
//
// SPEC PERF-4
func BenchmarkWorstShapes(b *testing.B) {
	c := NewCompiler(nil)
	for _, tc := range worstShapeCases() {
		v := mustCompile(b, c, tc.schema)
		args := []byte(tc.args)
		if got := verdict(v.Validate(args)); got != tc.want {
			b.Fatalf("%s: Validate = %s, want %s", tc.name, got, tc.want)
		}
		b.Run(tc.name, func(b *testing.B) { benchWorst(b, v, args) })
	}
}

// benchWorst validates args with v in the b.Loop loop and reports the bytes, the
// allocations, the CPU time and the work steps charged (steps/op) per validation.
func benchWorst(b *testing.B, v Validator, args []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	reportCPU(b, func() {
		for b.Loop() {
			v.Validate(args)
		}
	})
	steps, _ := v.(*program).run(args)
	b.ReportMetric(float64(steps), "steps/op")
}
