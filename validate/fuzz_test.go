package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// gen draws choices from fuzz bytes; once they run out every choice is 0.
type gen struct {
	b []byte
}

func (g *gen) n(k int) int {
	if len(g.b) == 0 || k <= 1 {
		return 0
	}
	c := int(g.b[0])
	g.b = g.b[1:]
	return c % k
}

var (
	fuzzTypes   = []string{"null", "boolean", "integer", "number", "string", "array", "object"}
	fuzzNumbers = []string{"-2", "0", "1", "1.5", "3", "-0.5", "2.0", "10"}
	// fuzzStrings include astral characters and combining marks, where code points,
	// UTF-16 code units and bytes all differ.
	fuzzStrings  = []string{"", "a", "ab", "abc", "b", "x", "é", "1", "aaaa", "a1", "Ab", "😀", "a😀", "💩💩", "e\u0301", "\U0001D165\U0001D167x"}
	fuzzPatterns = []string{"^a", "b$", "^[a-c]*$", "\\d", "^[a-z]+$", "x|y", "^(ab)+$", "[^a]", "^\\w*$", "a{2,}"}
	fuzzNames    = []string{"a", "b", "c", "d"}
)

// schema writes a schema inside the CALL-3 subset.
func (g *gen) schema(b *strings.Builder, depth int) {
	switch g.n(12) {
	case 0:
		b.WriteString("true")
		return
	case 1:
		if g.n(2) == 0 {
			b.WriteString("false")
			return
		}
	}
	b.WriteByte('{')
	first := true
	used := map[string]bool{}
	var w *strings.Builder
	kw := func(k string) {
		if used[k] {
			// A repeated keyword would be a duplicate key: draw its value, drop it.
			w = new(strings.Builder)
			return
		}
		w = b
		used[k] = true
		if !first {
			b.WriteByte(',')
		}
		first = false
		fmt.Fprintf(b, "%q:", k)
	}
	for k := g.n(4); k > 0; k-- {
		switch g.n(20) {
		case 0, 1:
			kw("type")
			if g.n(3) == 0 {
				i, j := g.n(7), g.n(7)
				if i == j {
					j = (j + 1) % 7
				}
				fmt.Fprintf(w, "[%q,%q]", fuzzTypes[i], fuzzTypes[j])
			} else {
				fmt.Fprintf(w, "%q", fuzzTypes[g.n(7)])
			}
		case 2:
			kw([]string{"minLength", "maxLength", "minItems", "maxItems"}[g.n(4)])
			fmt.Fprintf(w, "%d", g.n(4))
		case 3:
			kw([]string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}[g.n(4)])
			w.WriteString(fuzzNumbers[g.n(len(fuzzNumbers))])
		case 4:
			kw("pattern")
			v, _ := json.Marshal(fuzzPatterns[g.n(len(fuzzPatterns))])
			w.Write(v)
		case 5:
			kw("enum")
			w.WriteByte('[')
			for i, n := 0, 1+g.n(3); i < n; i++ {
				if i > 0 {
					w.WriteByte(',')
				}
				g.value(w, 1)
			}
			w.WriteByte(']')
		case 6:
			kw("uniqueItems")
			w.WriteString([]string{"true", "false"}[g.n(2)])
		case 7, 8:
			if depth > 0 {
				kw("items")
				g.schema(w, depth-1)
			}
		case 9, 10, 11:
			if depth > 0 {
				kw("properties")
				w.WriteByte('{')
				for i, n := 0, 1+g.n(3); i < n; i++ {
					if i > 0 {
						w.WriteByte(',')
					}
					fmt.Fprintf(w, "%q:", fuzzNames[(i+g.n(2))%len(fuzzNames)]+strings.Repeat("_", i))
					g.schema(w, depth-1)
				}
				w.WriteByte('}')
			}
		case 12:
			kw("required")
			fmt.Fprintf(w, "[%q]", fuzzNames[g.n(4)])
		case 13:
			if depth > 0 {
				kw("additionalProperties")
				g.schema(w, depth-1)
			}
		case 14, 15:
			if depth > 0 {
				kw([]string{"anyOf", "oneOf"}[g.n(2)])
				w.WriteByte('[')
				for i, n := 0, 1+g.n(3); i < n; i++ {
					if i > 0 {
						w.WriteByte(',')
					}
					g.schema(w, depth-1)
				}
				w.WriteByte(']')
			}
		case 16:
			kw("description")
			w.WriteString(`"d"`)
		}
	}
	b.WriteByte('}')
}

