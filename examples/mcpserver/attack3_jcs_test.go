package main

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// An RFC 8785 (JCS) serialiser written from the RFC's rules, independent of package
// schemaguard, for the cases the attack3 tests use: members sorted by their names' UTF-16
// code units (section 3.2.3), strings with only the escapes of section 3.2.2.2, numbers
// as ECMAScript's Number.prototype.toString writes them (section 3.2.2.3), literals and
// arrays as they are. It also measures what CONTRACT-3 bounds: JSON nodes and nesting
// depth (a scalar has depth 0).

// jcsValue is a parsed JSON value: nil, bool, json.Number, string, []jcsValue or
// []jcsMember (in the text's order).
type jcsValue any

type jcsMember struct {
	name  string
	value jcsValue
}

// jcsParse parses one JSON text, keeping numbers as their text.
func jcsParse(b []byte) (jcsValue, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return jcsRead(d)
}

func jcsRead(d *json.Decoder) (jcsValue, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		var ms []jcsMember
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := jcsRead(d)
			if err != nil {
				return nil, err
			}
			ms = append(ms, jcsMember{k.(string), v})
		}
		_, err := d.Token()
		if ms == nil {
			ms = []jcsMember{}
		}
		return ms, err
	case json.Delim('['):
		vs := []jcsValue{}
		for d.More() {
			v, err := jcsRead(d)
			if err != nil {
				return nil, err
			}
			vs = append(vs, v)
		}
		_, err := d.Token()
		return vs, err
	}
	return tok, nil
}

// jcs returns the canonical form of v.
func jcs(v jcsValue) []byte {
	var b []byte
	return jcsAppend(b, v)
}

func jcsAppend(b []byte, v jcsValue) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			panic("jcs: number out of range: " + string(v))
		}
		return append(b, esNumber(f)...)
	case string:
		return jcsString(b, v)
	case []jcsValue:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = jcsAppend(b, e)
		}
		return append(b, ']')
	case []jcsMember:
		sorted := slices.Clone(v)
		slices.SortStableFunc(sorted, func(x, y jcsMember) int {
			return slices.Compare(utf16.Encode([]rune(x.name)), utf16.Encode([]rune(y.name)))
		})
		b = append(b, '{')
		for i, m := range sorted {
			if i > 0 {
				b = append(b, ',')
			}
			b = jcsString(b, m.name)
			b = append(b, ':')
			b = jcsAppend(b, m.value)
		}
		return append(b, '}')
	}
	panic("jcs: unexpected value")
}

// jcsString writes s as RFC 8785 section 3.2.2.2 says: the two-character escapes of
// \b \t \n \f \r \" \\, \u00xx (lowercase hex) for the other controls, everything
// else as it is.
func jcsString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '\b':
			b = append(b, `\b`...)
		case '\t':
			b = append(b, `\t`...)
		case '\n':
			b = append(b, `\n`...)
		case '\f':
			b = append(b, `\f`...)
		case '\r':
			b = append(b, `\r`...)
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		default:
			if r < 0x20 {
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[r>>4], "0123456789abcdef"[r&15])
			} else {
				b = append(b, string(r)...)
			}
		}
	}
	return append(b, '"')
}

// esNumber is ECMAScript's Number::toString(x) for a finite x (ECMA-262 section
// 6.1.6.1.20): the shortest digits that read back as x, placed by the exponent.
func esNumber(x float64) string {
	if x == 0 {
		return "0" // -0 too
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		panic("jcs: not a finite number")
	}
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	// 'e' with the shortest precision: d.ddddde±XX
	e := strconv.FormatFloat(x, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	k := len(digits)
	p, _ := strconv.Atoi(exp)
	n := p + 1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	ex := strconv.Itoa(int(math.Abs(float64(n - 1))))
	if k == 1 {
		return sign + digits + "e" + es + ex
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + es + ex
}

// jcsMeasure returns the JSON nodes of v (every value) and its nesting depth.
func jcsMeasure(v jcsValue) (nodes, depth int) {
	nodes = 1
	var kids []jcsValue
	switch v := v.(type) {
	case []jcsValue:
		kids = v
	case []jcsMember:
		for _, m := range v {
			kids = append(kids, m.value)
		}
	default:
		return 1, 0
	}
	deepest := 0
	for _, k := range kids {
		n, d := jcsMeasure(k)
		nodes += n
		deepest = max(deepest, d)
	}
	return nodes, deepest + 1
}
