package validate

import (
	"os"
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