// value writes a JSON value from a small domain where float64 is exact.
func (g *gen) value(b *strings.Builder, depth int) {
	k := g.n(10)
	if depth <= 0 && k >= 7 {
		k = 0
	}
	switch k {
	case 0:
		b.WriteString([]string{"null", "true", "false"}[g.n(3)])
	case 1, 2:
		b.WriteString(fuzzNumbers[g.n(len(fuzzNumbers))])
	case 3, 4, 5, 6:
		v, _ := json.Marshal(fuzzStrings[g.n(len(fuzzStrings))])
		b.Write(v)
	case 7:
		b.WriteByte('[')
		n := g.n(4)
		if g.n(4) == 0 {
			n = 9 + g.n(4) // long enough for the hash-table uniqueItems path
		}
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			g.value(b, depth-1)
		}
		b.WriteByte(']')
	default:
		b.WriteByte('{')
		for i, n := 0, g.n(4); i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, "%q:", fuzzNames[i])
			g.value(b, depth-1)
		}
		b.WriteByte('}')
	}
}

// FuzzDifferential generates a schema inside the CALL-3 subset and an instance, and
// checks our verdict equals github.com/google/jsonschema-go's (Resolve + Validate on
// the instance decoded by encoding/json), unless a CALL-5 bound was hit.
//
// SPEC CALL-2
// SPEC CALL-3
// SPEC CALL-8
func FuzzDifferential(f *testing.F) {
	for _, s := range []string{"", "\x02\x01\x00", "\x03\x09\x0a\x05\x01\x07\x03", "\x0e\x03\x0f\x00\x02\x04\x03\x05\x01", "\x05\x05\x02\x07\x03\x02\x08\x01\x02",
		"\x02\x01\x02\x01\x01\x03\x0b", // {"maxLength":1} against "😀"
		"\x02\x01\x02\x00\x03\x03\x0d", // {"minLength":3} against "💩💩"
	} {
		f.Add([]byte(s))
	}
	ours := NewCompiler(nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{b: data}
		var sb, ib strings.Builder
		g.schema(&sb, 3)
		g.value(&ib, 3)
		schema, inst := sb.String(), ib.String()
		v, err := ours.Compile([]byte(schema))
		if err != nil {
			t.Fatalf("Compile(%s) = %v: the generator stays inside the subset", schema, err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(schema), &s); err != nil {
			t.Fatalf("jsonschema.Schema unmarshal %s: %v", schema, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Skipf("google/jsonschema-go refuses %s: %v", schema, err)
		}
		var x any
		if err := json.Unmarshal([]byte(inst), &x); err != nil {
			t.Fatalf("instance %s: %v", inst, err)
		}
		theirs := rs.Validate(x) == nil
		got := v.Validate([]byte(inst))
		if errors.Is(got, ErrLimit) {
			return
		}
		if (got == nil) != theirs {
			t.Errorf("schema %s instance %s: ours valid=%v (%v), google valid=%v", schema, inst, got == nil, got, theirs)
		}
	})
}

// FuzzParse checks the argument scanner against encoding/json: whatever we accept is
// valid JSON, and valid JSON we refuse is refused for a documented reason (duplicate
// key, string encoding, a bound), never as malformed; every string's length is its
// count of code points.
//
// SPEC CALL-8
// SPEC CALL-3
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2.5e3,-0,"x\u00e9\ud83d\ude00"],"b":null}`, `[true,false]`, `"\ud800"`, `{"a":1,"a":2}`, "\"\xff\"", `1e999999`, `01`, ` [ ] `, `"\u00e9\u0041\u20ac\ud83d\ude00\u0000x\uD7FF\uE000"`, `{"\u0061b":"\u00e9\u00e9","ab2":[1.5e-3,"\n\t\/"]}`, `"\u00zz"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var tp tape
		steps := 0
		err := tp.parse(data, Limits{}.withDefaults().tape(), &steps)
		valid := json.Valid(data)
		if err == nil && valid {
			// The decoded tape must hold the values encoding/json decodes.
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			var want any
			if err := dec.Decode(&want); err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			if got := tapeValue(&tp, 0); !reflect.DeepEqual(got, want) {
				t.Errorf("parse(%q) = %#v, encoding/json decodes %#v", data, got, want)
			}
			// Every string (and key) holds its length in code points (SPEC CALL-3).
			for i, tk := range tp.toks {
				if tk.kind == kString && int(tk.n) != utf8.RuneCount(tp.str(int32(i))) {
					t.Errorf("parse(%q): string token %d has length %d, want %d code points", data, i, tk.n, utf8.RuneCount(tp.str(int32(i))))
				}
			}
		}
		switch {
		case err == nil && !valid:
			t.Errorf("parse(%q) accepted invalid JSON", data)
		case err != nil && valid && errors.Is(err, errSyntax):
			t.Errorf("parse(%q) = %v for valid JSON", data, err)
		case err != nil && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrLimit):
			t.Errorf("parse(%q) = %v, want ErrInvalid or ErrLimit", data, err)
		}
	})
}

