package validate

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkValidate measures decode+validate of a 10-property argument object from its
// bytes (the peer comparison lives in the bench module).
//
// SPEC PERF-3
func BenchmarkValidate(b *testing.B) {
	schema, err := os.ReadFile("testdata/tenprop.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	args, err := os.ReadFile("testdata/tenprop.args.json")
	if err != nil {
		b.Fatal(err)
	}
	v, err := NewCompiler(nil).Compile(schema)
	if err != nil {
		b.Fatal(err)
	}
	if err := v.Validate(args); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	cpu0, ok := processCPU()
	for b.Loop() {
		if err := v.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, _ := processCPU(); ok {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkFullHeavy measures the full validator (NewFull, google/jsonschema-go) on
// arguments at the CALL-5 bounds, beside the bounded validator on the same schema and
// arguments where it supports them: "full" with the default work budget (which
// refuses, ErrLimit, what it estimates over SPEC PERF-4's 5 ms), "unbudgeted" with
// the budget lifted (the library's own time), with the steps the budget charges
// (steps/op) and the process CPU time (cpu-ns/op), whose ratio calibrates the charges
// (fullwork.go).
func BenchmarkFullHeavy(b *testing.B) {
	for _, tc := range fullHeavyCases() {
		for _, impl := range []struct {
			name string
			c    Compiler
		}{
			{"full", NewFull(nil)},
			{"unbudgeted", NewFull(&FullOptions{Limits: Limits{MaxSteps: 1 << 40}})},
			{"bounded", NewCompiler(nil)},
		} {
			v, err := impl.c.Compile([]byte(tc.schema))
			if err != nil {
				continue // the bounded validator refuses what it cannot enforce
			}
			args := []byte(tc.args)
			want := v.Validate(args)
			b.Run(tc.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu0, ok := processCPU()
				for b.Loop() {
					if err := v.Validate(args); (err == nil) != (want == nil) {
						b.Fatalf("Validate = %v, then %v", want, err)
					}
				}
				if cpu1, _ := processCPU(); ok {
					b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
				}
				if fv, ok := v.(*fullValidator); ok {
					b.ReportMetric(float64(fv.estimate(args)), "steps/op")
				}
			})
		}
	}
}

// fullHeavyCases are the heaviest in-bounds arguments we know for the full
// validator: long strings against large patterns, thousands of items under
// uniqueItems, items and nested properties, and the adversarial products (a large
// enum over many items, a fan-out of references).
func fullHeavyCases() []struct{ name, schema, args string } {
	ints := make([]string, 8000)
	for i := range ints {
		ints[i] = strconv.Itoa(i)
	}
	objs := make([]string, 1000)
	for i := range objs {
		objs[i] = fmt.Sprintf(`{"a":[1,2,3],"b":{"c":%d}}`, i)
	}
	enum := make([]string, 3000)
	for i := range enum {
		enum[i] = fmt.Sprintf(`"v%04d"`, i)
	}
	fanout := `{"$defs":{"d0":{"type":"string","pattern":"^a+$"}`
	for i := 1; i <= 14; i++ {
		fanout += fmt.Sprintf(`,"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i-1, i-1)
	}
	fanout += `},"$ref":"#/$defs/d14"}`
	pattern := `^(a|aa){0,60}(b|bb){0,60}(c|cc){0,40}$`
	return []struct{ name, schema, args string }{
		// One long string against a large pattern; it does not match.
		{"pattern", `{"type":"object","properties":{"s":{"type":"string","pattern":"` + pattern + `"}}}`, `{"s":"` + strings.Repeat("a", 250000) + `"}`},
		// 8,000 numbers, all distinct.
		{"uniqueItems", `{"type":"array","uniqueItems":true}`, "[" + strings.Join(ints, ",") + "]"},
		{"uniqueItems30digits", `{"type":"array","uniqueItems":true}`, "[" + strings.Join(thirtyDigits(8000, false), ",") + "]"},
		{"items", `{"type":"array","items":{"type":"integer"}}`, "[" + strings.Join(ints, ",") + "]"},
		// 1,000 objects of 8 nodes each, every one checked against nested properties.
		{"objects", `{"type":"array","items":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"integer","minimum":0}}}}}}`, "[" + strings.Join(objs, ",") + "]"},
		// 3,000 enum values × 3,000 items, each item the last value.
		{"enum3000x3000", `{"type":"array","items":{"enum":[` + strings.Join(enum, ",") + `]}}`, "[" + strings.Repeat(enum[2999]+",", 2999) + enum[2999] + "]"},
		// 2^14 applications of one pattern to one short string through $ref.
		{"fanout", fanout, `"aaaa"`},
	}
}
