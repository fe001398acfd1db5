package plan

import (
	"bytes"
	"strings"
	"testing"
)

// A cached tool counts the input schema its provider definitions hold against the
// cache's bound, and holds its own copy of it, so the entry pins none of the catalog's
// canonical bytes (an eager tool has no native definition or line to count).
func TestToolDataCountsSchema(t *testing.T) {
	pl := New(nil, &Policy{Default: LoadEager})
	long := strings.Repeat("x", 4000)
	def := []byte(`{"inputSchema":{"properties":{"a":{"description":"` + long + `"}},"type":"object"},"name":"big"}`)
	td := pl.derive(def)
	schema := td.render.anthropic.InputSchema
	if n := td.bytes(); n < int64(len(schema)) || len(schema) < len(long) {
		t.Fatalf("bytes() = %d for a tool whose schema is %d bytes", n, len(schema))
	}
	copy(def, bytes.Repeat([]byte("y"), len(def)))
	if !bytes.Contains(td.render.anthropic.InputSchema, []byte(long)) || !bytes.Contains(td.render.openAI.Parameters, []byte(long)) {
		t.Fatal("the cached definitions share the catalog's bytes")
	}
}
