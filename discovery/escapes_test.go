package discovery

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/schemaguard"
)

// FuzzCanonicalEscapes checks canonicalEscapes equals escapes on the canonical form of
// any JSON text, the only input NewCatalog gives it.
func FuzzCanonicalEscapes(f *testing.F) {
	for _, s := range []string{
		`{"a":"<b>&\"\\"}`, "[\"\u2028\u2029\", \"\\u2028\", \"\\u0001\\n\\t\"]", `"\u00e2\u0080"`,
		"{\"name\":\"x\",\"description\":\"a < b && c > d \\\\ \\\" \xe2\x80\xa8\"}", `1e3`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		canon, _, err := schemaguard.Canonicalize(nil, src)
		if err != nil {
			return
		}
		gs, gr := canonicalEscapes(canon)
		ws, wr := escapes(canon)
		if gs != ws || gr != wr {
			t.Fatalf("canonicalEscapes(%q) = %d, %d; escapes %d, %d", canon, gs, gr, ws, wr)
		}
	})
}

// BenchmarkCanonicalEscapes compares canonicalEscapes with escapes on a canonical tool
// of about 4 KB (MCP tool definitions are mostly text in strings).
func BenchmarkCanonicalEscapes(b *testing.B) {
	var props []string
	for i := range 40 {
		props = append(props, fmt.Sprintf(`"param_%02d":{"description":"the %d-th parameter of the tool, a filter on the listed <items> & more","type":"string"}`, i, i))
	}
	src := `{"name":"t","description":"A tool.","inputSchema":{"type":"object","properties":{` + strings.Join(props, ",") + `}}}`
	canon, _, err := schemaguard.Canonicalize(nil, []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []struct {
		name string
		fn   func([]byte) (int, int)
	}{{"canonical", canonicalEscapes}, {"bytewise", escapes}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(canon)))
			for b.Loop() {
				f.fn(canon)
			}
		})
	}
}
