package validate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/validate"
)

// outcome names what Compile or Validate answered, as a caller outside the package
// tells it: ok, invalid:<keyword>, limit or unsupported.
func outcome(err error) string {
	var ve *validate.ValidationError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &ve):
		return "invalid:" + ve.Keyword
	case errors.Is(err, validate.ErrLimit):
		return "limit"
	case errors.Is(err, validate.ErrUnsupported):
		return "unsupported"
	}
	return "error"
}

// TestHostileNumbers: numbers at the edges of float64 (-0, underflow to 0, overflow,
// exponents at the limit, thousands of digits, neighbours that share a float64) get,
// through the public API, the verdicts the package doc promises: exact for the
// bounded validator; for NewFull exact in enum, const and uniqueItems, float64 in the
// bounds and "integer", ErrLimit beyond float64's range.
//
// SPEC CALL-5
// SPEC CALL-7
// SPEC CALL-8
func TestHostileNumbers(t *testing.T) {
	nines := "0." + strings.Repeat("9", 5000)
	tests := []struct{ schema, args, bounded, full string }{
		{`{"enum":[0]}`, `-0`, "ok", "ok"},
		{`{"enum":[0]}`, `-0.0e-5`, "ok", "ok"},
		{`{"enum":[0]}`, `1e-400`, "invalid:enum", "invalid:enum"},
		{`{"enum":[0]}`, `-1e-400`, "invalid:enum", "invalid:enum"},
		{`{"uniqueItems":true}`, `[0,-0]`, "invalid:uniqueItems", "invalid:uniqueItems"},
		{`{"uniqueItems":true}`, `[0,1e-400,-1e-400,5e-324]`, "ok", "ok"},
		{`{"exclusiveMinimum":0}`, `-0`, "invalid:exclusiveMinimum", "invalid:exclusiveMinimum"},
		{`{"minimum":0}`, `-0`, "ok", "ok"},
		{`{"maximum":0}`, `1e-400`, "invalid:maximum", "ok"},   // the library sees 0
		{`{"type":"integer"}`, `1e-400`, "invalid:type", "ok"}, // the library sees 0
		{`{"type":"integer"}`, `1e400`, "ok", "limit"},
		{`{"type":"integer"}`, `1e999999999`, "ok", "limit"},
		{`{"type":"integer"}`, `1e1000000000`, "limit", "limit"},
		{`{"type":"integer"}`, `1e-1000000000`, "limit", "limit"},
		{`{"maximum":1}`, nines, "ok", "ok"},
		{`{"exclusiveMaximum":1}`, nines, "ok", "invalid:exclusiveMaximum"}, // the library sees 1
		{`{"items":{"maximum":1}}`, `[0.99999999999999999998,0.99999999999999999999]`, "ok", "ok"},
		{`{"items":{"minimum":1}}`, `[1.00000000000000000002,1.00000000000000000001]`, "ok", "ok"},
		{`{"enum":[1e400]}`, `10e399`, "ok", "unsupported"},
		{`{"const":0}`, `0`, "unsupported", "ok"},
	}
	bounded, full := validate.NewCompiler(nil), validate.NewFull(nil)
	for _, tt := range tests {
		for _, c := range []struct {
			name string
			c    validate.Compiler
			want string
		}{{"bounded", bounded, tt.bounded}, {"full", full, tt.full}} {
			v, err := c.c.Compile([]byte(tt.schema))
			got := outcome(err)
			if err == nil {
				got = outcome(v.Validate([]byte(tt.args)))
			}
			if got != c.want {
				t.Errorf("%s: schema %s, args %.40s: %s, want %s", c.name, tt.schema, tt.args, got, c.want)
			}
		}
	}
}
