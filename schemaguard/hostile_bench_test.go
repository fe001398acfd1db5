package schemaguard

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// hostileSchemas are valid JSON texts that cost Canonicalize the most per byte found
// so far, each about 64 KB, beside the 7 KB tool of BenchmarkCanonicalize: members in
// reverse order whose names share a 1 KiB prefix (each comparison of the sort reads
// it); names differing only in their last character, one beyond the BMP (compareUTF16's
// slow path); nesting to MaxNesting; numbers of thousands of digits (parsed to the
// nearest double); strings of \u escapes; a long array of small numbers written
// otherwise than JCS does (1.0, 1e0).
func hostileSchemas() []struct {
	name string
	src  []byte
} {
	prefix := strings.Repeat("p", 1024)
	var shared, astral, nums, floats []string
	for i := range 60 {
		shared = append(shared, fmt.Sprintf(`"%s%03d":1`, prefix, i))
	}
	slices.Reverse(shared)
	for i := range 2000 {
		astral = append(astral, fmt.Sprintf(`"name_%04d_%c":1`, i, rune(0x10000+i)))
		floats = append(floats, fmt.Sprintf("%d.0e0", i))
	}
	slices.Reverse(astral)
	for range 16 {
		nums = append(nums, "1"+strings.Repeat("0", 300)+"."+strings.Repeat("9", 3700))
	}
	return []struct {
		name string
		src  []byte
	}{
		{"typical", tool7KB()},
		{"shared-prefix", []byte("{" + strings.Join(shared, ",") + "}")},
		{"astral-names", []byte("{" + strings.Join(astral, ",") + "}")},
		{"nesting", []byte(strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting))},
		{"long-numbers", []byte("[" + strings.Join(nums, ",") + "]")},
		{"escapes", []byte(`{"description":"` + strings.Repeat(`\u00e9\ud83d\ude00`, 65536/18) + `"}`)},
		{"floats", []byte("[" + strings.Join(floats, ",") + "]")},
	}
}

// BenchmarkCanonicalizeHostile canonicalizes each of hostileSchemas, as a catalog
// build does once per tool (a Discoverer's catalog version: SPEC PERF-1's set-up), and
// reports bytes per second, to compare per byte with the typical tool.
//
// SPEC PERF-1
func BenchmarkCanonicalizeHostile(b *testing.B) {
	for _, s := range hostileSchemas() {
		b.Run(s.name, func(b *testing.B) { benchCanonicalize(b, s.src) })
	}
}
