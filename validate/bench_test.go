package validate

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/internal/catalogtest"
	"github.com/deferredtools/deferredtools/internal/cputime"
	"github.com/deferredtools/deferredtools/internal/heapsize"
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
	reportCPU(b, func() {
		for b.Loop() {
			if err := v.Validate(args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// reportCPU runs loop, the benchmark's b.Loop loop, and reports the process CPU time
// per op (cpu-ns/op) beside ns/op: on a shared machine wall time also counts the
// wait for a core.
func reportCPU(b *testing.B, loop func()) {
	stop := cputime.Report(b)
	loop()
	stop()
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
				reportCPU(b, func() {
					for b.Loop() {
						if err := v.Validate(args); (err == nil) != (want == nil) {
							b.Fatalf("Validate = %v, then %v", want, err)
						}
					}
				})
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
		// 8,000 distinct numbers sharing float64 values, which NewFull moves apart
		// before the library runs, under a schema that asks nothing of them.
		{"numbers30digits", `{}`, "[" + strings.Join(thirtyDigits(8000, false), ",") + "]"},
		{"items", `{"type":"array","items":{"type":"integer"}}`, "[" + strings.Join(ints, ",") + "]"},
		// 1,000 objects of 8 nodes each, every one checked against nested properties.
		{"objects", `{"type":"array","items":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"integer","minimum":0}}}}}}`, "[" + strings.Join(objs, ",") + "]"},
		// 3,000 enum values × 3,000 items, each item the last value.
		{"enum3000x3000", `{"type":"array","items":{"enum":[` + strings.Join(enum, ",") + `]}}`, "[" + strings.Repeat(enum[2999]+",", 2999) + enum[2999] + "]"},
		// 2^14 applications of one pattern to one short string through $ref.
		{"fanout", fanout, `"aaaa"`},
	}
}

// genVocabulary is the word list of genSchema.
var genVocabulary = strings.Fields(`model dataset deployment endpoint registry search list get
	create update delete upload download version tag metric evaluation benchmark training job
	run artifact checkpoint billing invoice usage cost budget quota project team member role
	secret token webhook log alert schedule pipeline feature store vector index embedding
	prompt template batch inference latency replica region cluster node storage bucket file`)

// genSchema returns a varied inputSchema of about size bytes, shaped like the generated
// tools of the discovery tests: an object of integer (bounded), enum, array, boolean and
// string properties, each with its own description, some required.
func genSchema(r *rand.Rand, size int) []byte {
	w := func() string { return genVocabulary[r.IntN(len(genVocabulary))] }
	props, required := catalogtest.Properties(r, w, 120, size)
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// genSchemas answers n generated schemas of 1-7 KB (genSchema, seeded by n) and their
// total size.
func genSchemas(n int) ([][]byte, int) {
	r := rand.New(rand.NewPCG(14, uint64(n)))
	gen := make([][]byte, n)
	size := 0
	for i := range gen {
		gen[i] = genSchema(r, 1000+r.IntN(6000))
		size += len(gen[i])
	}
	return gen, size
}

// BenchmarkRetained reports the heap that compiled validators retain per schema
// (B/schema) and as a multiple of the schemas' JSON text (x-schema): 10,000 generated
// varied schemas of 1-7 KB, and every inputSchema of the real catalogs when present.
// Run it with -benchtime=1x: each iteration compiles the whole set once.
func BenchmarkRetained(b *testing.B) {
	gen, _ := genSchemas(10000)
	sets := []struct {
		name    string
		schemas [][]byte
	}{{"gen", gen}}
	if _, err := os.Stat(sharedData); err == nil {
		var real [][]byte
		for _, tools := range loadCatalogs(b) {
			for _, t := range tools {
				real = append(real, t.InputSchema)
			}
		}
		sets = append(sets, struct {
			name    string
			schemas [][]byte
		}{"real", real})
	}
	for _, set := range sets {
		b.Run(fmt.Sprintf("%s/schemas=%d", set.name, len(set.schemas)), func(b *testing.B) {
			size := 0
			for _, s := range set.schemas {
				size += len(s)
			}
			c := NewCompiler(&Options{Annotations: AnnotationKeywords})
			var heap int64
			n := 0
			for b.Loop() {
				heap = heapsize.Retained(func() any {
					vs := make([]Validator, 0, len(set.schemas))
					for _, s := range set.schemas {
						if v, err := c.Compile(s); err == nil {
							vs = append(vs, v)
						}
					}
					n = len(vs)
					return vs
				})
			}
			runtime.KeepAlive(set.schemas)
			b.ReportMetric(float64(heap)/float64(len(set.schemas)), "B/schema")
			b.ReportMetric(float64(heap)/float64(size), "x-schema")
			b.ReportMetric(float64(n), "compiled")
		})
	}
}

// BenchmarkCompile measures compiling generated varied schemas of 1-7 KB, the
// once-per-catalog-version cost of each tool's validator.
func BenchmarkCompile(b *testing.B) {
	gen, size := genSchemas(200)
	c := NewCompiler(nil)
	b.ReportAllocs()
	b.SetBytes(int64(size))
	reportCPU(b, func() {
		for b.Loop() {
			for _, s := range gen {
				if _, err := c.Compile(s); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(gen)), "ns/schema")
}
