package schemaguard

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/internal/catalogtest"
)

// tool7KB returns a realistic tool definition of about 7 KB, like the largest real one.
func tool7KB() []byte {
	props := map[string]any{}
	for i := range 24 {
		p := map[string]any{
			"type":        []string{"string", "integer", "boolean", "array", "number"}[i%5],
			"description": fmt.Sprintf("Parameter %d of the project item update: the value written to field %d, validated by the server before anything changes.", i, i),
		}
		switch i % 5 {
		case 0:
			p["enum"] = []string{"open", "closed", "draft", "archived"}
			p["maxLength"] = 64
		case 1:
			p["minimum"] = 1
			p["maximum"] = 1e6
		case 3:
			p["items"] = map[string]any{"type": "object", "properties": map[string]any{
				"id": map[string]any{"type": "integer"}, "value": map[string]any{"type": "string", "pattern": "^[a-z0-9_-]{1,40}$"},
			}, "required": []string{"id"}}
		}
		props[fmt.Sprintf("field_%02d", i)] = p
	}
	tool := map[string]any{
		"name":        "projects_write",
		"title":       "Write project items",
		"description": "Create, update or delete items and fields of a GitHub Project (classic projects are not supported). Use the method parameter to choose the operation.",
		"annotations": map[string]any{"readOnlyHint": false, "destructiveHint": true, "title": "Write project items"},
		"inputSchema": map[string]any{"type": "object", "properties": props, "required": []string{"field_00", "field_01"}, "additionalProperties": false},
	}
	b, err := json.MarshalIndent(tool, "", " ")
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkCanonicalize canonicalizes one 7 KB tool, as a catalog version does once per tool.
func BenchmarkCanonicalize(b *testing.B) {
	src := tool7KB()
	benchCanonicalize(b, src)
}

// benchCanonicalize measures Canonicalize of src into a buffer with room to spare.
func benchCanonicalize(b *testing.B, src []byte) {
	dst := make([]byte, 0, 2*len(src))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Canonicalize(dst[:0], src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCanonicalizeCanonical canonicalizes the canonical form of the tool of
// BenchmarkCanonicalize, as a catalog kept in canonical form (or written by
// encoding/json from maps, as the discovery benchmarks' tools are) is read: the text is
// checked and copied whole.
func BenchmarkCanonicalizeCanonical(b *testing.B) {
	src, _, err := Canonicalize(nil, tool7KB())
	if err != nil {
		b.Fatal(err)
	}
	benchCanonicalize(b, src)
}

// BenchmarkCanonicalizeServerOrder canonicalizes the tool of BenchmarkCanonicalize
// written compact with every object's members in reverse name order, as a server that
// does not sort them may send it: every object is sorted.
func BenchmarkCanonicalizeServerOrder(b *testing.B) {
	var v any
	if err := json.Unmarshal(tool7KB(), &v); err != nil {
		b.Fatal(err)
	}
	src := catalogtest.AppendJSON(nil, v, reverseKeys)
	benchCanonicalize(b, src)
}

// reverseKeys puts an object's member names in reverse name order.
func reverseKeys(keys []string, _ int) { slices.Reverse(keys) }

// BenchmarkCanonicalizeSharedPrefix canonicalizes an object of 40 properties in reverse
// name order whose names share their first 17 bytes (repository_owner_), as a server
// may send one: the member sort compares long equal prefixes (compareUTF16).
func BenchmarkCanonicalizeSharedPrefix(b *testing.B) {
	props := map[string]any{}
	for i := range 40 {
		props[fmt.Sprintf("repository_owner_%02d_name", i)] = map[string]any{"type": "string"}
	}
	src := catalogtest.AppendJSON(nil, map[string]any{"type": "object", "properties": props}, reverseKeys)
	benchCanonicalize(b, src)
}
