package sqlstore

import (
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// FuzzScopesColumn feeds arbitrary text to the scopes column decoding. SPEC GRANT-5:
// decoding never panics; whatever grants.CheckRow accepts is a set of valid scope
// tokens that encodes back to the very same text, so no two column texts read as the
// same scopes and nothing outside the grammar is read as a scope.
func FuzzScopesColumn(f *testing.F) {
	for _, s := range []string{"", "a", "a b", "a  b", " a", "a ", " ", "models:read tools:write", "a\tb", "é", "a a", `a"b`, "x\x00y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, col string) {
		scopes := decodeScopes(col)
		err := grants.CheckRow(grants.Row{Principal: "p", Tool: "t", Effect: grants.Allow, Scopes: scopes, Revision: 1})
		if err != nil {
			return
		}
		for _, s := range scopes {
			if !grants.ValidScope(s) || strings.Contains(s, " ") {
				t.Fatalf("column %q accepted with invalid scope %q", col, s)
			}
		}
		if back := encodeScopes(scopes); back != col {
			t.Fatalf("column %q decodes to %q, which encodes to %q", col, scopes, back)
		}
	})
}
