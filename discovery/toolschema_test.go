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
// argument reader disagree on args.
func checkToolSchemaEnforced(t *testing.T, v validate.Validator, args []byte) {
	t.Helper()
	verr := v.Validate(args)
	if verr != nil && !errors.Is(verr, validate.ErrInvalid) {
		t.Fatalf("Validate(%q) = %v, want nil or ErrInvalid", args, verr)
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
