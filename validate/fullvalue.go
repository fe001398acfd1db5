package validate

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// exactNumbers makes float64 equality exact for the numbers enum, const and
// uniqueItems compare. google/jsonschema-go decodes numbers as float64 and compares
// those, so two different numbers that round to the same float64 (8,000 distinct
// 30-digit decimals) would be equal to it. owners maps the float64 of each number in
// the schema's enum and const values to that number's literal (Compile refuses two
// different ones sharing a float64).
type exactNumbers struct {
	owners map[float64][]byte
	plain  bool // every owner has at most 15 significant digits
}

// plainDigits reports whether the number literal has at most 15 significant digits
// and a float64 of normal range: distinct such numbers have distinct float64 values
// (float64 holds 15 decimal digits exactly).
func plainDigits(lit []byte) bool {
	d := parseDecimal(lit)
	return d.zero() || d.sig1-d.sig0 <= 15 && d.exp > -300 && d.exp < 300
}

// plainFor reports whether the numbers nums of t and the schema's own values all have
// at most 15 significant digits, so none shares a float64 with another: floats then
// moves nothing, and the work budget charges nothing for it.
func (x *exactNumbers) plainFor(t *tape, nums []int32) bool {
	if !x.plain {
		return false
	}
	for _, i := range nums {
		if !plainDigits(t.lit(i)) {
			return false
		}
	}
	return true
}

// floats answers the float64 each number token of t decodes to: its nearest float64,
// except that when different numbers share a nearest float64 f, those that differ
// from its owner (the schema's enum or const value at f, else the number f prints
// as) move to the nearest float64 values no other number uses, above f if they are
// above the owner and below it if below, so equal float64 values mean equal numbers.
// Other keywords (bounds, multipleOf, "integer") see float64 values, as in the
// library, moved by at most as many units in the last place as numbers share f. ok
// is false for a number beyond float64's range, or one that would move past it.
// plain is plainFor(t, nums), which the caller has charged by.
func (x *exactNumbers) floats(t *tape, nums []int32, plain bool) (map[int32]float64, bool) {
	out := make(map[int32]float64, len(nums))
	for _, i := range nums {
		f, err := strconv.ParseFloat(string(t.lit(i)), 64)
		if err != nil {
			return nil, false
		}
		out[i] = f
	}
	if plain {
		return out, true
	}
	if !x.separate(t, nums, out) {
		return nil, false
	}
	return out, true
}

// separate moves apart the numbers of out that share a float64 with a different
// number; see floats.
func (x *exactNumbers) separate(t *tape, nums []int32, out map[int32]float64) bool {
	groups := map[float64][]int32{}
	taken := map[float64]bool{}
	for f := range x.owners {
		taken[f] = true
	}
	for _, i := range nums {
		f := out[i]
		groups[f] = append(groups[f], i)
		taken[f] = true
	}
	cmpTok := func(a, b int32) int {
		da, db := parseDecimal(t.lit(a)), parseDecimal(t.lit(b))
		return cmpDecimal(&da, &db)
	}
	for f, g := range groups {
		var owner decimal
		hasOwner := false
		if lit, ok := x.owners[f]; ok {
			owner, hasOwner = parseDecimal(lit), true
		}
		if !hasOwner && !x.collides(t, g, cmpTok) {
			continue
		}
		slices.SortFunc(g, cmpTok)
		if !hasOwner {
			// The number f prints as, which a schema's bound at f is spelled as: numbers
			// equal to it keep f, the others move away on their own side of it, so
			// they compare with f as exactly as they would alone.
			owner = parseDecimal([]byte(strconv.FormatFloat(f, 'g', -1, 64)))
		}
		// Above the owner, upwards in increasing order; below it, downwards in
		// decreasing order; equal numbers share one new value.
		up, down := f, f
		var last decimal
		var lastF float64
		for pass := 0; pass < 2; pass++ {
			first := true
			for k := range g {
				i := g[k]
				if pass == 1 {
					i = g[len(g)-1-k]
				}
				d := parseDecimal(t.lit(i))
				c := cmpDecimal(&d, &owner)
				if c == 0 || (pass == 0) != (c > 0) {
					continue
				}
				if !first && cmpDecimal(&d, &last) == 0 {
					out[i] = lastF
					continue
				}
				first, last = false, d
				var ok bool
				if pass == 0 {
					up, ok = nextFree(up, math.Inf(1), taken)
					lastF = up
				} else {
					down, ok = nextFree(down, math.Inf(-1), taken)
					lastF = down
				}
				if !ok {
					return false
				}
				out[i] = lastF
			}
		}
	}
	return true
}

// collides reports whether the tokens of g (numbers of one float64) hold two
// different numbers.
func (x *exactNumbers) collides(t *tape, g []int32, cmpTok func(a, b int32) int) bool {
	for _, i := range g[1:] {
		if cmpTok(g[0], i) != 0 {
			return true
		}
	}
	return false
}

// nextFree answers the nearest float64 beyond f towards dir that no number uses,
// and marks it used; ok is false past the largest finite float64.
func nextFree(f, dir float64, taken map[float64]bool) (float64, bool) {
	for {
		f = math.Nextafter(f, dir)
		if math.IsInf(f, 0) {
			return 0, false
		}
		if !taken[f] {
			taken[f] = true
			return f, true
		}
	}
}

// newExactNumbers collects the numbers of the enum and const values of the schemas of
// g; two different numbers sharing a float64 are unsupported (the library could not
// tell them apart).
func newExactNumbers(g *refGraph) (*exactNumbers, error) {
	x := &exactNumbers{owners: map[float64][]byte{}, plain: true}
	var visit func(v any, kw string) error
	visit = func(v any, kw string) error {
		switch v := v.(type) {
		case json.Number:
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				return &UnsupportedError{Keyword: kw}
			}
			lit := []byte(string(v))
			if old, ok := x.owners[f]; ok {
				a, b := parseDecimal(old), parseDecimal(lit)
				if cmpDecimal(&a, &b) != 0 {
					return &UnsupportedError{Keyword: kw}
				}
				return nil
			}
			x.owners[f] = lit
			if !plainDigits(lit) {
				x.plain = false
			}
		case []any:
			for _, e := range v {
				if err := visit(e, kw); err != nil {
					return err
				}
			}
		case map[string]any:
			for _, e := range v {
				if err := visit(e, kw); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, n := range g.nodes {
		if m, ok := n.(map[string]any); ok {
			for _, kw := range []string{"enum", "const"} {
				if v, ok := m[kw]; ok {
					if err := visit(v, kw); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return x, nil
}

// fullValue builds the value the library validates from value i of t: nil, bool,
// num(token) for a number, string, []any and map[string]any, as encoding/json decodes.
func fullValue(t *tape, i int32, num func(int32) any) any {
	tk := &t.toks[i]
	switch tk.kind {
	case kNull:
		return nil
	case kTrue:
		return true
	case kFalse:
		return false
	case kNumber:
		return num(i)
	case kString:
		return string(t.str(i))
	case kArray:
		out := make([]any, 0, tk.n)
		for e := i + 1; e < tk.next; e = t.toks[e].next {
			out = append(out, fullValue(t, e, num))
		}
		return out
	}
	out := make(map[string]any, tk.n)
	for j, m := i+1, int32(0); m < tk.n; m++ {
		out[string(t.str(j))] = fullValue(t, j+1, num)
		j = t.toks[j+1].next
	}
	return out
}
