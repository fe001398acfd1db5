package schemaguard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// gen builds random JSON values and spells each of them many ways.
type gen struct{ r *rand.Rand }

var genRunes = []rune{'a', 'b', 'z', 'A', '0', ' ', '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 0, 0x1f, 0x7f, 0x80, 0xe9, 0x2028, 0xd7ff, 0xe000, 0xfb33, 0xffff, 0x10000, 0x1f600, 0x10ffff}

func (g gen) string() string {
	var b strings.Builder
	for range g.r.IntN(6) {
		b.WriteRune(genRunes[g.r.IntN(len(genRunes))])
	}
	return b.String()
}

func (g gen) number() float64 {
	switch g.r.IntN(5) {
	case 0:
		return float64(g.r.IntN(2000) - 1000)
	case 1:
		return math.Float64frombits(g.r.Uint64()&^(0x7ff<<52) | uint64(g.r.IntN(0x7ff))<<52) // any finite double
	case 2:
		return (g.r.Float64() - 0.5) * math.Pow(10, float64(g.r.IntN(60)-30))
	case 3:
		return math.Ldexp(1, g.r.IntN(2000)-1074)
	default:
		return float64(g.r.Int64N(1<<54)) - 1<<53
	}
}

// value returns a random value as encoding/json decodes it.
func (g gen) value(depth int) any {
	k := g.r.IntN(8)
	if depth > 4 {
		k %= 5
	}
	switch k {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2, 3:
		return g.number()
	case 4:
		return g.string()
	case 5:
		a := make([]any, g.r.IntN(5))
		for i := range a {
			a[i] = g.value(depth + 1)
		}
		return a
	default:
		m := map[string]any{}
		for range g.r.IntN(6) {
			m[g.string()] = g.value(depth + 1)
		}
		return m
	}
}

func (g gen) space(b *strings.Builder) {
	for range g.r.IntN(3) {
		b.WriteByte(" \t\n\r"[g.r.IntN(4)])
	}
}

// spell writes v as JSON text with random whitespace, member order, escapes and number
// spellings.
func (g gen) spell(b *strings.Builder, v any) {
	g.space(b)
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		s := []string{
			strconv.FormatFloat(v, 'g', -1, 64),
			strconv.FormatFloat(v, 'e', -1, 64),
			strings.ToUpper(strconv.FormatFloat(v, 'e', 30, 64)),
			strconv.FormatFloat(v, 'e', 25, 64),
		}[g.r.IntN(4)]
		if v == math.Trunc(v) && math.Abs(v) < 1e15 && g.r.IntN(2) == 0 {
			s = strconv.FormatFloat(v, 'f', -1, 64) + ".000"
		}
		b.WriteString(s)
	case string:
		b.WriteByte('"')
		for _, r := range v {
			switch {
			case r == '"' || r == '\\':
				b.WriteString([]string{`\`, `\u00` + fmt.Sprintf("%02X", r)}[g.r.IntN(2)])
				if b.String()[b.Len()-1] == '\\' {
					b.WriteRune(r)
				}
			case r < 0x20 || g.r.IntN(3) == 0:
				if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
					fmt.Fprintf(b, `\u%04x\u%04X`, r1, r2)
				} else if g.r.IntN(2) == 0 {
					fmt.Fprintf(b, `\u%04x`, r)
				} else {
					fmt.Fprintf(b, `\u%04X`, r)
				}
			case r == '/' && g.r.IntN(2) == 0:
				b.WriteString(`\/`)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				g.space(b)
				b.WriteByte(',')
			}
			g.spell(b, e)
		}
		g.space(b)
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			g.spell(b, k)
			g.space(b)
			b.WriteByte(':')
			g.spell(b, v[k])
		}
		g.space(b)
		b.WriteByte('}')
	}
	g.space(b)
}

// SPEC CONTRACT-1, property: Canonicalize is idempotent; texts that differ only in
// whitespace, member order, escapes and number spelling have one canonical form; and the
// canonical form decodes to the value the text meant.
func TestCanonicalFormProperties(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(5, 6))}
	for i := range 3000 {
		v := g.value(0)
		var a, b strings.Builder
		g.spell(&a, v)
		g.spell(&b, v)
		ca, ma, err := Canonicalize(nil, []byte(a.String()))
		if err != nil {
			t.Fatalf("case %d: Canonicalize(%q) error = %v", i, a.String(), err)
		}
		cb, mb, err := Canonicalize(nil, []byte(b.String()))
		if err != nil {
			t.Fatalf("case %d: Canonicalize(%q) error = %v", i, b.String(), err)
		}
		if !bytes.Equal(ca, cb) || ma != mb {
			t.Fatalf("case %d: two spellings of one value:\n%q\n%q\ncanonical forms differ:\n%q %+v\n%q %+v", i, a.String(), b.String(), ca, ma, cb, mb)
		}
		again, m2, err := Canonicalize(nil, ca)
		if err != nil || !bytes.Equal(again, ca) || m2 != ma {
			t.Fatalf("case %d: Canonicalize(%q) = %q, %+v, %v, want itself (not idempotent)", i, ca, again, m2, err)
		}
		checkCopies(t, []byte(a.String()))
		checkCopies(t, ca)
		var decoded any
		if err := json.Unmarshal(ca, &decoded); err != nil {
			t.Fatalf("case %d: canonical form %q is not JSON: %v", i, ca, err)
		}
		if !reflect.DeepEqual(decoded, v) {
			t.Fatalf("case %d: canonical form %q decodes to %#v, want %#v", i, ca, decoded, v)
		}
	}
}

// TestSortMembers checks objects of every size on both sides of insertionMax, members
// shuffled: the output holds them in name order, and any one name twice, wherever the
// two stand, is ErrMalformed.
func TestSortMembers(t *testing.T) {
	r := rand.New(rand.NewPCG(8785, 6))
	for n := 1; n <= 2*insertionMax+2; n++ {
		for range 50 {
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("k%02d\u00e9", i) // the same length, one not ASCII
			}
			if r.IntN(3) == 0 {
				names[r.IntN(n)] = names[r.IntN(n)] // maybe a duplicate (or the name itself)
			}
			want := slices.Clone(names)
			slices.Sort(want) // UTF-8 order is UTF-16 order for these names
			dup := len(slices.Compact(slices.Clone(want))) < n
			r.Shuffle(n, func(i, j int) { names[i], names[j] = names[j], names[i] })
			var src, ref []byte
			for i, name := range names {
				src = append(src, ","[:min(i, 1)]+`"`+name+`":"`+name+`"`...)
			}
			for i, name := range want {
				ref = append(ref, ","[:min(i, 1)]+`"`+name+`":"`+name+`"`...)
			}
			src, ref = []byte("{"+string(src)+"}"), []byte("{"+string(ref)+"}")
			out, _, err := Canonicalize(nil, src)
			if dup {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("Canonicalize(%s) = %s, %v; want a duplicate error", src, out, err)
				}
				continue
			}
			if err != nil || !bytes.Equal(out, ref) {
				t.Fatalf("Canonicalize(%s) = %s, %v; want %s", src, out, err, ref)
			}
			checkCopies(t, src)
		}
	}
}
