package validate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func mustCompile(t testing.TB, c Compiler, schema string) Validator {
	t.Helper()
	v, err := c.Compile([]byte(schema))
	if err != nil {
		t.Fatalf("Compile(%.80s) = %v", schema, err)
	}
	return v
}

// verdict renders an error as "ok", "invalid:<keyword>", "invalid", "limit" or "unsupported".
func verdict(err error) string {
	var ve *ValidationError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &ve):
		return "invalid:" + ve.Keyword
	case errors.Is(err, ErrInvalid):
		return "invalid"
	case errors.Is(err, ErrLimit):
		return "limit"
	case errors.Is(err, ErrUnsupported):
		return "unsupported"
	}
	return "error:" + err.Error()
}

// SPEC CALL-2
// SPEC CALL-3
func TestKeywords(t *testing.T) {
	tests := []struct {
		schema, args, want string
	}{
		{`{"type":"object"}`, `{}`, "ok"},
		{`{"type":"object"}`, ``, "ok"}, // absent arguments are {}
		{`{"type":"object"}`, ` `, "ok"},
		{`{"type":"object"}`, `null`, "invalid:type"},
		{`{"type":"object"}`, `[]`, "invalid:type"},
		{`{"type":["string","null"]}`, `null`, "ok"},
		{`{"type":["string","null"]}`, `1`, "invalid:type"},
		{`{"type":"integer"}`, `1.0`, "ok"},
		{`{"type":"integer"}`, `1.5`, "invalid:type"},
		{`{"type":"integer"}`, `1e2`, "ok"},
		{`{"type":"integer"}`, `1.255e2`, "invalid:type"},
		{`{"type":"integer"}`, `125e-1`, "invalid:type"},
		{`{"type":"integer"}`, `-0`, "ok"},
		{`{"type":"number"}`, `"1"`, "invalid:type"},
		{`{"type":"boolean"}`, `false`, "ok"},
		{`{"type":"null"}`, `false`, "invalid:type"},
		{`{"required":["a","b"]}`, `{"a":1}`, "invalid:required"},
		{`{"required":["a"]}`, `{"a":null}`, "ok"},
		{`{"required":["a"]}`, `[]`, "ok"},
		{`{"properties":{"a":{"type":"string"}}}`, `{"a":1}`, "invalid:type"},
		{`{"properties":{"a":{"type":"string"}}}`, `{"b":1}`, "ok"},
		{`{"properties":{"a":true},"additionalProperties":false}`, `{"a":1,"b":2}`, "invalid:additionalProperties"},
		{`{"required":["b"],"additionalProperties":false}`, `{"b":2}`, "invalid:additionalProperties"},
		{`{"additionalProperties":{"type":"integer"}}`, `{"x":1,"y":2.5}`, "invalid:type"},
		{`{"minLength":2,"maxLength":3}`, `"ab"`, "ok"},
		{`{"minLength":2,"maxLength":3}`, `"a"`, "invalid:minLength"},
		{`{"maxLength":3}`, `"abcd"`, "invalid:maxLength"},
		{`{"maxLength":1}`, `"😀"`, "ok"}, // one code point, two UTF-16 code units
		{`{"maxLength":0}`, `"😀"`, "invalid:maxLength"},
		{`{"maxLength":1}`, `"\u00e9"`, "ok"},
		{`{"maxLength":2.0}`, `"abc"`, "invalid:maxLength"},
		{`{"pattern":"^a+$"}`, `"aaa"`, "ok"},
		{`{"pattern":"b"}`, `"abc"`, "ok"}, // unanchored
		{`{"pattern":"^a+$"}`, `"aab"`, "invalid:pattern"},
		{`{"pattern":"^a.c$"}`, `"a\nc"`, "invalid:pattern"},
		{`{"pattern":"^a.c$"}`, `"a\u2028c"`, "invalid:pattern"}, // ECMA . excludes U+2028
		{`{"pattern":"^\\s$"}`, `"\u00a0"`, "ok"},                // ECMA \s includes NBSP
		{`{"pattern":"^\\u00e9$"}`, `"é"`, "ok"},
		{`{"pattern":"^\\p{Lu}+$"}`, `"ÀB"`, "ok"},
		{`{"pattern":"^[\\w-]+$"}`, `"a-b_c"`, "ok"},
		{`{"enum":["a",1,null,{"k":[1,2]}]}`, `{"k":[1.0,2]}`, "ok"},
		{`{"enum":["a",1,null]}`, `1.0`, "ok"},
		{`{"enum":[false]}`, `0`, "invalid:enum"},
		{`{"enum":[{"a":1,"b":2}]}`, `{"b":2,"a":1}`, "ok"},
		{`{"enum":[{"a":1,"b":2}]}`, `{"b":2,"a":1,"c":3}`, "invalid:enum"},
		{`{"enum":[[1,2]]}`, `[2,1]`, "invalid:enum"},
		{`{"minimum":1}`, `1`, "ok"},
		{`{"minimum":1}`, `0.999999999999999999999`, "invalid:minimum"},
		{`{"maximum":1}`, `1.000000000000000000001`, "invalid:maximum"},
		{`{"exclusiveMinimum":0}`, `-0`, "invalid:exclusiveMinimum"},
		{`{"exclusiveMinimum":0}`, `0.0`, "invalid:exclusiveMinimum"},
		{`{"exclusiveMaximum":10}`, `10`, "invalid:exclusiveMaximum"},
		{`{"exclusiveMaximum":10}`, `9.99`, "ok"},
		{`{"minimum":-5}`, `-6`, "invalid:minimum"},
		{`{"maximum":9007199254740992}`, `9007199254740993`, "invalid:maximum"}, // float64 would round
		{`{"maximum":1e308}`, `1e309`, "invalid:maximum"},
		{`{"minimum":0}`, `"not a number"`, "ok"},
		{`{"items":{"type":"integer"},"minItems":1,"maxItems":3}`, `[1,2]`, "ok"},
		{`{"items":{"type":"integer"}}`, `[1,"2"]`, "invalid:type"},
		{`{"minItems":1}`, `[]`, "invalid:minItems"},
		{`{"maxItems":1}`, `[1,2]`, "invalid:maxItems"},
		{`{"uniqueItems":true}`, `[1,1.0]`, "invalid:uniqueItems"},
		{`{"uniqueItems":true}`, `[{"a":1,"b":2},{"b":2,"a":1}]`, "invalid:uniqueItems"},
		{`{"uniqueItems":true}`, `[0,false,null,"0",[0],{"0":0}]`, "ok"},
		{`{"uniqueItems":true}`, `[1,2,3,4,5,6,7,8,9,10,11,12,1e0]`, "invalid:uniqueItems"},
		{`{"uniqueItems":true}`, `[1,2,3,4,5,6,7,8,9,10,11,12,-0,0]`, "invalid:uniqueItems"},
		{`{"uniqueItems":true}`, `[1,2,3,4,5,6,7,8,9,10,11,12,13]`, "ok"},
		{`{"uniqueItems":false}`, `[1,1]`, "ok"},
		{`{"anyOf":[{"type":"string"},{"minimum":2}]}`, `1`, "invalid:anyOf"},
		{`{"anyOf":[{"type":"string"},{"minimum":2}]}`, `3`, "ok"},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `3`, "invalid:oneOf"},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `1`, "ok"},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `2.5`, "ok"},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `1.5`, "invalid:oneOf"},
		{`true`, `{"anything":[1]}`, "ok"},
		{`false`, `{}`, "invalid:false"},
		{`{}`, `[1,{"a":"b"}]`, "ok"},
		{`{"description":"x","default":{"not":"a schema"}}`, `1`, "ok"},
		// SPEC CALL-8: duplicate keys are invalid, whatever the schema.
		{`{}`, `{"a":1,"a":1}`, "invalid"},
		{`{}`, `{"a":1,"\u0061":2}`, "invalid"},
		{`{}`, `[{"x":{"a":1,"b":2,"a":3}}]`, "invalid"},
		{`{}`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"h":18}`, "invalid"},
		{`{}`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18}`, "ok"},
		// Malformed arguments are invalid.
		{`{}`, `{"a":1,}`, "invalid"},
		{`{}`, `[1 2]`, "invalid"},
		{`{}`, `01`, "invalid"},
		{`{}`, `1.`, "invalid"},
		{`{}`, `{} {}`, "invalid"},
		{`{}`, `"a\x"`, "invalid"},
		{`{}`, "\"tab\there\"", "invalid"},
		{`{}`, `NaN`, "invalid"},
		{`{}`, `tru`, "invalid"},
		{`{}`, `{"a" 1}`, "invalid"},
	}
	c := NewCompiler(nil)
	for _, tt := range tests {
		v := mustCompile(t, c, tt.schema)
		if got := verdict(v.Validate([]byte(tt.args))); got != tt.want {
			t.Errorf("Compile(%s).Validate(%s) = %s, want %s", tt.schema, tt.args, got, tt.want)
		}
	}
}

