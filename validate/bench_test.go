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
// arguments where it supports them. The full validator has no work budget; these are
// its heaviest cases we know, for PERF-4 (< 5 ms).
func BenchmarkFullHeavy(b *testing.B) {
	ints := make([]string, 8000)
	for i := range ints {
		ints[i] = strconv.Itoa(i)
	}
	objs := make([]string, 1000)
	for i := range objs {
		objs[i] = fmt.Sprintf(`{"a":[1,2,3],"b":{"c":%d}}`, i)
	}
	pattern := `^(a|aa){0,60}(b|bb){0,60}(c|cc){0,40}$`
	for _, tc := range []struct{ name, schema, args string }{
		// One long string against a large pattern; it does not match.
		{"pattern", `{"type":"object","properties":{"s":{"type":"string","pattern":"` + pattern + `"}}}`, `{"s":"` + strings.Repeat("a", 250000) + `"}`},
		// 8,000 numbers, all distinct.
		{"uniqueItems", `{"type":"array","uniqueItems":true}`, "[" + strings.Join(ints, ",") + "]"},
		{"items", `{"type":"array","items":{"type":"integer"}}`, "[" + strings.Join(ints, ",") + "]"},
		// 1,000 objects of 8 nodes each, every one checked against nested properties.
		{"objects", `{"type":"array","items":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"integer","minimum":0}}}}}}`, "[" + strings.Join(objs, ",") + "]"},
	} {
		for _, impl := range []struct {
			name string
			c    Compiler
		}{{"full", NewFull(nil)}, {"bounded", NewCompiler(nil)}} {
			v, err := impl.c.Compile([]byte(tc.schema))
			if err != nil {
				continue // the bounded validator refuses what it cannot enforce
			}
			args := []byte(tc.args)
			want := v.Validate(args)
			b.Run(tc.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := v.Validate(args); (err == nil) != (want == nil) {
						b.Fatalf("Validate = %v, then %v", want, err)
					}
				}
			})
		}
	}
}
