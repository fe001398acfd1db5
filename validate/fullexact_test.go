package validate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// thirtyDigits answers n distinct 30-digit decimals that share a few float64 values:
// google/jsonschema-go alone called them equal.
func thirtyDigits(n int, frac bool) []string {
	out := make([]string, n)
	for i := range out {
		s := fmt.Sprintf("123456789012345678901234%06d", i)
		if frac {
			s = "0." + s
		}
		out[i] = s
	}
	return out
}

// TestFullExactNumbers: NewFull compares numbers exactly in enum, const and
// uniqueItems, as the bounded validator does (SPEC CALL-8), although the library it
// wraps compares float64 values.
//
// SPEC CALL-7
// SPEC CALL-8
func TestFullExactNumbers(t *testing.T) {
	arr := func(xs []string) string { return "[" + strings.Join(xs, ",") + "]" }
	big := "123456789012345678901234567890"
	tests := []struct {
		name, schema, args, want string
	}{
		{"8000 distinct 30-digit integers are unique", `{"uniqueItems":true,"items":{"type":"integer"}}`, arr(thirtyDigits(8000, false)), "ok"},
		{"8000 distinct 30-digit fractions are unique", `{"uniqueItems":true}`, arr(thirtyDigits(8000, true)), "ok"},
		{"the same 30-digit number twice", `{"uniqueItems":true}`, arr(append(thirtyDigits(100, false), thirtyDigits(1, false)[0])), "invalid:uniqueItems"},
		{"the same number spelled twice", `{"uniqueItems":true}`, "[" + big + ",1.23456789012345678901234567890e29]", "invalid:uniqueItems"},
		{"1.0, 1 and 1e0 are equal", `{"uniqueItems":true}`, `[1.0,1,1e0]`, "invalid:uniqueItems"},
		{"1 and 1e0", `{"uniqueItems":true}`, `[1,1e0]`, "invalid:uniqueItems"},
		{"10e-1 in enum [1]", `{"enum":[1]}`, `10e-1`, "ok"},
		{"1.0 in enum [1]", `{"enum":[1]}`, `1.0`, "ok"},
		{"nested arrays differ in the 21st digit", `{"uniqueItems":true}`, `[[1.00000000000000000001],[1]]`, "ok"},
		{"nested objects equal", `{"uniqueItems":true}`, `[{"a":1e2},{"a":100.0}]`, "invalid:uniqueItems"},
		{"enum: off by one in the 30th digit", `{"enum":[` + big + `]}`, "123456789012345678901234567891", "invalid:enum"},
		{"enum: the same number", `{"enum":[` + big + `]}`, big, "ok"},
		{"enum: the same number as an exponent", `{"enum":[` + big + `]}`, "1.23456789012345678901234567890e29", "ok"},
		{"enum: 1 against 1.00000000000000000001", `{"enum":[1.00000000000000000001]}`, "1", "invalid:enum"},
		{"const: 0.1 against a 22-digit neighbour", `{"const":0.1}`, "0.1000000000000000000001", "invalid:const"},
		{"const: 0.1 against 0.10", `{"const":0.1}`, "0.10", "ok"},
		{"const inside an object", `{"const":{"a":[0.1]}}`, `{"a":[0.1000000000000000000001]}`, "invalid:const"},
		{"big exponents equal", `{"uniqueItems":true}`, `[1e300,1.0e300]`, "invalid:uniqueItems"},
		{"big exponents equal, spelled apart", `{"uniqueItems":true}`, `[1e308,10e307]`, "invalid:uniqueItems"},
		{"big exponents apart", `{"uniqueItems":true}`, `[1e300,1e299]`, "ok"},
		{"big exponents, 30 digits", `{"uniqueItems":true}`, `[1.23456789012345678901234567890e300,1.23456789012345678901234567891e300]`, "ok"},
		{"beyond float64", `{}`, `1e309`, "limit"},
		// Numbers moved apart stay on their side of the float64's own value, so a bound
		// at that value keeps the verdict the library gives each number alone.
		{"two numbers below 1 sharing its float64, maximum 1", `{"items":{"maximum":1}}`, `[0.99999999999999999998,0.99999999999999999999]`, "ok"},
		{"two numbers above 1 sharing its float64, exclusiveMinimum 1", `{"items":{"exclusiveMinimum":1}}`, `[1.00000000000000000002,1.00000000000000000001]`, "ok"},
		{"numbers on both sides of 1, maximum 1", `{"items":{"maximum":1}}`, `[0.99999999999999999999,1.00000000000000000001]`, "invalid:maximum"},
		{"two numbers below 0.1 sharing its float64, maximum 0.1", `{"items":{"maximum":0.1}}`, `[0.09999999999999999998,0.09999999999999999999]`, "ok"},
		{"colliding schema values", `{"enum":[` + big + `,123456789012345678901234567891]}`, `1`, "unsupported"},
	}
	// The budget lifted: 8,000 items under uniqueItems cost the library about 25 ms,
	// which the default budget refuses (TestFullBudget); exactness does not depend on it.
	c := NewFull(&FullOptions{Limits: Limits{MaxSteps: 1 << 30}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := c.Compile([]byte(tt.schema))
			if err != nil {
				if got := verdict(err); got != tt.want {
					t.Fatalf("NewFull.Compile = %v, want %s", err, tt.want)
				}
				return
			}
			if got := verdict(v.Validate([]byte(tt.args))); got != tt.want {
				t.Errorf("NewFull.Validate(%.60s) = %s, want %s", tt.args, got, tt.want)
			}
		})
	}
}