// SPEC CALL-4
func TestUnsupported(t *testing.T) {
	tests := []struct {
		schema string
		annot  []string
		want   string // the UnsupportedError keyword
	}{
		{`{"allOf":[{}]}`, nil, "allOf"},
		{`{"properties":{"a":{"not":{}}}}`, nil, "not"},
		{`{"anyOf":[{"type":"string"},{"const":1}]}`, nil, "const"}, // unused branch too
		{`{"$ref":"#"}`, nil, "$ref"},
		{`{"patternProperties":{}}`, nil, "patternProperties"},
		{`{"items":[{}]}`, nil, "items"},
		{`{"prefixItems":[{}]}`, nil, "prefixItems"},
		{`{"title":"x"}`, nil, "title"},
		{`{"format":"email"}`, nil, "format"},
		{`{"x-secret-canary":1}`, nil, ""},
		{`{"x-secret-canary":1}`, []string{"title"}, ""},
		{`{"$schema":"https://example.com/my-schema"}`, AnnotationKeywords, "$schema"},
		{`{"const":1}`, []string{"const"}, "const"}, // assertions are never annotations
		{`{"type":"text"}`, nil, "type"},
		{`{"type":["string","string"]}`, nil, "type"},
		{`{"required":["a","a"]}`, nil, "required"},
		{`{"minLength":-1}`, nil, "minLength"},
		{`{"minLength":1.5}`, nil, "minLength"},
		{`{"minimum":"1"}`, nil, "minimum"},
		{`{"anyOf":[]}`, nil, "anyOf"},
		{`{"uniqueItems":1}`, nil, "uniqueItems"},
		{`{"properties":{"a":1}}`, nil, ""},
		{`{"pattern":"(?=a)"}`, nil, "pattern"},
		{`{"pattern":"(?<=a)b"}`, nil, "pattern"},
		{`{"pattern":"(?!a)"}`, nil, "pattern"},
		{`{"pattern":"(a)\\1"}`, nil, "pattern"},
		{`{"pattern":"(?<n>a)\\k<n>"}`, nil, "pattern"},
		{`{"pattern":"(?i)abc"}`, nil, "pattern"},
		{`{"pattern":"\\Aabc\\z"}`, nil, "pattern"},
		{`{"pattern":"[[:alpha:]]"}`, nil, "pattern"},
		{`{"pattern":"[^]"}`, nil, "pattern"},
		{`{"pattern":"a{1001}"}`, nil, "pattern"},
		{`{"pattern":"\\p{Greek}"}`, nil, "pattern"},
		{`{"pattern":"("}`, nil, "pattern"},
		{`{"type":"string",}`, nil, ""},
		{`{"type":"string","type":"number"}`, nil, ""},
		{`[]`, nil, ""},
		{`"string"`, nil, ""},
	}
	for _, tt := range tests {
		_, err := NewCompiler(&Options{Annotations: tt.annot}).Compile([]byte(tt.schema))
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupported) {
			t.Errorf("Compile(%s) = %v, want an *UnsupportedError", tt.schema, err)
			continue
		}
		if ue.Keyword != tt.want {
			t.Errorf("Compile(%s) keyword = %q, want %q", tt.schema, ue.Keyword, tt.want)
		}
		if strings.Contains(err.Error(), "canary") || strings.Contains(err.Error(), "example.com") {
			t.Errorf("Compile(%s) error %q leaks schema text", tt.schema, err)
		}
	}
}

