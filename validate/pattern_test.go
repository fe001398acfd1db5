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
		{`\.\*\/\^\$\{\}\]`, `\.\*\/\^\$\{\}\]`},
		{`[\-]`, `[\-]`},
		{`\-`, ""}, // "-" is a syntax character inside a class only
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

// compilePattern refuses what ECMA-262 refuses in Unicode mode, where Go's regexp (or
// ECMA without the u flag, Annex B) would read it some other way: a class escape as an
// end of a range, lone braces and brackets, a quantified assertion, "\-" outside a
// class, a repeated or malformed group name. Each "invalid" row is a SyntaxError for
// new RegExp(p, "u") (node 20); each "valid" row compiles there and here. They were
// accepted and enforced (with "-" and braces literal, assertions repeated), so a
// catalog could be served a schema that JavaScript validators reject as malformed
// (SPEC CALL-4: malformed answers 503).
//
// SPEC CALL-4
// SPEC CALL-5
func TestCompilePatternUnicodeModeSyntax(t *testing.T) {
	for _, p := range []string{
		`[\d-z]`, `[\d-[]`, `[a-\d]`, `[\w-\s]`, `[\x00-\s]`, `[\d-\d]`, `[\d-z-]`, `[\p{L}-z]`, `[^\S-a]`,
		`\-`, `a\-b`,
		`a{`, `a{1`, `a{,2}`, `a{1,x}`, `{2}`, `]`, `}`, `a}`, `a]`,
		`^*`, `$+`, `\b+`, `\B?`, `^{2}`, `a$*`,
		`(?<a>x)(?<a>y)`, `(?<a>x)|(?<a>y)`, `(?<1a>x)`,
	} {
		if _, ok := compilePattern(p); ok {
			t.Errorf("compilePattern(%q) accepted a pattern ECMA-262 refuses in Unicode mode", p)
		}
	}
	for _, p := range []string{
		`[\d-]`, `[-\d]`, `[a-z-\d]`, `[a-b-c]`, `[a-]`, `[--z]`, `[\-]`, `[a\-z]`, `[^-a]`, `[{}]`, `[\]]`,
		`a{2}`, `a{2,}`, `a{2,3}`, `a{1,2}?`, `x*?`, `\{\}\]`, `(?:^)*`, `(?<a1>x)`, `(?<_a>x)(?<b>y)`, `^a$`, `\bfoo\b`,
	} {
		if _, ok := compilePattern(p); !ok {
			t.Errorf("compilePattern(%q) refused a pattern ECMA-262 accepts in Unicode mode", p)
		}
	}
}
