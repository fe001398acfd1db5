package validate

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
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

// TestFullRefusesCaseVariants: google/jsonschema-go decodes a schema with
// encoding/json, whose struct matching ignores case, so "MaxLength", "TYPE" or
// "propertieſ" (long s) would be enforced as keywords while any other reader sees an
// unknown member, and "$REF":"#" would recurse until the stack overflows. NewFull
// refuses a member that differs from a keyword the library reads only by case, at
// every schema position, but not as a property or definition name.
//
// SPEC CALL-7
// SPEC CALL-4
func TestFullRefusesCaseVariants(t *testing.T) {
	tests := []struct {
		name, schema, args, want string
	}{
		{"Type", `{"Type":"string"}`, `1`, "unsupported"},
		{"MaxLength", `{"MaxLength":2}`, `"abc"`, "unsupported"},
		{"MAXLENGTH beside maxLength", `{"maxLength":5,"MAXLENGTH":1}`, `"abc"`, "unsupported"},
		{"long s folds to s", `{"propertieſ":{"a":{"type":"string"}}}`, `{"a":1}`, "unsupported"},
		{"$REF to the root", `{"$REF":"#"}`, `1`, "unsupported"},
		{"Items, a keyword read through a wrapper field", `{"Items":{"type":"string"}}`, `[1]`, "unsupported"},
		{"nested under properties", `{"properties":{"a":{"Minimum":3}}}`, `{"a":1}`, "unsupported"},
		{"nested under items", `{"items":{"ENUM":[1]}}`, `[2]`, "unsupported"},
		{"nested under anyOf", `{"anyOf":[{"Const":1}]}`, `2`, "unsupported"},
		{"nested under $defs", `{"$defs":{"d":{"Pattern":"^a"}},"$ref":"#/$defs/d"}`, `"b"`, "unsupported"},
		{"nested under not", `{"not":{"Type":"string"}}`, `"s"`, "unsupported"},
		// Names in name positions are data, not keywords.
		{"property named Type", `{"properties":{"Type":{"type":"string"}}}`, `{"Type":1}`, "invalid:type"},
		{"property named MaxLength", `{"properties":{"MaxLength":{"type":"integer"}},"required":["MaxLength"]}`, `{"MaxLength":1}`, "ok"},
		{"patternProperties key", `{"patternProperties":{"Items":{"type":"string"}}}`, `{"Items":"x"}`, "ok"},
		{"$defs name", `{"$defs":{"Type":{"type":"string"}},"$ref":"#/$defs/Type"}`, `1`, "invalid:type"},
		{"definitions name", `{"definitions":{"Enum":{"type":"string"}}}`, `1`, "ok"},
		{"dependentSchemas name", `{"dependentSchemas":{"Const":{"required":["b"]}}}`, `{"Const":1}`, "invalid:required"},
		// Members that are no keyword in any case stay unknown, as before.
		{"max_length is no keyword", `{"max_length":1}`, `"abc"`, "ok"},
		{"x-Type is no keyword", `{"x-Type":"string"}`, `1`, "ok"},
	}
	c := NewFull(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := c.Compile([]byte(tt.schema))
			if err != nil {
				if got := verdict(err); got != tt.want {
					t.Errorf("NewFull.Compile(%s) = %v, want %s", tt.schema, err, tt.want)
				}
				return
			}
			if tt.want == "unsupported" {
				// Not validated: with "$REF":"#" that would overflow the stack.
				t.Fatalf("NewFull.Compile(%s) accepted a case variant of a keyword", tt.schema)
			}
			if got := verdict(v.Validate([]byte(tt.args))); got != tt.want {
				t.Errorf("NewFull.Compile(%s).Validate(%s) = %s, want %s", tt.schema, tt.args, got, tt.want)
			}
		})
	}
}

// TestFullRefusesDuplicateKeys: the schema text is scanned with the bounded
// validator's parser before the library decodes it, so a duplicate member (also one
// spelled with escapes, or inside a subschema) is refused rather than decided by
// encoding/json's last-one-wins.
//
// SPEC CALL-7
// SPEC CALL-8
func TestFullRefusesDuplicateKeys(t *testing.T) {
	for _, schema := range []string{
		`{"type":"string","type":"number"}`,
		`{"type":"string","\u0074ype":"number"}`,
		`{"properties":{"a":{"maxLength":1,"maxLength":9}}}`,
		`{"properties":{"a":true,"a":false}}`,
	} {
		t.Run(schema, func(t *testing.T) {
			if _, err := NewFull(nil).Compile([]byte(schema)); verdict(err) != "unsupported" {
				t.Errorf("NewFull.Compile(%s) = %v, want an *UnsupportedError", schema, err)
			}
		})
	}
}

// TestFullKeywordsCoverTheLibrary: fullKeywords lists every member name
// jsonschema.Schema decodes by its json tags, so a keyword a newer library version
// adds is also guarded against case variants.
func TestFullKeywordsCoverTheLibrary(t *testing.T) {
	typ := reflect.TypeFor[jsonschema.Schema]()
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		if !slices.Contains(fullKeywords, name) {
			t.Errorf("jsonschema.Schema field %s decodes %q, missing from fullKeywords", f.Name, name)
		}
	}
}