// TestAnnotations: the documented annotation option accepts exactly its keywords.
//
// SPEC CALL-4
func TestAnnotations(t *testing.T) {
	schema := `{"$schema":"http://json-schema.org/draft-07/schema#","$comment":"c","title":"T",
		"type":"object","properties":{"at":{"type":"string","format":"date-time","examples":["2020-01-01T00:00:00Z"]}}}`
	if _, err := NewCompiler(nil).Compile([]byte(schema)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("strict Compile = %v, want ErrUnsupported", err)
	}
	v := mustCompile(t, NewCompiler(&Options{Annotations: AnnotationKeywords}), schema)
	// format is an annotation: it never rejects.
	if err := v.Validate([]byte(`{"at":"yesterday"}`)); err != nil {
		t.Errorf("format as annotation: Validate = %v, want nil", err)
	}
	if err := v.Validate([]byte(`{"at":1}`)); verdict(err) != "invalid:type" {
		t.Errorf("Validate = %v, want a type failure", err)
	}
	// Options are copied on entry.
	annot := []string{"title"}
	c := NewCompiler(&Options{Annotations: annot})
	annot[0] = "const"
	mustCompile(t, c, `{"title":"x"}`)
}

// TestErrorsCarryNoValues: failures name the keyword and a path of declared names,
// never values.
//
// SPEC ERR-2
func TestErrorsCarryNoValues(t *testing.T) {
	v := mustCompile(t, NewCompiler(nil), `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}}}},"m":{"additionalProperties":{"type":"string"}}},"required":["need"],"additionalProperties":false}`)
	tests := []struct {
		args, kw, path string
	}{
		{`{"items":[{"id":1},{"id":"CANARY"}],"need":1}`, "type", "/items/1/id"},
		{`{"m":{"CANARY":5},"need":1}`, "type", "/m"},
		{`{"items":[]}`, "required", "/need"},
		{`{"m":{},"need":1,"CANARY":1}`, "additionalProperties", ""},
	}
	for _, tt := range tests {
		err := v.Validate([]byte(tt.args))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Keyword != tt.kw || ve.Path != tt.path {
			t.Errorf("Validate(%s) = %#v, want keyword %q at %q", tt.args, err, tt.kw, tt.path)
			continue
		}
		if strings.Contains(err.Error(), "CANARY") {
			t.Errorf("Validate(%s) error %q leaks argument text", tt.args, err)
		}
	}
	for _, bad := range []string{`{"CANARY":`, `["CANARY" "x"]`, "\"CANARY\xff\""} {
		if err := v.Validate([]byte(bad)); err == nil || strings.Contains(err.Error(), "CANARY") {
			t.Errorf("Validate(%q) = %v, want an error without the text", bad, err)
		}
	}
}

