package schemaguard

import (
	"slices"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// FuzzCompareUTF16 checks compareUTF16, which skips equal bytes 8 at a time, orders
// any two valid UTF-8 strings as their UTF-16 encodings compare, with their first
// difference at every offset of an 8-byte word (a shared ASCII prefix of 0 to 17
// bytes), and both ways round; and that keyOrder of their prefixKeys, when it decides,
// orders them alike, the keys taken with other bytes after the names or none.
func FuzzCompareUTF16(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"a", ""}, {"repo_owner", "repo_name"}, {"\ue000", "\U00010000"},
		{"abcdefg\u00e9", "abcdefg\u00e8"}, {"abcdefgh\U0010ffff", "abcdefgh\uffff"}, {"same_prefix_1234", "same_prefix_1234"},
		{"a", "a\x00"}, {"a\x00b", "ab"}, {"ab", "a\x7f"}} {
		f.Add(s[0], s[1])
	}
	const pad = "abcdefghijklmnopq"
	sign := func(x int) int { return min(max(x, -1), 1) }
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		for p := range len(pad) + 1 {
			x, y := []byte(pad[:p]+a), []byte(pad[:p]+b)
			want := slices.Compare(utf16.Encode([]rune(string(x))), utf16.Encode([]rune(string(y))))
			if got := sign(compareUTF16(x, y)); got != want {
				t.Fatalf("compareUTF16(%q, %q) = %d, want %d", x, y, got, want)
			}
			if got := sign(compareUTF16(y, x)); got != -want {
				t.Fatalf("compareUTF16(%q, %q) = %d, want %d", y, x, got, -want)
			}
			for _, tail := range []string{"", "\xff\xff\xff\xff\xff\xff\xff\xff", "zzzzzzzz"} {
				kx := prefixKey(slices.Clip(append(slices.Clip(x), tail...))[:len(x)])
				ky := prefixKey(slices.Clip(append(slices.Clip(y), tail...))[:len(y)])
				if d, ok := keyOrder(kx, ky); ok && d != want {
					t.Fatalf("keyOrder of %q and %q (then %q) = %d, want %d", x, y, tail, d, want)
				}
				if d, ok := keyOrder(ky, kx); ok && d != -want {
					t.Fatalf("keyOrder of %q and %q (then %q) = %d, want %d", y, x, tail, d, -want)
				}
			}
		}
	})
}
