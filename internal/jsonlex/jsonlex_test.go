package jsonlex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestSkipSpace(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i    int
		want int
	}{
		{"", 0, 0},
		{" \t\r\n x", 0, 5},
		{"x  ", 1, 3},
		{"\v x", 0, 0}, // vertical tab is not JSON whitespace
		{"\u00a0x", 0, 0},
		{"  ", 5, 5},
	} {
		t.Run(fmt.Sprintf("%q@%d", tc.in, tc.i), func(t *testing.T) {
			if got := SkipSpace([]byte(tc.in), tc.i); got != tc.want {
				t.Errorf("SkipSpace(%q, %d) = %d, want %d", tc.in, tc.i, got, tc.want)
			}
		})
	}
}

func TestHex4(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i    int
		want rune
		ok   bool
	}{
		{"0000", 0, 0, true},
		{"x20aC", 1, 0x20AC, true},
		{"FfFf", 0, 0xFFFF, true},
		{"D83d", 0, 0xD83D, true},
		{"123", 0, 0, false},
		{"12g4", 0, 0, false},
		{"123 ", 0, 0, false},
		{"1234", 1, 0, false},
		{"1234", -1, 0, false},
		{"\xff234", 0, 0, false},
	} {
		t.Run(fmt.Sprintf("%q@%d", tc.in, tc.i), func(t *testing.T) {
			got, ok := Hex4([]byte(tc.in), tc.i)
			if ok != tc.ok || ok && got != tc.want {
				t.Errorf("Hex4(%q, %d) = %#x, %v, want %#x, %v", tc.in, tc.i, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestScanString(t *testing.T) {
	for _, tc := range []struct {
		in    string
		fault Fault
		want  String
	}{
		{`""`, None, String{End: 2}},
		{`"abc" `, None, String{End: 5, Units: 3}},
		{`"a\"b"`, None, String{End: 6, Units: 3, Escaped: true}},
		{`"\\\/\b\f\n\r\t"x`, None, String{End: 16, Units: 7, Escaped: true}},
		{`"\u20ac"`, None, String{End: 8, Units: 1, Escaped: true}},
		{`"\ud83d\ude00"`, None, String{End: 14, Units: 2, Astral: 1, Escaped: true}},
		{"\"é€😀\"", None, String{End: 11, Units: 4, Astral: 1}},
		{`"0123456789abcdefghij"`, None, String{End: 22, Units: 20}},
		{`"`, Unterminated, String{}},
		{`"abc`, Unterminated, String{}},
		{`"abcdefghijklmnop`, Unterminated, String{}},
		{`"\`, Unterminated, String{}},
		{"\"a\x1fb\"", Control, String{}},
		{"\"a\tb\"", Control, String{}},
		{`"\x"`, BadEscape, String{}},
		{`"\U0041"`, BadEscape, String{}},
		{`"\u12"`, BadEscape, String{}},
		{`"\u12g4"`, BadEscape, String{}},
		{`"\ud83d\u12"`, BadEscape, String{}},
		{`"\ud800"`, LoneSurrogate, String{}},
		{`"\udc00\ud800"`, LoneSurrogate, String{}},
		{`"\ud800\n"`, LoneSurrogate, String{}},
		{`"\ud800\u0041"`, LoneSurrogate, String{}},
		{`"\ud800\ud800"`, LoneSurrogate, String{}},
		{"\"\xff\"", BadUTF8, String{}},
		{"\"\xed\xa0\x80\"", BadUTF8, String{}}, // an encoded surrogate
		{"\"\xc0\xaf\"", BadUTF8, String{}},     // an overlong '/'
		{"\"abcdefgh\xe2\x82\"", BadUTF8, String{}},
		// Runs of \u escapes, which take a short loop, and what breaks a run.
		{`"\u0041\u00e9\u20AC\uD83D\uDE00\u0042"`, None, String{End: 38, Units: 6, Astral: 1, Escaped: true}},
		{`"\u0041ab\u00e9\n\u00e9é"`, None, String{End: 26, Units: 7, Escaped: true}},
		{`"\u0041\ud800x"`, LoneSurrogate, String{}},
		{`"\u0041\udc00\u0041"`, LoneSurrogate, String{}},
		{`"\u0041\ud83d\u0041"`, LoneSurrogate, String{}},
		{`"\u0041\u12"`, BadEscape, String{}},
		{`"\u0041\u00e9`, Unterminated, String{}},
		{"\"\\u0041\x01\"", Control, String{}},
		{"\"\\u0041\xff\"", BadUTF8, String{}},
		// Long plain runs, read sixteen and eight bytes at a time, ended at each offset.
		{`"0123456789abcdefghijklmnopqrstuvwxyz0123456789"`, None, String{End: 48, Units: 46}},
		{`"0123456789abcdefghijklmnopqrstu\"x"`, None, String{End: 36, Units: 33, Escaped: true}},
		{"\"0123456789abcdefghijklmnopq\x7fé\"", None, String{End: 32, Units: 29}},
		{"\"0123456789abcdefghijklmnopqrstuvw\x1f\"", Control, String{}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, f := ScanString([]byte(tc.in), 0)
			if f != tc.fault || f == None && got != tc.want {
				t.Errorf("ScanString(%q) = %+v, %d, want %+v, %d", tc.in, got, f, tc.want, tc.fault)
			}
			// DecodeString reads the same, and decodes as Unescape does.
			dst, got, f := DecodeString([]byte("pre"), []byte(tc.in), 0)
			if f != tc.fault || f == None && got != tc.want {
				t.Errorf("DecodeString(%q) = %+v, %d, want %+v, %d", tc.in, got, f, tc.want, tc.fault)
				return
			}
			if f != None {
				return
			}
			want := "pre"
			if got.Escaped {
				want = string(Unescape([]byte("pre"), []byte(tc.in[1:got.End-1])))
			}
			if string(dst) != want {
				t.Errorf("DecodeString(pre, %q) = %q, want %q", tc.in, dst, want)
			}
			// Resumed past the plain prefix, it reads and decodes the same.
			j := PlainPrefix([]byte(tc.in), 1)
			dst2, got2, f2 := DecodeStringFrom([]byte("pre"), []byte(tc.in), 1, j)
			if f2 != f || got2 != got || string(dst2) != want {
				t.Errorf("DecodeStringFrom(pre, %q, 1, %d) = %q, %+v, %d, want %q, %+v, %d", tc.in, j, dst2, got2, f2, want, got, f)
			}
		})
	}
	// A string inside a larger text, at an offset.
	if got, f := ScanString([]byte(`{"key":1}`), 1); f != None || got.End != 6 || got.Units != 3 {
		t.Errorf(`ScanString({"key":1}, 1) = %+v, %d, want End 6, Units 3`, got, f)
	}
}

func TestUnescape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, ``},
		{`plain`, `plain`},
		{`a\"b\\c\/d\b\f\n\r\t`, "a\"b\\c/d\b\f\n\r\t"},
		{`\u0041\u00e9\u20AC`, "Aé€"},
		{`\ud83d\ude00!`, "😀!"},
		{`\ud800`, "\ufffd"},
		{`\udc00x`, "\ufffdx"},
		{`\ud800\u0041`, "\ufffdA"},
		{`\ud800\ud83d\ude00`, "\ufffd😀"},
		{"a\xffb", "a\ufffdb"},
		{"é\xed\xa0\x80", "é\ufffd\ufffd\ufffd"},
		// Runs of \u escapes, and what breaks a run.
		{`\u0041\u00e9\u20AC\uD83D\uDE00\u0042`, "Aé€😀B"},
		{`\u0041\ud800\u0042`, "A\ufffdB"},
		{`\u0041\ud83d\u12`, "A\ufffd\\u12"},
		{`\u0041\u12`, `A\u12`},
		{`\u0041\u0000`, "A\x00"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := string(Unescape(nil, []byte(tc.in))); got != tc.want {
				t.Errorf("Unescape(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := string(Unescape([]byte("pre"), []byte(tc.in))); got != "pre"+tc.want {
				t.Errorf("Unescape(pre, %q) = %q, want %q", tc.in, got, "pre"+tc.want)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	for _, tc := range []struct {
		raw, name string
		want      bool
	}{
		{``, ``, true},
		{`query`, `query`, true},
		{`query`, `Query`, false},
		{`quer`, `query`, false},
		{`queryx`, `query`, false},
		{`\u0071uery`, `query`, true},
		{`\u0051uery`, `query`, false},
		{`a\"b`, `a"b`, true},
		{`a\\b`, `a\b`, true},
		{`a\\b`, `a\\b`, false},
		{`\ud83d\ude00`, "😀", true},
		{`\u00e9`, "é", true},
		{`\u00e9`, "e\u0301", false}, // no normalisation
		{`é`, "é", true},
		{`\ud800`, "\ufffd", true}, // decoded as encoding/json decodes
		{"\xff", "\ufffd", true},
		{"\xff", "\xff", false},
		{`\u017f`, "s", false}, // no case folding
	} {
		t.Run(tc.raw+"="+tc.name, func(t *testing.T) {
			if got := Equal([]byte(tc.raw), tc.name); got != tc.want {
				t.Errorf("Equal(%q, %q) = %v, want %v", tc.raw, tc.name, got, tc.want)
			}
		})
	}
}

func TestSkipValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i    int
		want int
	}{
		{`"a\"b",1`, 0, 6},
		{`{"a":[1,{"b":"}"}],"c":"\\"} x`, 0, 28},
		{`[ 1 , [ ] ]]`, 0, 11},
		{`-1.5e3,`, 0, 6},
		{`true}`, 0, 4},
		{`null `, 0, 4},
		{`[1,false]`, 3, 8},
		{`12`, 0, 2},
		// Not valid JSON: some index in range, no panic.
		{``, 0, 0},
		{`"abc`, 0, 4},
		{`"\`, 0, 2},
		{`{"a":`, 0, 5},
		{`[`, 5, 1},
	} {
		t.Run(fmt.Sprintf("%q@%d", tc.in, tc.i), func(t *testing.T) {
			if got := SkipValue([]byte(tc.in), tc.i); got != tc.want {
				t.Errorf("SkipValue(%q, %d) = %d, want %d", tc.in, tc.i, got, tc.want)
			}
		})
	}
}

func TestPlainPrefix(t *testing.T) {
	for _, tc := range []struct {
		in      string
		i, want int
	}{
		{`"abcdefgh"`, 1, 9},      // eight plain bytes
		{`"abc"defgh`, 1, 4},      // the quote
		{`"a\bcdefgh`, 1, 2},      // the backslash
		{"\"abcd\x1fefgh", 1, 5},  // a control character
		{"\"abcdef\x7fg", 1, 9},   // DEL is plain
		{"\"abcdefg\x80", 1, 8},   // a byte from 0x80
		{"\"\xffbcdefgh", 1, 1},   // flagged first
		{"\"ab\x1f\"cdefg", 1, 3}, // a borrow flags the next byte, not this one
		{`"abcdefg`, 1, 1},        // fewer than eight bytes: no progress
		{`"abcdefgh`, 9, 9},       // none at all
		{`"abcdefgh`, -1, -1},     // out of range: no progress
	} {
		t.Run(fmt.Sprintf("%q@%d", tc.in, tc.i), func(t *testing.T) {
			if got := PlainPrefix([]byte(tc.in), tc.i); got != tc.want {
				t.Errorf("PlainPrefix(%q, %d) = %d, want %d", tc.in, tc.i, got, tc.want)
			}
		})
	}
}

// TestPlainRunEveryOffset checks that plainRun stops at each byte that needs care (the
// quote, the backslash, a control character, any byte from 0x80) wherever it falls in an
// eight-byte word, with plain bytes after it, and that ScanString so still finds bad
// UTF-8 and counts a two-byte character as one unit there.
func TestPlainRunEveryOffset(t *testing.T) {
	for _, c := range []byte{'"', '\\', 0, 0x1f, 0x80, 0xc3, 0xff} {
		for start := range 8 {
			for k := start; k < 40; k++ {
				b := bytes.Repeat([]byte("a"), 48)
				b[k] = c
				if got := plainRun(b, start); got != k {
					t.Fatalf("plainRun(%q, %d) = %d, want %d", b, start, got, k)
				}
			}
		}
	}
	for k := 1; k < 40; k++ {
		b := []byte(`"` + strings.Repeat("a", 47) + `"`)
		b[k] = 0xff
		if _, f := ScanString(b, 0); f != BadUTF8 {
			t.Fatalf("ScanString(%q) fault = %v, want BadUTF8", b, f)
		}
		b = []byte(`"` + strings.Repeat("a", k-1) + "\u00e9" + strings.Repeat("a", 47-k) + `"`)
		b = []byte(`"` + strings.Repeat("a", k-1) + "é" + strings.Repeat("a", 47-k) + `"`)
		if s, f := ScanString(b, 0); f != None || s.Units != 47 || s.End != len(b) {
			t.Fatalf("ScanString(%q) = %+v, %v; want 47 units", b, s, f)
		}
	}
}

func TestNoAllocations(t *testing.T) {
	src := []byte(`"a\u00e9\ud83d\ude00\n and some plain text"`)
	content := src[1 : len(src)-1]
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		if _, f := ScanString(src, 0); f != None {
			t.Fatal(f)
		}
		buf = Unescape(buf[:0], content)
		if buf, _, _ = DecodeString(buf[:0], src, 0); string(buf) != "aé😀\n and some plain text" {
			t.Fatal("DecodeString decoded wrong")
		}
		if !Equal(content, "aé😀\n and some plain text") {
			t.Fatal("Equal is false")
		}
		_ = SkipValue(src, 0)
	})
	if allocs != 0 {
		t.Errorf("ScanString, Unescape and DecodeString (with room), Equal and SkipValue allocate %v times, want 0", allocs)
	}
}

func BenchmarkScanString(b *testing.B) {
	for _, tc := range []struct{ name, s string }{
		{"plain32", `"` + strings.Repeat("abcd", 8) + `"`},
		{"escaped32", `"` + strings.Repeat(`ab\n\u00e9`, 4) + `"`},
		{"plain4096", `"` + strings.Repeat("abcd", 1024) + `"`},
	} {
		src := []byte(tc.s)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, f := ScanString(src, 0); f != None {
					b.Fatal(f)
				}
			}
		})
	}
}

func BenchmarkDecodeString(b *testing.B) {
	for _, tc := range []struct{ name, s string }{
		{"plain32", `"` + strings.Repeat("abcd", 8) + `"`},
		{"escaped32", `"` + strings.Repeat(`ab\n\u00e9`, 4) + `"`},
		{"uRun1024", `"` + strings.Repeat(`\u00e9\ud83d\ude00`, 1024) + `"`},
		{"plain4096", `"` + strings.Repeat("abcd", 1024) + `"`},
	} {
		src := []byte(tc.s)
		dst := make([]byte, 0, len(src))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				var f Fault
				if dst, _, f = DecodeString(dst[:0], src, 0); f != None {
					b.Fatal(f)
				}
			}
		})
	}
}