func TestPointerEscaping(t *testing.T) {
	v := mustCompile(t, NewCompiler(nil), `{"properties":{"a/b~c":{"type":"string"},"":{"type":"string"}}}`)
	var ve *ValidationError
	if err := v.Validate([]byte(`{"a/b~c":1}`)); !errors.As(err, &ve) || ve.Path != "/a~1b~0c" {
		t.Errorf("Validate = %v, want path /a~1b~0c", err)
	}
	if err := v.Validate([]byte(`{"":1}`)); !errors.As(err, &ve) || ve.Path != "/" {
		t.Errorf("Validate = %v, want path /", err)
	}
}

func TestConcurrent(t *testing.T) {
	v := mustCompile(t, NewCompiler(nil), `{"type":"object","properties":{"n":{"type":"integer","maximum":10}},"required":["n"]}`)
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 200; i++ {
				want := i%3 != 0
				err := v.Validate(fmt.Appendf(nil, `{"n":%d}`, map[bool]int{true: 5, false: 50}[want]))
				if (err == nil) != want {
					done <- fmt.Errorf("iteration %d: %v", i, err)
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// adversarial builds the cases of the CALL-5 table: each is a schema and arguments
// with the verdict or bound they must answer.
type adversarialCase struct {
	name         string
	schema, args string
	compile      string // "limit" or "unsupported" when Compile must refuse
	want         string // verdict of Validate
}

func adversarialCases() []adversarialCase {
	deep := func(n int, open, close string) string {
		return strings.Repeat(open, n) + strings.Repeat(close, n)
	}
	objs := func(n int, f func(i int) string) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f(i))
		}
		b.WriteByte(']')
		return b.String()
	}
	nestedAnyOf := func(levels int) string {
		s := `{"type":"string"}`
		for i := 0; i < levels; i++ {
			s = `{"anyOf":[` + s + `,{"type":"string"},{"minimum":1e9}]}`
		}
		return s
	}
	nestedOneOf := func(levels int) string {
		s := `{"type":"string"}`
		for i := 0; i < levels; i++ {
			s = `{"oneOf":[{"type":"string"},` + s + `]}`
		}
		return s
	}
	manyBranches := `{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"items":{"type":"string"}},`, 100), ",") + `]}`
	long := strings.Repeat("a", 262144)
	quoted := func(s string) string { return `"` + s + `"` }
	return []adversarialCase{
		{name: "args nested 10000 deep", schema: `{}`, args: deep(10000, "[", "]"), want: "limit"},
		{name: "args object nested 10000 deep", schema: `{}`, args: strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000), want: "limit"},
		{name: "args nested 32 deep", schema: `{}`, args: deep(32, "[", "]"), want: "ok"},
		{name: "schema nested 10000 deep", schema: strings.Repeat(`{"items":`, 10000) + "{}" + strings.Repeat("}", 10000), compile: "limit"},
		{name: "schema items nested to the depth limit", schema: strings.Repeat(`{"items":`, 31) + "{}" + strings.Repeat("}", 31), args: deep(31, "[", "]"), want: "ok"},
		{name: "8193 argument nodes", schema: `true`, args: objs(8192, func(int) string { return "0" }), want: "limit"},
		{name: "8191 argument nodes", schema: `true`, args: objs(8190, func(int) string { return "0" }), want: "ok"},
		{name: "262145 code units", schema: `{}`, args: quoted(long + "a"), want: "limit"},
		{name: "262144 code units", schema: `{"type":"string"}`, args: quoted(long), want: "ok"},
		{name: "262144 code units escaped", schema: `{"type":"string","minLength":262144}`, args: quoted(strings.Repeat(`\u00e9`, 262144)), want: "ok"},
		{name: "262144 code units as surrogate pairs", schema: `{"type":"string","maxLength":262144}`, args: quoted(strings.Repeat(`\ud83d\ude00`, 131072)), want: "ok"},
		{name: "uniqueItems over 8000 equal objects", schema: `{"uniqueItems":true}`, args: objs(8000, func(int) string { return "{}" }), want: "invalid:uniqueItems"},
		{name: "uniqueItems over 4000 distinct objects", schema: `{"uniqueItems":true}`, args: objs(4000, func(i int) string { return fmt.Sprintf(`{"k":%d}`, i) }), want: "ok"},
		{name: "uniqueItems over 4000 objects, last repeats first", schema: `{"uniqueItems":true}`, args: objs(4000, func(i int) string { return fmt.Sprintf(`{"k":%d}`, i%3999) }), want: "invalid:uniqueItems"},
		{name: "uniqueItems over 8000 distinct strings", schema: `{"uniqueItems":true}`, args: objs(8000, func(i int) string { return fmt.Sprintf(`"%032d"`, i) }), want: "ok"},
		{name: "anyOf nested to the depth limit, failing", schema: nestedAnyOf(15), args: `1`, want: "invalid:anyOf"},
		{name: "oneOf nested to the depth limit, failing", schema: nestedOneOf(15), args: `"s"`, want: "invalid:oneOf"},
		{name: "anyOf of 100 branches over 8000 items", schema: manyBranches, args: objs(8000, func(i int) string {
			if i == 7999 {
				return "1"
			}
			return `"s"`
		}), want: "limit"},
		{name: "(a|aa){0,1000}b on the longest string", schema: `{"pattern":"(a|aa){0,1000}b"}`, args: quoted(long), want: "limit"},
		{name: "(a|aa){0,1000}b on a short string", schema: `{"pattern":"(a|aa){0,1000}b"}`, args: quoted("aaaaaaaa"), want: "invalid:pattern"},
		{name: "^(a+)+$ on a long string", schema: `{"pattern":"^(a+)+$"}`, args: quoted(strings.Repeat("a", 4000) + "!"), want: "invalid:pattern"},
		{name: "pattern of 513 code units", schema: `{"pattern":"` + strings.Repeat("a", 513) + `"}`, compile: "limit"},
		{name: "pattern of 512 code units", schema: `{"pattern":"` + strings.Repeat("a", 512) + `"}`, args: quoted("b"), want: "invalid:pattern"},
		{name: "lookahead", schema: `{"pattern":"^(?=.*\\d)"}`, compile: "unsupported"},
		{name: "backreference", schema: `{"pattern":"(a)\\1"}`, compile: "unsupported"},
		{name: "1e999999 is a number", schema: `{"type":"number"}`, args: `1e999999`, want: "ok"},
		{name: "1e999999 is an integer", schema: `{"type":"integer"}`, args: `1e999999`, want: "ok"},
		{name: "1e999999 over maximum", schema: `{"maximum":1e308}`, args: `1e999999`, want: "invalid:maximum"},
		{name: "1e-999999 over exclusiveMinimum 0", schema: `{"exclusiveMinimum":0}`, args: `1e-999999`, want: "ok"},
		{name: "exponent beyond 10^9", schema: `{}`, args: `1e1000000000`, want: "limit"},
		{name: "-0 at exclusiveMinimum 0", schema: `{"exclusiveMinimum":0}`, args: `-0`, want: "invalid:exclusiveMinimum"},
		{name: "-0 at minimum 0", schema: `{"minimum":0}`, args: `-0.0e5`, want: "ok"},
		{name: "1.0 at integer maximum 1", schema: `{"type":"integer","maximum":1}`, args: `1.0`, want: "ok"},
		{name: "1.0000000000000000001 at integer maximum 1", schema: `{"type":"integer","maximum":1}`, args: `1.0000000000000000001`, want: "invalid:type"},
		{name: "2^53+1 at maximum 2^53", schema: `{"maximum":9007199254740992}`, args: `9007199254740993`, want: "invalid:maximum"},
		{name: "1 equals 1.0 in enum", schema: `{"enum":[1]}`, args: `1.0`, want: "ok"},
		{name: "a million digits", schema: `{"type":"integer","minimum":0}`, args: "1" + strings.Repeat("0", 1_000_000), want: "limit"},
		{name: "262144 digits", schema: `{"type":"integer","minimum":0,"maximum":1e262143}`, args: "1" + strings.Repeat("0", 262143), want: "ok"},
		{name: "262144 digits in a fraction", schema: `{"type":"integer","minimum":0,"maximum":1e262143}`, args: "1." + strings.Repeat("0", 262141) + "1", want: "invalid:type"},
		{name: "duplicate keys", schema: `{}`, args: `{"a":1,"a":1}`, want: "invalid"},
		{name: "duplicate keys among 4000", schema: `{}`, args: "{" + strings.Repeat(`"x":0,`, 0) + func() string {
			var b strings.Builder
			for i := 0; i < 4000; i++ {
				fmt.Fprintf(&b, `"k%d":0,`, i)
			}
			return b.String()
		}() + `"k17":1}`, want: "invalid"},
		{name: "invalid UTF-8", schema: `{}`, args: "\"a\xffb\"", want: "invalid"},
		{name: "overlong UTF-8", schema: `{}`, args: "\"\xc0\xaf\"", want: "invalid"},
		{name: "UTF-8 encoded surrogate", schema: `{}`, args: "\"\xed\xa0\x80\"", want: "invalid"},
		{name: "lone high surrogate", schema: `{}`, args: `"\ud800"`, want: "invalid"},
		{name: "lone low surrogate", schema: `{}`, args: `"\udc00x"`, want: "invalid"},
		{name: "reversed surrogates", schema: `{}`, args: `"\udc00\ud800"`, want: "invalid"},
		{name: "surrogate pair", schema: `{"maxLength":2}`, args: `"\ud83d\ude00"`, want: "ok"},
		worstCase(),
		{name: "2 MiB of white space", schema: `{}`, args: "{" + strings.Repeat(" ", 2<<20) + "}", want: "limit"},
	}
}

