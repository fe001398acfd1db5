package validate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sharedData = "../../shared/data"

// suiteGroup is one group of the official JSON Schema Test Suite.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

func loadSuite(t *testing.T, glob string) map[string][]suiteGroup {
	t.Helper()
	if _, err := os.Stat(sharedData); err != nil {
		t.Skipf("shared data folder %s absent: skipping the JSON Schema Test Suite", sharedData)
	}
	files, err := filepath.Glob(filepath.Join(sharedData, "json-schema-test-suite/tests/draft2020-12", glob))
	if err != nil || len(files) == 0 {
		t.Fatalf("shared data present but no draft2020-12 suite files match %s (err %v)", glob, err)
	}
	out := map[string][]suiteGroup{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var gs []suiteGroup
		if err := json.Unmarshal(b, &gs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = gs
	}
	return out
}

// TestSuite runs the official draft 2020-12 suite: every group whose schema uses only
// the CALL-3 subset plus the documented annotations must agree with the suite on every
// case; every other group must be refused as unsupported at compile time.
//
// SPEC CALL-2
// SPEC CALL-3
// SPEC CALL-4
func TestSuite(t *testing.T) {
	runSuite(t, "*.json")
}

// TestSuiteOptional runs the suite's optional draft 2020-12 files (not the format
// folder): bignum.json shows numbers compared exactly, ecmascript-regex.json and
// non-bmp-regex.json the ECMA-262 pattern translation.
//
// SPEC CALL-3
// SPEC CALL-8
func TestSuiteOptional(t *testing.T) {
	runSuite(t, "optional/*.json")
}

func runSuite(t *testing.T, glob string) {
	suite := loadSuite(t, glob)
	c := NewCompiler(&Options{Annotations: AnnotationKeywords})
	var groups, agreed, unsupported, cases int
	for file, gs := range suite {
		for _, g := range gs {
			groups++
			v, err := c.Compile(g.Schema)
			if err != nil {
				var ue *UnsupportedError
				if !errors.As(err, &ue) {
					t.Errorf("%s/%s: Compile error %v, want an *UnsupportedError", file, g.Description, err)
					continue
				}
				if supportedKeyword(ue.Keyword) {
					t.Errorf("%s/%s: refused for supported keyword %q", file, g.Description, ue.Keyword)
				}
				unsupported++
				continue
			}
			ok := true
			for _, tc := range g.Tests {
				cases++
				name := file + "/" + g.Description + "/" + tc.Description
				err := v.Validate(tc.Data)
				if err != nil && !errors.Is(err, ErrInvalid) {
					t.Errorf("%s: Validate = %v, want a verdict", name, err)
					ok = false
					continue
				}
				if got := err == nil; got != tc.Valid {
					t.Errorf("%s: valid = %v, suite says %v (err %v)", name, got, tc.Valid, err)
					ok = false
				}
			}
			if ok {
				agreed++
			}
		}
	}
	t.Logf("JSON Schema Test Suite draft2020-12/%s: %d groups: %d run and agreed on every case (%d cases), %d unsupported",
		glob, groups, agreed, cases, unsupported)
	if agreed+unsupported != groups {
		t.Errorf("groups: %d agreed + %d unsupported != %d", agreed, unsupported, groups)
	}
}

func supportedKeyword(kw string) bool {
	switch kw {
	case "", "$schema", "items": // "" is malformed or unknown; $schema with another draft; items as an array
		return false
	}
	for _, k := range strings.Fields("type required properties additionalProperties minLength maxLength pattern enum minimum maximum exclusiveMinimum exclusiveMaximum minItems maxItems uniqueItems anyOf oneOf description default") {
		if k == kw {
			return true
		}
	}
	return false
}
