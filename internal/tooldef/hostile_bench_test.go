package tooldef

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/schemaguard"
)

// hostileDefs are tool definitions, valid and in canonical form, whose parameter text
// costs the most to read per byte found so far, beside a typical one: schemas nested
// to maxParamDepth (and beyond) through properties, items and anyOf, whose deepest
// text each enclosing schema's pass skips again; many escaped property names, decoded
// one by one; many enum values.
func hostileDefs(tb testing.TB) []struct {
	name string
	def  []byte
} {
	blob := strings.Repeat("word ", 6000) // 30 KB of description
	nest := func(open, close string, depth int) string {
		return strings.Repeat(open, depth) + `{"description":"` + blob + `","type":"string"}` + strings.Repeat(close, depth)
	}
	var props, escaped, enum []string
	for i := range 400 {
		props = append(props, fmt.Sprintf(`"param_%03d":{"description":"the %d-th parameter of the tool, a filter on the listed items","type":"string"}`, i, i))
		escaped = append(escaped, fmt.Sprintf(`"p\"%03d\\\n":{"type":"string"}`, i))
		enum = append(enum, fmt.Sprintf(`"value_%04d"`, i))
	}
	schemas := []struct{ name, schema string }{
		{"typical", `{"properties":{` + strings.Join(props, ",") + `},"type":"object"}`},
		{"flat-blob", `{"properties":{"p":{"description":"` + blob + `","type":"string"}},"type":"object"}`},
		{"properties-deep", nest(`{"properties":{"p":`, `}}`, 40)},
		{"items-deep", `{"properties":{"p":` + nest(`{"items":`, `}`, 40) + `}}`},
		{"anyOf-deep", `{"properties":{"p":` + nest(`{"anyOf":[`, `]}`, 40) + `}}`},
		{"escaped-names", `{"properties":{` + strings.Join(escaped, ",") + `},"type":"object"}`},
		{"enum", `{"properties":{"p":{"enum":[` + strings.Join(enum, ",") + `],"type":"string"}},"type":"object"}`},
	}
	var out []struct {
		name string
		def  []byte
	}
	for _, s := range schemas {
		def, _, err := schemaguard.Canonicalize(nil, []byte(`{"description":"A tool.","inputSchema":`+s.schema+`,"name":"t"}`))
		if err != nil {
			tb.Fatalf("%s: %v", s.name, err)
		}
		out = append(out, struct {
			name string
			def  []byte
		}{s.name, def})
	}
	return out
}

// BenchmarkReadParamsHostile reads each of hostileDefs with ReadParamSpans, as a
// catalog build does once per tool (a Discoverer's catalog version: SPEC PERF-1's
// set-up), and reports bytes per second, to compare per byte with the typical tool.
//
// SPEC PERF-1
func BenchmarkReadParamsHostile(b *testing.B) {
	for _, d := range hostileDefs(b) {
		b.Run(d.name, func(b *testing.B) {
			var spans []uint32
			b.SetBytes(int64(len(d.def)))
			b.ReportAllocs()
			for b.Loop() {
				_, spans, _, _ = ReadParamSpans(d.def, spans[:0])
			}
		})
	}
}
