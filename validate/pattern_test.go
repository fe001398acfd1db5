package validate

import "testing"

// TestTranslateEscapes pins the RE2 spelling of every ECMA-262 escape class, and which
// escapes are refused because the engines differ on them (the "" rows).
//
// SPEC CALL-3
// SPEC CALL-4
func TestTranslateEscapes(t *testing.T) {
	const sp = ecmaSpace
	for _, tc := range []struct{ pattern, want string }{
		// Character class escapes.
		{`\d\D\w\W`, `\d\D\w\W`},
		{`\s`, "[" + sp + "]"},
		{`[\s]`, "[" + sp + "]"},
		{`\S`, "[^" + sp + "]"},
		{`[\S]`, ""},
		// Boundaries; inside a class \b is a backspace.
		{`\b\B`, `\b\B`},
		{`[\b]`, `[\x08]`},
		{`[\B]`, ""},
		// Control characters.
		{`\t\n\r\f\v`, `\t\n\r\f\v`},
		{`\0`, `\x00`},
		{`\01`, ""},
		{`\cJ\cj`, `\x{a}\x{a}`},
		{`\c1`, ""},
		{`a\c`, ""},
		// Code points.
		{`\x41`, `\x{41}`},
		{`\x4`, ""},
		{`\xZZ`, ""},
		{`\u0041\u00e9`, `\x{41}\x{e9}`},
		{`\u{1F600}`, `\x{1F600}`},
		{`\u{}`, ""},
		{`\u{D800}`, ""},
		{`\u{110000}`, ""},
		{`\uD83D\uDE00`, `\x{1f600}`},
		{`\uD83D`, ""},
		{`\uD83D\u0041`, ""},
		{`\uDE00`, ""},
		{`\u00G1`, ""},
		// Unicode properties.
		{`\p{L}\P{Lu}`, `\p{L}\P{Lu}`},
		{`\p{Letter}`, `\p{L}`},
		{`\p{gc=Nd}`, `\p{Nd}`},
		{`\P{Script=Greek}`, `\P{Greek}`},
		{`\p{Foo}`, ""},
		{`\p{Script=Foo}`, ""},
		{`\pL`, ""},
		{`\p{}`, ""},
		// Identity escapes of syntax characters only.
		{`\.\*\/\-\^\$`, `\.\*\/\-\^\$`},
		{`\1`, ""},
		{`\k<a>`, ""},
		{`\A`, ""},
		{`\a`, ""},
		{`\é`, ""},
		{`a\`, ""},
	} {
		got, ok := translatePattern(tc.pattern)
		if !ok {
			got = ""
		}
		if got != tc.want {
			t.Errorf("translatePattern(%q) = %q, %v; want %q", tc.pattern, got, ok, tc.want)
		}
	}
}
