package tooldef

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzFoldName checks foldName keys two names alike exactly when bytes.EqualFold deems
// them equal, so caseTwins answers the same for many members as for few.
func FuzzFoldName(f *testing.F) {
	f.Add("inputSchema", "inputschema")
	f.Add("s", "\u017f")
	f.Add("k", "\u212a")
	f.Add("\u00df", "SS")
	f.Add("\u03a3", "\u03c2")
	f.Add("a\"", "A\"")
	f.Add("\u0130", "i")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return // canonical names are UTF-8
		}
		if got, want := foldName([]byte(a)) == foldName([]byte(b)), bytes.EqualFold([]byte(a), []byte(b)); got != want {
			t.Fatalf("foldName(%q) == foldName(%q) is %v, bytes.EqualFold %v", a, b, got, want)
		}
		keys := [][]byte{[]byte(a)}
		for i := range 16 {
			keys = append(keys, []byte{'\x01', byte(i)}) // fillers no letter folds to
		}
		if a != b && !strings.HasPrefix(a, "\x01") && !strings.HasPrefix(b, "\x01") {
			keys = append(keys, []byte(b))
			if got, want := caseTwins(keys), bytes.EqualFold([]byte(a), []byte(b)); got != want {
				t.Fatalf("caseTwins of %q and %q among %d names = %v, want %v", a, b, len(keys), got, want)
			}
		}
	})
}
