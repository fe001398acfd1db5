package discovery

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/validate"
)

// toolSchemaValidator compiles the discovery tool's served input schema with the
// library's own bounded validator.
func toolSchemaValidator(t testing.TB) validate.Validator {
	var def struct{ InputSchema json.RawMessage }
	if err := json.Unmarshal(ToolDefinition(""), &def); err != nil {
		t.Fatal(err)
	}
	v, err := validate.NewCompiler(nil).Compile(def.InputSchema)
	if err != nil {
		t.Fatalf("the discovery tool's schema does not compile: %v", err)
	}
	return v
}

// checkToolSchemaEnforced fails when the served schema and the discovery tool's
// argument reader disagree on args. Text over the validator's CALL-5 bounds (nesting
// past 32, an exponent of 10^9, a huge cursor) gets no verdict from it (ErrLimit), so
// there is nothing to compare.
func checkToolSchemaEnforced(t *testing.T, v validate.Validator, args []byte) {
	t.Helper()
	verr := v.Validate(args)
	if errors.Is(verr, validate.ErrLimit) {
		return
	}
	if verr != nil && !errors.Is(verr, validate.ErrInvalid) {
		t.Fatalf("Validate(%q) = %v, want nil, ErrInvalid or ErrLimit", args, verr)
	}
	_, perr := parseParams(args, false)
	if (verr == nil) != (perr == nil) {
		t.Errorf("arguments %q: served schema says valid=%v, the tool's reader says valid=%v", args, verr == nil, perr == nil)
	}
}

var toolArgCases = []string{
	`{"query":"model search"}`,
	`{"query":"model search","limit":16}`,
	`{"query":"x","limit":16.0}`,
	`{"query":"x","limit":1.6e1}`,
	`{"query":"x","limit":0}`,
	`{"query":"x","limit":17}`,
	`{"query":"x","limit":-1}`,
	`{"query":"x","limit":1e999}`,
	`{"query":"x","limit":"3"}`,
	`{"query":"x","cursor":"abc"}`,
	`{"query":"x","cursor":""}`,
	`{"query":"x","cursor":3}`,
	`{"query":""}`,
	`{"query":"mo\u0000del"}`,
	`{"query":"mo\u001fdel"}`,
	`{"query":"mo\u007fdel"}`,
	`{"query":"mo\u0085del"}`,
	`{"query":"mo\u00a0del"}`,
	`{"query":"mo\u2028del"}`,
	`{"query":"x","_meta":{}}`,
	`{"query":"x","_Meta":{}}`,
	`{"query":"x","other":1}`,
	`{"Query":"x"}`,
	`{"query":"x","query":"y"}`,
	`{"query":7}`,
	`{"query":null}`,
	`{}`,
	`[]`,
	`"x"`,
	`{"query":"` + strings.Repeat("é", 500) + `"}`,
	`{"query":"` + strings.Repeat("é", 501) + `"}`,
	`{"query":"` + strings.Repeat("😀", 500) + `"}`,
	`{"query":"` + strings.Repeat("😀", 501) + `"}`,
	// Lone and reversed surrogate escapes: text the library's validator refuses (no
	// single meaning), which the reader decoded as U+FFFD and searched.
	`{"query":"\ud800"}`,
	`{"query":"x\udc00"}`,
	`{"query":"\udc00\ud800"}`,
	`{"query":"\ud83d\ude00"}`,
	`{"query":"x","cursor":"\ud800"}`,
	`{"query":"x","cursor":"\udfff"}`,
	// Escaped member names, numbers spelled every way, white space, BOM, deep nesting.
	`{"\u0071uery":"x"}`,
	`{"query":"x","\u0071uery":"y"}`,
	`{"query":"x","\u005fmeta":{}}`,
	`{"query":"x","\u006cimit":17}`,
	`{"query":"x","limit":1600e-2}`,
	`{"query":"x","limit":16.000000000000000000001}`,
	`{"query":"x","limit":-0}`,
	`{"query":"x","limit":100000000000000000000016}`,
	`{"query":"x","limit":1` + strings.Repeat("0", 400) + `e-400}`,
	`{"query":"x","limit":1e-999}`,
	`{"query":"x","limit":null}`,
	" {\"query\":\"x\"}\n",
	"\t{\r\"query\" : \"x\" }",
	"\xef\xbb\xbf{\"query\":\"x\"}",
	"",
	"  ",
	`{"query":"x"}{}`,
	`{"query":"` + strings.Repeat(`\u00e9`, 500) + `"}`,
	`{"query":"` + strings.Repeat(`\u00e9`, 501) + `"}`,
	`{"query":"` + strings.Repeat(`\ud83d\ude00`, 501) + `"}`,
	`{"query":"x\ufeff"}`,
	`{"query":"\u009f"}`,
	`{"query":"x","cursor":"\u0000"}`,
	`{"query":"x","cursor":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`,
	`{"query":"x","limit":1e1000000000}`,
	"{\"query\":\"\xff\"}",
}

// The discovery tool's served input schema is the schema its arguments are read with:
// every argument text the served schema accepts, the tool accepts, and every one it
// refuses, the tool refuses (invalid_params), _meta and control characters included.
// SPEC DISC-1, DISC-2, PLAN-1
func TestToolSchemaIsEnforced(t *testing.T) {
	v := toolSchemaValidator(t)
	for _, args := range toolArgCases {
		checkToolSchemaEnforced(t, v, []byte(args))
	}
}

// SPEC DISC-1, DISC-2
func FuzzToolSchemaIsEnforced(f *testing.F) {
	for _, args := range toolArgCases {
		f.Add([]byte(args))
	}
	v := toolSchemaValidator(f)
	f.Fuzz(func(t *testing.T, args []byte) {
		checkToolSchemaEnforced(t, v, args)
	})
}

// The discover method's params refuse a lone or reversed surrogate escape in query or
// cursor as the discovery tool's arguments do (invalid_params): such a query was
// decoded as U+FFFD and searched. _meta, which the method allows and ignores, may hold
// one.
// SPEC DISC-1, DISC-2
func TestParamsRefuseLoneSurrogates(t *testing.T) {
	for _, args := range []string{`{"query":"\ud800"}`, `{"query":"a\udc00b"}`, `{"query":"x","cursor":"\udbff"}`} {
		for _, meta := range []bool{false, true} {
			if _, err := parseParams([]byte(args), meta); !errors.Is(err, CodeInvalidParams) {
				t.Errorf("parseParams(%s, meta %v) = %v, want invalid_params", args, meta, err)
			}
		}
	}
	if req, err := parseParams([]byte(`{"query":"\ud83d\ude00 x","_meta":{"k":"\ud800"}}`), true); err != nil || req.Query != "😀 x" {
		t.Errorf("a surrogate pair in query, a lone one in _meta: (%q, %v), want the query decoded", req.Query, err)
	}
}

// An empty cursor asks for the first page, as no cursor does, on the method and the
// tool alike: models and generated clients fill optional strings with "", and no cursor
// this library issues is empty, so "" can be no other cursor. SPEC DISC-1, CURSOR-2
func TestEmptyCursorIsFirstPage(t *testing.T) {
	for _, meta := range []bool{true, false} {
		for _, args := range []string{`{"query":"model","cursor":""}`, `{"query":"model"}`} {
			req, err := parseParams([]byte(args), meta)
			if err != nil || req.Cursor != "" {
				t.Errorf("meta allowed %v: %s read as cursor %q, %v; want a first page", meta, args, req.Cursor, err)
			}
		}
	}
}
