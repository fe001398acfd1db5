package schemaguard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

var raceEnabled = false

func canonical(t *testing.T, src string) string {
	t.Helper()
	out, _, err := Canonicalize(nil, []byte(src))
	if err != nil {
		t.Fatalf("Canonicalize(%q) error = %v", src, err)
	}
	return string(out)
}

// checkCopies fails t when Canonicalize of src differs from the reference that writes
// every value from the tape (canonicalize without collapse) in bytes, Measure or error:
// text it copies as already canonical must be exactly what writing it would give.
func checkCopies(t testing.TB, src []byte) {
	t.Helper()
	out, m, err := Canonicalize([]byte("dst:"), src)
	ref, mref, errRef := canonicalize([]byte("dst:"), src, false)
	if !bytes.Equal(out, ref) || m != mref || err != errRef {
		t.Fatalf("Canonicalize(%q) = %q, %+v, %v; writing every value gives %q, %+v, %v", src, out, m, err, ref, mref, errRef)
	}
}

// TestCopiesCanonicalText checks that text already canonical is copied as it is, and
// that text that only looks so (another spelling of a number or an escape, a space,
// names out of order or twice) is written as the tape says, as without copying.
func TestCopiesCanonicalText(t *testing.T) {
	copied := []string{
		`{"a":[1,-2,0.5,1e+21,"x",true,false,null,{}],"b":{"c":"\n\"\\\u001f"}}`,
		`[]`, `{}`, `{"\n":1}`, `[0,-1,123456789012345,-12345678901234,9007199254740991]`, `"\b\t\n\f\r\u000b"`, `-1.5e-7`, "{\"\u00e9\":\"\u2028\",\"\U0001F600\":1,\"\uffff\":2}",
	}
	for _, s := range copied {
		if got := canonical(t, s); got != s {
			t.Errorf("Canonicalize(%s) = %s, want it unchanged", s, got)
		}
		checkCopies(t, []byte(s))
	}
	looksCanonical := []string{
		`[1.0]`, `[1e0]`, `[-0]`, `[-0.0]`, `[1234567890123456789]`, `[-12345678901234567]`, `[1E3]`, `[100e-2]`, `[9007199254740993]`, `["\u00e9"]`, `["\/"]`, `["\u001F"]`,
		`["\u000a"]`, `["\ud83d\ude00"]`, `{"b":1,"a":2}`, `{"a":1,"a":1}`, `{"a":1,"\u0061":1}`,
		`{"a":1,"\u0062":2}`, `{"a": 1}`, `[1 ]`, ` [1]`, `{"a":[{"c":1,"b":2}]}`,
		`{"a":{"b":1,"b":2}}`, "{\"\uffff\":1,\"\U0001F600\":2}", `[{"a":1},{"b":2},[3,[4.10]]]`,
	}
	for _, s := range looksCanonical {
		checkCopies(t, []byte(s))
		if out, _, err := Canonicalize(nil, []byte(s)); err == nil && string(out) == s {
			t.Errorf("Canonicalize(%s) left it unchanged, want it rewritten", s)
		}
	}
}

// SPEC CONTRACT-1: the example of RFC 8785 §3.2.2.
func TestRFC8785Example(t *testing.T) {
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	if got := canonical(t, in); got != want {
		t.Errorf("Canonicalize(RFC 8785 §3.2.2 input) =\n%s\nwant\n%s", got, want)
	}
}

// SPEC CONTRACT-1: the sorting example of RFC 8785 §3.2.3, members ordered by their
// names' UTF-16 code units.
func TestRFC8785SortingExample(t *testing.T) {
	in := `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`
	want := "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\"," +
		"\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\"," +
		"\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"
	if got := canonical(t, in); got != want {
		t.Errorf("Canonicalize(RFC 8785 §3.2.3 input) =\n%s\nwant\n%s", got, want)
	}
}