// tapeValue converts value i of a tape to what encoding/json decodes with UseNumber,
// through the builder NewFull hands the library.
func tapeValue(t *tape, i int32) any {
	return fullValue(t, i, func(i int32) any { return json.Number(t.lit(i)) })
}

// FuzzCompile feeds junk schemas and arguments: no panic, only documented errors.
func FuzzCompile(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"pattern":"^a"}}}`), []byte(`{"a":"ab"}`))
	f.Add([]byte(`{"anyOf":[{"enum":[1,{"a":[]}]},false]}`), []byte(`{"a":[]}`))
	f.Add([]byte(`{"pattern":"[\\s\\d-]\\u00e9(?:x|y)"}`), []byte(`"é"`))
	f.Add([]byte(`{"$REF":"#"}`), []byte(`1`)) // NewFull once overflowed the stack on this
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		for _, c := range []Compiler{NewCompiler(nil), NewFull(nil)} {
			v, err := c.Compile(schema)
			if err != nil {
				if !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrLimit) {
					t.Fatalf("%T.Compile(%q) = %v", c, schema, err)
				}
				continue
			}
			if err := v.Validate(args); err != nil && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrLimit) {
				t.Fatalf("%T Validate(%q) = %v", c, args, err)
			}
		}
	})
}

// FuzzPatternFastPath checks the sequence matcher against Go's regexp on every
// pattern it accepts.
func FuzzPatternFastPath(f *testing.F) {
	for _, p := range []string{`^[a-z][a-z0-9-]{2,40}$`, `^[^@\s]+@[^@\s]+$`, `^\d+$`, `^a*b$`, `^[a-c]*[b-d]$`, `^x?y+z{0,3}$`, `^é.[^a]$`, `^ab{2}c$`} {
		for _, s := range []string{"", "abc", "a@b", "123", "aab", "bbd", "xyyzz", "é\u2028b", "abbc", "ñ-a"} {
			f.Add(p, s)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		cp, ok := compilePattern(pattern)
		if !ok || cp.seq == nil {
			return
		}
		if !utf8.ValidString(s) {
			return
		}
		if got, want := cp.seq.match([]byte(s)), cp.re.MatchString(s); got != want {
			t.Errorf("pattern %q on %q: sequence matcher %v, regexp %v", pattern, s, got, want)
		}
	})
}