// TestFullAgreesWithBoundedOnNumbers: on a generated corpus of enum, const-free
// uniqueItems and type schemas over numbers that differ past float64's precision,
// NewFull and the bounded validator give the same verdict.
//
// SPEC CALL-7
// SPEC CALL-8
func TestFullAgreesWithBoundedOnNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pool := []string{"0", "-0", "1", "1.0", "1e0", "10e-1", "0.1", "0.10", "1e-1", "0.1000000000000000000001",
		"123456789012345678901234567890", "123456789012345678901234567891", "1.23456789012345678901234567890e29",
		"9007199254740992", "9007199254740993", "9007199254740993.0", "1e300", "1.0e300", "1.00000000000000000000001e300",
		"-2.5", "-2.50", "-2.5000000000000000000001", "3"}
	num := func() string { return pool[r.IntN(len(pool))] }
	value := func(depth int) string {
		var gen func(d int) string
		gen = func(d int) string {
			switch k := r.IntN(6); {
			case d > 1 || k < 3:
				return num()
			case k == 3:
				return `"s"`
			case k == 4:
				n := r.IntN(3)
				xs := make([]string, n)
				for i := range xs {
					xs[i] = gen(d + 1)
				}
				return "[" + strings.Join(xs, ",") + "]"
			default:
				return `{"a":` + gen(d+1) + `}`
			}
		}
		return gen(depth)
	}
	full, bounded := NewFull(nil), NewCompiler(nil)
	agree := 0
	for n := 0; n < 3000; n++ {
		var schema string
		switch r.IntN(4) {
		case 0:
			schema = `{"uniqueItems":true}`
		case 1:
			schema = `{"enum":[` + value(1) + `,` + value(1) + `]}`
		case 2:
			schema = `{"items":{"enum":[` + num() + `,` + num() + `,"s"]}}`
		default:
			schema = `{"type":"array","uniqueItems":true,"items":{"type":["number","string","array","object"]}}`
		}
		var args string
		if r.IntN(3) == 0 {
			args = value(0)
		} else {
			xs := make([]string, 2+r.IntN(4))
			for i := range xs {
				xs[i] = value(1)
			}
			args = "[" + strings.Join(xs, ",") + "]"
		}
		vf, errF := full.Compile([]byte(schema))
		vb, errB := bounded.Compile([]byte(schema))
		if errB != nil {
			t.Fatalf("bounded Compile(%s) = %v", schema, errB)
		}
		if errF != nil {
			if verdict(errF) != "unsupported" {
				t.Errorf("NewFull.Compile(%s) = %v", schema, errF)
			}
			continue // two enum values sharing a float64
		}
		gf, gb := verdict(vf.Validate([]byte(args))), verdict(vb.Validate([]byte(args)))
		if ok := gf == "ok"; ok != (gb == "ok") {
			t.Errorf("schema %s, args %s: NewFull %s, bounded %s", schema, args, gf, gb)
			continue
		}
		agree++
	}
	t.Logf("%d cases agree", agree)
}