// rfcNumbers is the table of RFC 8785 Appendix B: IEEE 754 bits and their canonical text.
var rfcNumbers = []struct {
	bits uint64
	want string
}{
	{0x0000000000000000, "0"},
	{0x8000000000000000, "0"},
	{0x0000000000000001, "5e-324"},
	{0x8000000000000001, "-5e-324"},
	{0x7fefffffffffffff, "1.7976931348623157e+308"},
	{0xffefffffffffffff, "-1.7976931348623157e+308"},
	{0x4340000000000000, "9007199254740992"},
	{0xc340000000000000, "-9007199254740992"},
	{0x4430000000000000, "295147905179352830000"},
	{0x44b52d02c7e14af5, "9.999999999999997e+22"},
	{0x44b52d02c7e14af6, "1e+23"},
	{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
	{0x444b1ae4d6e2ef4e, "999999999999999700000"},
	{0x444b1ae4d6e2ef4f, "999999999999999900000"},
	{0x444b1ae4d6e2ef50, "1e+21"},
	{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
	{0x3eb0c6f7a0b5ed8d, "0.000001"},
	{0x41b3de4355555553, "333333333.3333332"},
	{0x41b3de4355555554, "333333333.33333325"},
	{0x41b3de4355555555, "333333333.3333333"},
	{0x41b3de4355555556, "333333333.3333334"},
	{0x41b3de4355555557, "333333333.33333343"},
	{0xbecbf647612f3696, "-0.0000033333333333333333"},
	{0x43143ff3c1cb0959, "1424953923781206.2"},
}

// SPEC CONTRACT-1: numbers are written as ECMAScript writes them (RFC 8785 Appendix B).
func TestRFC8785NumberTable(t *testing.T) {
	for _, tt := range rfcNumbers {
		f := math.Float64frombits(tt.bits)
		if got := string(appendNumber(nil, f)); got != tt.want {
			t.Errorf("appendNumber(%#016x) = %s, want %s", tt.bits, got, tt.want)
		}
		// Through the parser too, from the longest exact spelling and from Go's own.
		for _, spelling := range []string{strconv.FormatFloat(f, 'g', -1, 64), strconv.FormatFloat(f, 'e', 40, 64)} {
			if got := canonical(t, spelling); got != tt.want {
				t.Errorf("Canonicalize(%s) = %s, want %s", spelling, got, tt.want)
			}
		}
	}
}

// SPEC CONTRACT-1: number spellings of our own, around each of ECMAScript's formats.
func TestNumbers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"}, {"-0", "0"}, {"-0.0e5", "0"}, {"0e-5", "0"}, {"0.0", "0"},
		{"1", "1"}, {"1.0", "1"}, {"1e0", "1"}, {"10e-1", "1"}, {"0.1e1", "1"}, {"-1", "-1"},
		{"1E2", "100"}, {"12.50", "12.5"}, {"-1.5", "-1.5"}, {"0.1", "0.1"}, {"0.3", "0.3"},
		{"100000000000000000000", "100000000000000000000"}, // 1e20: still plain
		{"1e21", "1e+21"}, {"1.5e21", "1.5e+21"}, {"-1e21", "-1e+21"},
		{"123456789012345678901234", "1.2345678901234569e+23"},
		{"0.000001", "0.000001"}, {"1e-6", "0.000001"}, {"1.2e-6", "0.0000012"}, {"2e-6", "0.000002"},
		{"1e-7", "1e-7"}, {"1.5e-7", "1.5e-7"}, {"-1e-7", "-1e-7"}, {"123e-20", "1.23e-18"},
		{"9007199254740993", "9007199254740992"}, // rounds to the nearest double
		{"9007199254740991", "9007199254740991"},
		{"1e-400", "0"}, {"-1e-400", "0"}, {"4.9e-324", "5e-324"}, // underflow: 0, as ECMAScript
		{"1.7976931348623157e308", "1.7976931348623157e+308"},
		{"1e300", "1e+300"}, {"1e-300", "1e-300"}, {"5e-7", "5e-7"}, {"0.5", "0.5"},
		{"123.456", "123.456"}, {"1234567.125", "1234567.125"}, {"3.0e1", "30"},
		{"0.000000000000000000000000001", "1e-27"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := canonical(t, tt.in); got != tt.want {
				t.Errorf("Canonicalize(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// SPEC CONTRACT-1: strings keep every character but the few JCS escapes.
func TestStrings(t *testing.T) {
	tests := []struct{ in, want string }{
		{`""`, `""`},
		{`"plain"`, `"plain"`},
		{`"\u0000"`, `"\u0000"`},
		{`"\u001F\u001f"`, `"\u001f\u001f"`},
		{`"\u0008\u0009\u000A\u000c\u000D"`, `"\b\t\n\f\r"`},
		{`"\b\t\n\f\r"`, `"\b\t\n\f\r"`},
		{`"\u000b"`, `"\u000b"`},
		{`"\"\\\/"`, `"\"\\/"`},
		{`"\u0022\u005C\u002f"`, `"\"\\/"`},
		{`"\u007f"`, "\"\x7f\""},
		{`"\u0080\u00e9\u00E9"`, "\"\u0080éé\""},
		{`"\u2028\u2029"`, "\"\u2028\u2029\""},
		{`"\ud83d\ude00"`, "\"\U0001F600\""},
		{`"\uD83D\uDE00"`, "\"\U0001F600\""},
		{"\"\U0001F600\"", "\"\U0001F600\""},
		{`"\ufffd\uffff"`, "\"\ufffd\uffff\""},
		{`"<>&'"`, `"<>&'"`}, // no HTML escaping
		{`"\u0041\u0062"`, `"Ab"`},
		{"\"é\x7f\"", "\"é\x7f\""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := canonical(t, tt.in); got != tt.want {
				t.Errorf("Canonicalize(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestStructure(t *testing.T) {
	tests := []struct{ in, want string }{
		{" \t\r\n null \n", "null"},
		{"true", "true"},
		{"false", "false"},
		{"[ ]", "[]"},
		{"{ }", "{}"},
		{`[1, [2, [3]], {}]`, `[1,[2,[3]],{}]`},
		{`{"b": 1, "a": {"d": [], "c": null}}`, `{"a":{"c":null,"d":[]},"b":1}`},
		{`{"a": 1, "A": 2, "aa": 3, "": 4, "\u0000": 5}`, `{"":4,"\u0000":5,"A":2,"a":1,"aa":3}`},
		{`[{"b":1,"a":2},{"d":{"y":1,"x":2},"c":3}]`, `[{"a":2,"b":1},{"c":3,"d":{"x":2,"y":1}}]`},
		{`{"a":"\u0061","b":["b",{"z":0,"y":[1,2]}]}`, `{"a":"a","b":["b",{"y":[1,2],"z":0}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := canonical(t, tt.in); got != tt.want {
				t.Errorf("Canonicalize(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// SPEC CONTRACT-1: names sort by UTF-16 code units, which puts a supplementary character
// (a surrogate pair, D800–DBFF) before U+E000–U+FFFF, unlike UTF-8 byte order.
func TestMemberOrderUTF16(t *testing.T) {
	in := "{\"\ue000\":1,\"\U00010000\":2,\"\uffff\":3,\"\U0010FFFF\":4,\"\ud7ff\":5}"
	want := "{\"\ud7ff\":5,\"\U00010000\":2,\"\U0010FFFF\":4,\"\ue000\":1,\"\uffff\":3}"
	if got := canonical(t, in); got != want {
		t.Errorf("Canonicalize(%q) = %q, want %q", in, got, want)
	}

	// Property: compareUTF16 agrees with comparing the UTF-16 encodings.
	r := rand.New(rand.NewPCG(3, 4))
	pool := []rune{'a', 'b', 0x7f, 0x80, 0xe9, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfb33, 0xffff, 0x10000, 0x1f600, 0x10ffff}
	str := func() []byte {
		var b []byte
		for range r.IntN(4) {
			b = utf8.AppendRune(b, pool[r.IntN(len(pool))])
		}
		return b
	}
	sign := func(x int) int { return min(max(x, -1), 1) }
	for k := range 20000 {
		a, b := str(), str()
		if k%2 == 1 { // a shared prefix of 0 to 24 bytes: differences past 8 bytes
			prefix := []byte("repository_owner_name_id")[:r.IntN(25)]
			a, b = append(slices.Clip(prefix), a...), append(slices.Clip(prefix), b...)
		}
		want := slices.Compare(utf16.Encode([]rune(string(a))), utf16.Encode([]rune(string(b))))
		if got := sign(compareUTF16(a, b)); got != want {
			t.Fatalf("compareUTF16(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

// SPEC CONTRACT-1: text with no canonical form is ErrMalformed, leaves dst unchanged and
// never quotes the input.
func TestMalformed(t *testing.T) {
	tests := []string{
		"", " ", "{", "}", "[", "]", "[1,]", "[,1]", "[1 2]", `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{,}`,
		`{1:2}`, `{'a':1}`, `{a:1}`, "01", "-01", "1.", ".5", "+1", "1e", "1e+", "-", "--1", "0x10",
		"1_000", "tru", "nul", "falsey", "True", "NaN", "Infinity", "-Infinity", "undefined",
		`"abc`, `"\x"`, `"\u12"`, `"\u12g4"`, `"\'"`, `"\U0041"`,
		`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800x"`, `"\ud800\ud800"`, `"\udc00\ud800"`, `"\ud800\`,
		"\"\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"",
		"\"\x01\"", "\"a\tb\"", "\"a\nb\"", "\"\x7f\xff\"",
		`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"x":{"b":1,"c":2,"b":3}}`, `[{"é":1,"\u00e9":2}]`,
		"1 2", "[] x", "{}{}", "null,", "\xef\xbb\xbf{}", "\x00", "[1]\x00",
		"1e400", "-1e400", "[1e309]", "1.7976931348623159e308", `{"a":[1,2,1e999999999999]}`,
		strings.Repeat("[", MaxNesting+1) + strings.Repeat("]", MaxNesting+1),
		strings.Repeat(`{"a":`, MaxNesting+1) + "1" + strings.Repeat("}", MaxNesting+1),
	}
	prefix := []byte("PREFIX")
	for _, in := range tests {
		t.Run(fmt.Sprintf("%.40q", in), func(t *testing.T) {
			dst := slices.Clip(bytes.Clone(prefix))
			out, m, err := Canonicalize(dst, []byte(in))
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("Canonicalize(%.40q) error = %v, want ErrMalformed", in, err)
				return
			}
			if !strings.HasPrefix(err.Error(), "schemaguard: ") {
				t.Errorf("Canonicalize(%.40q) error %q lacks the package prefix", in, err)
			}
			if !bytes.Equal(out, prefix) || m != (Measure{}) {
				t.Errorf("Canonicalize(%.40q) = %q, %+v with its error, want dst unchanged and a zero Measure", in, out, m)
			}
		})
	}
	// Deep, but within MaxNesting, is fine.
	deep := strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting)
	if _, m, err := Canonicalize(nil, []byte(deep)); err != nil || m.Depth != MaxNesting {
		t.Errorf("Canonicalize(%d nested arrays) = %+v, %v, want depth %d", MaxNesting, m, err, MaxNesting)
	}
}

// TestMalformedStringReasons pins which reason each kind of bad string gets, so the
// string lexer (internal/jsonlex) keeps the errors the parser always gave.
func TestMalformedStringReasons(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
	}{
		{`"abc`, errSyntax},
		{`"\`, errSyntax},
		{`{"a`, errSyntax},
		{"\"\x01\"", errControl},
		{"\"a\tb\"", errControl},
		{`"\x"`, errEscape},
		{`"\u12"`, errEscape},
		{`"\u12g4"`, errEscape},
		{`"\ud800\u12"`, errEscape},
		{`"\ud800"`, errSurrogate},
		{`"\udc00"`, errSurrogate},
		{`"\ud800\u0041"`, errSurrogate},
		{`"\ud800\`, errSurrogate},
		{`"\ud800\n"`, errSurrogate},
		{"\"\xff\"", errUTF8},
		{"\"\xed\xa0\x80\"", errUTF8},
		{"\"\xe2\x82\"", errUTF8},
		{"{\"\xff\":1}", errUTF8},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if _, _, err := Canonicalize(nil, []byte(tc.in)); err != tc.want {
				t.Errorf("Canonicalize(%q) error = %v, want %v", tc.in, err, tc.want)
			}
		})
	}
}

// SPEC ERR-2: error texts never contain the input.
func TestErrorsQuoteNothing(t *testing.T) {
	const canary = "CANARY-7f3a"
	for _, in := range []string{
		`{"` + canary + `":1,"` + canary + `":2}`,
		`{"a":"` + canary + "\x01" + `"}`,
		`["` + canary + `", 1e999]`,
		`"` + canary + "\xff" + `"`,
		`{"` + canary + `": tru}`,
		canary,
	} {
		t.Run(in, func(t *testing.T) {
			_, _, err := Canonicalize(nil, []byte(in))
			if err == nil {
				t.Fatalf("Canonicalize(%q) error = nil", in)
			}
			if strings.Contains(err.Error(), canary) || strings.Contains(err.Error(), "CANARY") {
				t.Errorf("Canonicalize error %q quotes its input", err)
			}
		})
	}
}

func TestAppendsToDst(t *testing.T) {
	out, m, err := Canonicalize([]byte("x="), []byte(` { "b" : [ 1 , 2 ] , "a" : "é" } `))
	if err != nil {
		t.Fatal(err)
	}
	if want := `x={"a":"é","b":[1,2]}`; string(out) != want {
		t.Errorf("Canonicalize(x=, ...) = %s, want %s", out, want)
	}
	if m.Bytes != len(out)-2 {
		t.Errorf("Measure.Bytes = %d, want %d (the appended part only)", m.Bytes, len(out)-2)
	}
}

// SPEC CONTRACT-3: the measure is taken on the canonical form: its bytes, every value,
// and nesting.
func TestMeasure(t *testing.T) {
	tests := []struct {
		in   string
		want Measure
	}{
		{"1", Measure{Bytes: 1, Nodes: 1, Depth: 0}},
		{` "ab" `, Measure{Bytes: 4, Nodes: 1, Depth: 0}},
		{"1.000", Measure{Bytes: 1, Nodes: 1, Depth: 0}},
		{"[]", Measure{Bytes: 2, Nodes: 1, Depth: 1}},
		{"{}", Measure{Bytes: 2, Nodes: 1, Depth: 1}},
		{"[ [ ] ]", Measure{Bytes: 4, Nodes: 2, Depth: 2}},
		{`{"a": [1, {"b": null}], "c": true}`, Measure{Bytes: 29, Nodes: 6, Depth: 3}},
		{`[[[[1]]], 2]`, Measure{Bytes: 11, Nodes: 6, Depth: 4}},
		{`"\u0041"`, Measure{Bytes: 3, Nodes: 1, Depth: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			out, got, err := Canonicalize(nil, []byte(tt.in))
			if err != nil {
				t.Fatalf("Canonicalize(%s) error = %v", tt.in, err)
			}
			if got != tt.want || got.Bytes != len(out) {
				t.Errorf("Canonicalize(%s) Measure = %+v, want %+v (canonical %s)", tt.in, got, tt.want, out)
			}
		})
	}
}

// catalogFiles returns the real catalogs' complete tool files, skipping when the shared
// data folder is absent and failing when it is present but holds none.
func catalogFiles(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "data", "catalogs", "raw")
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "data")); err != nil {
		t.Skipf("shared data folder absent (%v): real-catalog test skipped", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.raw-tools.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("shared data present but %s/*.raw-tools.json matched nothing (err %v)", dir, err)
	}
	return files
}

// SPEC CONTRACT-1, CONTRACT-3: every real tool has a canonical form that means what the
// served JSON means, and the real catalogs fit the default limits with room to spare.
func TestRealCatalogs(t *testing.T) {
	var total Measure
	tools := 0
	for _, f := range catalogFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(data, &raws); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i, raw := range raws {
			out, m, err := Canonicalize(nil, raw)
			if err != nil {
				t.Fatalf("%s tool %d: Canonicalize error = %v", filepath.Base(f), i, err)
			}
			again, _, err := Canonicalize(nil, out)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("%s tool %d: canonical form is not a fixed point", filepath.Base(f), i)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, raw); err != nil {
				t.Fatal(err)
			}
			checkCopies(t, raw)
			checkCopies(t, compact.Bytes())
			var want, got any
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s tool %d: canonical form is not JSON: %v", filepath.Base(f), i, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s tool %d: canonical form means something else", filepath.Base(f), i)
			}
			total.Bytes += m.Bytes
			total.Nodes += m.Nodes
			total.Depth = max(total.Depth, m.Depth)
			tools++
		}
	}
	t.Logf("%d real tools: %d canonical bytes, %d nodes, depth %d", tools, total.Bytes, total.Nodes, total.Depth)
	if err := (Limits{}).Check(total); err != nil {
		t.Errorf("real catalogs (%+v) exceed the default limits: %v", total, err)
	}
	// The figures DefaultMaxBytes's doc quotes, for the data as PROVENANCE.md lists it.
	if want := (Measure{Bytes: 1147990, Nodes: 32176, Depth: 15}); tools == 698 && total != want {
		t.Errorf("698 real tools measure %+v; the doc of DefaultMaxBytes says %+v", total, want)
	}
	if tools >= 698 && (total.Bytes*10 > DefaultMaxBytes || total.Nodes*10 > DefaultMaxNodes || total.Depth*4 > DefaultMaxDepth) {
		t.Errorf("real catalogs (%+v) leave less than the documented headroom under the defaults", total)
	}
}

// The allocation promise of Canonicalize (package doc): with room
// in dst and a warm pool, a call allocates nothing.
func TestCanonicalizeAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled items at random: allocation counts are measured without -race")
	}
	src := tool7KB()
	dst := make([]byte, 0, 2*len(src))
	if n := testing.AllocsPerRun(50, func() { Canonicalize(dst[:0], src) }); n > 0 {
		t.Errorf("Canonicalize(7 KB tool) allocations = %v, want 0", n)
	}
	// Numbers of more than 32 bytes, converted to the nearest double, as hostile
	// schemas may hold: a copy of each allocated as long as its text.
	src = []byte(`{"maximum":1` + strings.Repeat("0", 300) + `.5,"minimum":-0.` + strings.Repeat("1", 100) + `e-5}`)
	dst = make([]byte, 0, 2*len(src))
	if n := testing.AllocsPerRun(50, func() { Canonicalize(dst[:0], src) }); n > 0 {
		t.Errorf("Canonicalize(long numbers) allocations = %v, want 0", n)
	}
}

// FuzzCanonicalize: any input either is ErrMalformed or canonicalizes to valid JSON that
// is its own canonical form, with the same Measure; Canonicalize never panics.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		`{"b":[1,2.50,-0,1e21,1e-7],"a":"\u20ac\ud83d\ude00\n","":{"\u00e9":null,"e\u0301":true}}`,
		`[]`, `{}`, `"\u0000"`, `1E400`, `{"a":1,"a":2}`, `{"c":1,"b":[],"a":{"y":0,"x":1},"b":2}`, `"\ud800"`, "\"\xff\"", `[[[[[]]]]]`,
		string(tool7KB()),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkCopies(t, src)
		out, m, err := Canonicalize(nil, src)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Canonicalize error = %v, want ErrMalformed", err)
			}
			return
		}
		if !json.Valid(src) {
			t.Fatalf("Canonicalize accepted %q, which encoding/json calls invalid", src)
		}
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("Canonicalize(%q) = %q, not valid JSON", src, out)
		}
		if m.Bytes != len(out) || m.Nodes < 1 || m.Depth < 0 || m.Depth > MaxNesting {
			t.Fatalf("Canonicalize(%q) Measure = %+v for %d bytes", src, m, len(out))
		}
		again, m2, err := Canonicalize(nil, out)
		if err != nil || !bytes.Equal(again, out) || m2 != m {
			t.Fatalf("Canonicalize(%q) = %q, %+v, %v; want the fixed point %q, %+v", out, again, m2, err, out, m)
		}
		var a, b any
		if json.Unmarshal(src, &a) == nil && json.Unmarshal(out, &b) == nil && !reflect.DeepEqual(a, b) {
			t.Fatalf("canonical form %q means something other than %q", out, src)
		}
	})
}

// SPEC CONTRACT-1: numbers match what an ECMAScript engine writes, on 4,680 doubles
// (edges around each format switch, powers of two, and random bit patterns) whose
// Number.prototype.toString node.js recorded in testdata/ecmascript-numbers.txt
// (generator: testdata/ecmascript-numbers.js).
func TestNumbersAgainstECMAScript(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "ecmascript-numbers.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 4000 {
		t.Fatalf("testdata/ecmascript-numbers.txt has %d lines, want the 4,680 recorded", len(lines))
	}
	for _, line := range lines {
		hexBits, want, ok := strings.Cut(line, " ")
		bits, err := strconv.ParseUint(hexBits, 16, 64)
		if !ok || err != nil {
			t.Fatalf("bad line %q", line)
		}
		f := math.Float64frombits(bits)
		if got := string(appendNumber(nil, f)); got != want {
			t.Errorf("appendNumber(%s) = %s, ECMAScript writes %s", hexBits, got, want)
		}
		if got := canonical(t, strconv.FormatFloat(f, 'e', -1, 64)); got != want {
			t.Errorf("Canonicalize(%g) = %s, ECMAScript writes %s", f, got, want)
		}
	}
}

// TestIntegerNumbers checks integers are written as ECMAScript writes them below 1e21:
// the shortest digits that round-trip, without an exponent (what FormatFloat's 'f'
// writes), on both sides of 2^53, where appendNumber stops writing them as int64s.
func TestIntegerNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 21))
	values := []float64{1, -1, 7, 1 << 52, 1<<53 - 1, -(1<<53 - 1), 1 << 53, 1<<53 + 2, 1 << 60, 1e20, 123456789012345680000}
	for range 10000 {
		values = append(values, float64(r.Int64N(1<<54)-1<<53), math.Trunc(r.Float64()*1e20))
	}
	for _, f := range values {
		if got, want := string(appendNumber(nil, f)), strconv.FormatFloat(f, 'f', -1, 64); got != want {
			t.Errorf("appendNumber(%v) = %s, want %s", f, got, want)
		}
	}
}
