package validate

import (
	"errors"
	"strings"
	"testing"
)

// TestFull: the full validator covers draft 2020-12 beyond the subset, and still
// refuses what would crash or leak.
//
// SPEC CALL-7
// SPEC ERR-2
func TestFull(t *testing.T) {
	c := NewFull(nil)
	tests := []struct {
		schema, args, want string
	}{
		{`{"const":"x"}`, `"x"`, "ok"},
		{`{"const":"x"}`, `"CANARY"`, "invalid:const"},
		{`{"allOf":[{"minimum":1},{"maximum":3}]}`, `4`, "invalid:maximum"},
		{`{"properties":{"child":{"$ref":"#"}},"required":["id"]}`, `{"id":1,"child":{"id":2,"child":{"id":3}}}`, "ok"},
		{`{"properties":{"child":{"$ref":"#"}},"required":["id"]}`, `{"id":1,"child":{"child":{"id":3}}}`, "invalid:required"},
		{`{"$defs":{"n":{"type":"integer"}},"items":{"$ref":"#/$defs/n"}}`, `[1,"CANARY"]`, "invalid:type"},
		{`{"$id":"https://example.com/root","$defs":{"n":{"$anchor":"num","type":"number"}},"$ref":"#num"}`, `"s"`, "invalid:type"},
		{`{"type":"object"}`, ``, "ok"},
		{`{}`, `{"a":1,"a":2}`, "invalid"},
		{`{}`, `"\ud800"`, "invalid"},
		{`{}`, `1e999`, "limit"},
		{`{}`, strings.Repeat("[", 40) + strings.Repeat("]", 40), "limit"},
		{`{"$ref":"#"}`, ``, "unsupported"},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, ``, "unsupported"},
		{`{"not":{"$ref":"#"}}`, ``, "unsupported"},
		{`{"$ref":"https://example.com/remote.json"}`, ``, "unsupported"},
		{`{"$ref":"#/$defs/missing"}`, ``, "unsupported"},
		{`{"$schema":"https://example.com/CANARY"}`, ``, "unsupported"},
		{`{"pattern":"` + strings.Repeat("a", 513) + `"}`, ``, "limit"},
		{strings.Repeat(`{"items":`, 40) + `{}` + strings.Repeat(`}`, 40), ``, "limit"},
	}
	for _, tt := range tests {
		v, err := c.Compile([]byte(tt.schema))
		if err != nil {
			if got := verdict(err); got != tt.want {
				t.Errorf("NewFull.Compile(%.60s) = %v, want %s", tt.schema, err, tt.want)
			}
			if strings.Contains(err.Error(), "CANARY") {
				t.Errorf("error %q leaks schema text", err)
			}
			continue
		}
		err = v.Validate([]byte(tt.args))
		if got := verdict(err); got != tt.want {
			t.Errorf("NewFull.Compile(%.60s).Validate(%.40s) = %v (%s), want %s", tt.schema, tt.args, err, got, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "CANARY") {
			t.Errorf("error %q leaks argument text", err)
		}
	}
}

// TestFullAndBoundedAgreeOnTheSubset: a host picks either Compiler through the same
// interface.
//
// SPEC CALL-7
func TestFullAndBoundedAgreeOnTheSubset(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"],"additionalProperties":false}`
	for _, c := range []Compiler{NewCompiler(nil), NewFull(nil)} {
		v := mustCompile(t, c, schema)
		for args, want := range map[string]bool{`{"n":1}`: true, `{"n":0}`: false, `{}`: false, `{"n":1,"x":2}`: false} {
			if err := v.Validate([]byte(args)); (err == nil) != want || err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("%T: Validate(%s) = %v, want valid %v", c, args, err, want)
			}
		}
	}
}