// loneSurrogates reports whether the content s of a string json.Valid accepts holds a
// surrogate escape that is not half of a pair, by decoding its escapes into UTF-16 code
// units: an oracle written apart from the code under test.
func loneSurrogates(s []byte) bool {
	var units []uint16
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			r, n := utf8.DecodeRune(s[i:])
			units = utf16.AppendRune(units, r)
			i += n
			continue
		}
		if s[i+1] != 'u' {
			units = append(units, 'x')
			i += 2
			continue
		}
		var u uint16
		for _, c := range s[i+2 : i+6] {
			u <<= 4
			switch {
			case c <= '9':
				u |= uint16(c - '0')
			case c <= 'F':
				u |= uint16(c - 'A' + 10)
			default:
				u |= uint16(c - 'a' + 10)
			}
		}
		units = append(units, u)
		i += 6
	}
	for k := 0; k < len(units); k++ {
		switch u := units[k]; {
		case u >= 0xD800 && u < 0xDC00:
			if k+1 == len(units) || units[k+1] < 0xDC00 || units[k+1] >= 0xE000 {
				return true
			}
			k++
		case u >= 0xDC00 && u < 0xE000:
			return true
		}
	}
	return false
}

// FuzzScanString: on any input, ScanString, DecodeString, Unescape and Equal never
// panic, and DecodeString reads as ScanString does. A string ScanString accepts is one
// encoding/json accepts, with valid UTF-8 and no lone surrogate, and Unescape,
// DecodeString, Equal and the counts agree with encoding/json's decoding; a
// string it refuses is one encoding/json refuses, or holds invalid UTF-8 or a lone
// surrogate (the Fault says which).
func FuzzScanString(f *testing.F) {
	for _, s := range []string{
		``, `abc`, `a\"b\\c\/\b\f\n\r\t`, `\u20ac\ud83d\ude00`, `\ud800`, `\udc00\ud800`,
		`\ud800\u0041`, `\u12`, `\x`, "\xff", "\xed\xa0\x80", "tab\there", `é😀`,
		`"trailing`, `\`, `0123456789abcdefghijklmnop\u0000`,
		`\u0041\u00E9\u20ac\ud83d\ude00ab\u0042`, `\u0041\ud800\u12`, `a\u0041\udc00`,
		// runs of bytes from 0x80, read at once (String.chars): cut short, bad inside,
		// ending at the quote, after an escape
		"\xd0", "ab\xe4\xb8\x80\xe4\xb8", "жж\xffж", `é"`, `\n一😀é\t`, "é\xed\xa0\x80",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Unescape(nil, data)
		_ = Equal(data, "name")
		src := append([]byte{'"'}, data...)
		s, fault := ScanString(src, 0)
		dst, ds, dfault := DecodeString([]byte("pre"), src, 0)
		if dfault != fault || fault == None && ds != s {
			t.Fatalf("DecodeString(%q) = %+v, %d; ScanString %+v, %d", src, ds, dfault, s, fault)
		}
		j := PlainPrefix(src, 1)
		if dst2, ds2, f2 := DecodeStringFrom([]byte("pre"), src, 1, j); f2 != dfault || f2 == None && (ds2 != ds || string(dst2) != string(dst)) {
			t.Fatalf("DecodeStringFrom(%q, 1, %d) = %q, %+v, %d; DecodeString %q, %+v, %d", src, j, dst2, ds2, f2, dst, ds, dfault)
		}
		if fault == None && !s.Escaped && string(dst) != "pre" {
			t.Fatalf("DecodeString(pre, %q) = %q without an escape", src, dst)
		}
		if fault != None {
			end := SkipString(src, 0)
			str := src[:end]
			if end < 2 || src[end-1] != '"' || !json.Valid(str) {
				return // encoding/json refuses it too
			}
			content := str[1 : end-1]
			switch fault {
			case BadUTF8:
				if utf8.Valid(content) {
					t.Fatalf("ScanString(%q) = BadUTF8 for valid UTF-8", str)
				}
			case LoneSurrogate:
				if !loneSurrogates(content) {
					t.Fatalf("ScanString(%q) = LoneSurrogate, the oracle finds none", str)
				}
			default:
				t.Fatalf("ScanString(%q) = fault %d, encoding/json accepts it", str, fault)
			}
			return
		}
		if s.End < 2 || s.End > len(src) || src[s.End-1] != '"' {
			t.Fatalf("ScanString(%q).End = %d", src, s.End)
		}
		str := src[:s.End]
		content := str[1 : s.End-1]
		var want string
		if err := json.Unmarshal(str, &want); err != nil {
			t.Fatalf("ScanString accepted %q, encoding/json: %v", str, err)
		}
		if !utf8.Valid(content) || loneSurrogates(content) {
			t.Fatalf("ScanString accepted %q, with invalid UTF-8 or a lone surrogate", str)
		}
		if s.Escaped != (bytes.IndexByte(content, '\\') >= 0) {
			t.Fatalf("ScanString(%q).Escaped = %v", str, s.Escaped)
		}
		if !s.Escaped && string(content) != want {
			t.Fatalf("ScanString(%q) has no escape, encoding/json decodes %q", str, want)
		}
		if got := string(Unescape(nil, content)); got != want {
			t.Fatalf("Unescape(%q) = %q, encoding/json %q", content, got, want)
		}
		if s.Escaped && string(dst) != "pre"+want {
			t.Fatalf("DecodeString(pre, %q) = %q, encoding/json %q", str, dst, want)
		}
		runes := []rune(want)
		if units := len(utf16.Encode(runes)); s.Units != units || s.Units-s.Astral != len(runes) {
			t.Fatalf("ScanString(%q) = %d units, %d astral; want %d units, %d code points", str, s.Units, s.Astral, units, len(runes))
		}
		if !Equal(content, want) || Equal(content, want+"x") || len(want) > 0 && Equal(content, want[:len(want)-1]) {
			t.Fatalf("Equal(%q, ...) disagrees with its decoding %q", content, want)
		}
	})
}