// worstCase is the slowest accepted case we know: the longest escaped string the
// bounds allow beside 4,000 distinct items checked through anyOf and uniqueItems and a
// pattern run close to the rest of the work budget; it answers a verdict, not a limit.
func worstCase() adversarialCase {
	var b strings.Builder
	b.WriteString(`{"s":"`)
	b.WriteString(strings.Repeat(`\u00e9`, 200000))
	b.WriteString(`","list":[`)
	for i := 0; i < 4000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", i)
	}
	b.WriteString(`],"p":"`)
	b.WriteString(strings.Repeat("a", 3000))
	b.WriteString(`!"}`)
	return adversarialCase{
		name: "worst case",
		schema: `{"type":"object","properties":{"s":{"type":"string","maxLength":262144},` +
			`"p":{"type":"string","pattern":"^(a+)+$"},` +
			`"list":{"type":"array","uniqueItems":true,"items":{"anyOf":[{"type":"string"},{"type":"integer","minimum":0}]}}}}`,
		args: b.String(),
		want: "invalid:pattern",
	}
}

// TestAdversarial: every hostile input ends in a verdict or a limit, within the work
// budget.
//
// SPEC CALL-5
// SPEC CALL-8
// SPEC PERF-4
func TestAdversarial(t *testing.T) {
	c := NewCompiler(nil)
	for _, tc := range adversarialCases() {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			v, err := c.Compile([]byte(tc.schema))
			if tc.compile != "" {
				if got := verdict(err); got != tc.compile {
					t.Fatalf("Compile = %v (%s), want %s", err, got, tc.compile)
				}
				return
			}
			if err != nil {
				t.Fatalf("Compile = %v", err)
			}
			steps, err := v.(*program).run([]byte(tc.args))
			elapsed := time.Since(start)
			if got := verdict(err); got != tc.want {
				t.Errorf("Validate = %v (%s), want %s", err, got, tc.want)
			}
			if max := 65536; steps > max+1 {
				t.Errorf("work steps = %d, want <= %d", steps, max+1)
			}
			t.Logf("%s: %d steps, %v", verdict(err), steps, elapsed)
		})
	}
}