// FuzzSkipValue: SkipValue and SkipString never panic and stay in range on any input;
// on valid JSON, SkipValue spans the whole value, and walking an object's members with
// SkipString and SkipValue finds the keys and values encoding/json's Decoder reads.
func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,{"b":"}"}],"c":"\\","d":{"e":null}}`, ` [1, "]", true, false, -0.5e+3] `,
		`"s"`, `1`, `{}`, `{"\u0061":1,"a":2}`, `{"a":`, `[[["`, `"\`,
		`"0123456\"9abcdef\\"`, `"01234567\\\"abcdefghijklmnop\\\\"x"`, `{"long description here":"and more words\\"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for i := range min(len(data), 64) {
			if got, want := SkipString(data, i), skipStringBytewise(data, i); got != want {
				t.Fatalf("SkipString(%q, %d) = %d, byte by byte %d", data, i, got, want)
			}
		}
		for i := 0; i < len(data) && i < 4; i++ {
			if e := SkipValue(data, i); e < i || e > len(data) {
				t.Fatalf("SkipValue(%q, %d) = %d, out of range", data, i, e)
			}
			if e := SkipString(data, i); e <= i || e > len(data) {
				t.Fatalf("SkipString(%q, %d) = %d, out of range", data, i, e)
			}
		}
		if !json.Valid(data) {
			return
		}
		i := SkipSpace(data, 0)
		e := SkipValue(data, i)
		if SkipSpace(data, e) != len(data) {
			t.Fatalf("SkipValue(%q, %d) = %d, want the end of the value", data, i, e)
		}
		if data[i] != '{' {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		j := SkipSpace(data, i+1)
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			var val json.RawMessage
			if err := dec.Decode(&val); err != nil {
				t.Fatal(err)
			}
			if data[j] != '"' {
				t.Fatalf("member at %d of %q does not start with a quote", j, data)
			}
			kend := SkipString(data, j)
			if key := string(Unescape(nil, data[j+1:kend-1])); key != tok.(string) || !Equal(data[j+1:kend-1], key) {
				t.Fatalf("key at %d of %q decodes to %q, encoding/json reads %q", j, data, key, tok)
			}
			v := SkipSpace(data, SkipSpace(data, kend)+1)
			vend := SkipValue(data, v)
			if !bytes.Equal(data[v:vend], val) {
				t.Fatalf("value at %d of %q = %q, encoding/json reads %q", v, data, data[v:vend], val)
			}
			j = SkipSpace(data, vend)
			if data[j] == ',' {
				j = SkipSpace(data, j+1)
			}
		}
		if data[j] != '}' {
			t.Fatalf("members of %q end at %d, not at the closing brace", data, j)
		}
		if _, err := dec.Token(); err != nil && err != io.EOF {
			t.Fatal(err)
		}
	})
}

// skipStringBytewise is SkipString one byte at a time, the reference its eight-byte
// steps must agree with on any input.
func skipStringBytewise(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// BenchmarkSkipString compares SkipString with skipStringBytewise on a member name and
// on a description.
func BenchmarkSkipString(b *testing.B) {
	for _, s := range []string{`"type"`, `"` + strings.Repeat(`the n-th parameter of the tool, a filter on the listed items `, 4) + `\"quoted\"` + `"`} {
		src := []byte(s)
		for _, f := range []struct {
			name string
			fn   func([]byte, int) int
		}{{"words", SkipString}, {"bytewise", skipStringBytewise}} {
			b.Run(fmt.Sprintf("%s/len=%d", f.name, len(src)), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					if f.fn(src, 0) != len(src) {
						b.Fatal("short")
					}
				}
			})
		}
	}
}