// BenchmarkWorstCase runs the slowest accepted case (see worstCase); it must stay under
// 5 ms/op.
//
// SPEC PERF-4
func BenchmarkWorstCase(b *testing.B) {
	tc := worstCase()
	v, err := NewCompiler(nil).Compile([]byte(tc.schema))
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(tc.args)
	if got := verdict(v.Validate(args)); got != tc.want {
		b.Fatalf("Validate = %s, want %s", got, tc.want)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	reportCPU(b, func() {
		for b.Loop() {
			v.Validate(args)
		}
	})
}

// BenchmarkAdversarial times each case of the adversarial table and reports the work
// steps it spends (steps/op; a refused case spends them up to the budget).
func BenchmarkAdversarial(b *testing.B) {
	c := NewCompiler(nil)
	for _, tc := range adversarialCases() {
		if tc.compile != "" {
			continue
		}
		v, err := c.Compile([]byte(tc.schema))
		if err != nil {
			b.Fatal(err)
		}
		args := []byte(tc.args)
		b.Run(strings.ReplaceAll(tc.name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			reportCPU(b, func() {
				for b.Loop() {
					v.Validate(args)
				}
			})
			steps, _ := v.(*program).run(args)
			b.ReportMetric(float64(steps), "steps/op")
		})
	}
}

// TestPatternFastPath pins which patterns take the sequence matcher: the greedy scan
// is exact only when no variable item can hand a code point on to the next item.
func TestPatternFastPath(t *testing.T) {
	for p, want := range map[string]bool{
		`^[a-z][a-z0-9-]{2,40}$`: true,
		`^[^@\s]+@[^@\s]+$`:      true,
		`^\d+$`:                  true,
		`^[A-Z]{2}\d{4}$`:        true,
		`^v\d+\.\d+\.\d+$`:       true,
		`^[a-z]*[a-c]$`:          false, // overlapping sets
		`^a{1,2}b*a$`:            false, // next item may be empty
		`^[a-z]+`:                false, // not anchored at the end
		`[a-z]+$`:                false,
		`^(ab)+$`:                false,
		`^a|b$`:                  false,
	} {
		cp, ok := compilePattern(p)
		if !ok {
			t.Errorf("compilePattern(%q) failed", p)
			continue
		}
		if got := cp.seq != nil; got != want {
			t.Errorf("compilePattern(%q) fast path = %v, want %v", p, got, want)
		}
	}
}

// TestCustomLimits checks each Limits field is honoured and a zero field means its
// default.
//
// SPEC CALL-5
func TestCustomLimits(t *testing.T) {
	tests := []struct {
		lim          Limits
		schema, args string
		want         string
	}{
		{Limits{MaxDepth: 2}, `{}`, `[[1]]`, "ok"},
		{Limits{MaxDepth: 2}, `{}`, `[[[1]]]`, "limit"},
		{Limits{MaxNodes: 5}, `{}`, `[1,2,3]`, "ok"}, // 1 schema node + 4
		{Limits{MaxNodes: 5}, `{}`, `[1,2,3,4]`, "limit"},
		{Limits{MaxStringUnits: 4}, `{}`, `["ab","😀"]`, "ok"},
		{Limits{MaxStringUnits: 4}, `{}`, `["abc","😀"]`, "limit"},
		{Limits{MaxStringUnits: 4}, `{}`, `12345`, "limit"}, // digits count too
		{Limits{MaxSteps: 3}, `{"items":{"type":"integer"}}`, `[1,2]`, "ok"},
		{Limits{MaxSteps: 3}, `{"items":{"type":"integer"}}`, `[1,2,3]`, "limit"},
		{Limits{MaxSteps: 100}, `{"pattern":"^a+$"}`, `"` + strings.Repeat("a", 2000) + `"`, "limit"}, // 1 + 2000/16 steps
		{Limits{}, `{}`, strings.Repeat("[", 32) + strings.Repeat("]", 32), "ok"},
		{Limits{}, `{}`, strings.Repeat("[", 33) + strings.Repeat("]", 33), "limit"},
	}
	for _, tt := range tests {
		v := mustCompile(t, NewCompiler(&Options{Limits: tt.lim}), tt.schema)
		if got := verdict(v.Validate([]byte(tt.args))); got != tt.want {
			t.Errorf("Limits %+v: Validate(%.40s) = %s, want %s", tt.lim, tt.args, got, tt.want)
		}
	}
	if _, err := NewCompiler(&Options{Limits: Limits{MaxPattern: 3}}).Compile([]byte(`{"pattern":"abcd"}`)); !errors.Is(err, ErrLimit) {
		t.Errorf("MaxPattern 3: Compile = %v, want ErrLimit", err)
	}
	if _, err := NewCompiler(&Options{Limits: Limits{MaxDepth: 2}}).Compile([]byte(`{"items":{"items":{}}}`)); !errors.Is(err, ErrLimit) {
		t.Errorf("MaxDepth 2: Compile = %v, want ErrLimit", err)
	}
}
