package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/internal/cputime"
	ours "github.com/deferredtools/deferredtools/validate"
	google "github.com/google/jsonschema-go/jsonschema"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
)

const sharedData = "../../../shared/data"

// validator is one library's decode+validate of raw argument bytes.
type validator func(args []byte) error

func compileOurs(schema []byte) (validator, error) {
	v, err := ours.NewCompiler(&ours.Options{Annotations: ours.AnnotationKeywords}).Compile(schema)
	if err != nil {
		return nil, err
	}
	return v.Validate, nil
}

func compileSanthosh(schema []byte) (validator, error) {
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := santhosh.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		return nil, err
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		return nil, err
	}
	return func(args []byte) error {
		inst, err := santhosh.UnmarshalJSON(bytes.NewReader(args))
		if err != nil {
			return err
		}
		return s.Validate(inst)
	}, nil
}

func compileGoogle(schema []byte) (validator, error) {
	var s google.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return func(args []byte) error {
		var inst any
		if err := json.Unmarshal(args, &inst); err != nil {
			return err
		}
		return rs.Validate(inst)
	}, nil
}

var libs = []struct {
	name    string
	compile func([]byte) (validator, error)
}{
	{"ours", compileOurs},
	{"santhosh", compileSanthosh},
	{"google", compileGoogle},
}

// benchCase is a set of (schema, arguments) pairs validated once per op.
type benchCase struct {
	name    string
	schemas [][]byte
	args    [][]byte
}

func tenProp(tb testing.TB) benchCase {
	schema, err := os.ReadFile("../../validate/testdata/tenprop.schema.json")
	if err != nil {
		tb.Fatal(err)
	}
	args, err := os.ReadFile("../../validate/testdata/tenprop.args.json")
	if err != nil {
		tb.Fatal(err)
	}
	return benchCase{name: "tenprop", schemas: [][]byte{schema}, args: [][]byte{args}}
}

type tool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// catalogCases builds one case per real catalog: every tool all three libraries
// compile, with a generated instance all three accept.
func catalogCases(tb testing.TB) (cases []benchCase, report []string) {
	if _, err := os.Stat(sharedData); err != nil {
		return nil, []string{"shared data absent: catalog cases skipped"}
	}
	files, _ := filepath.Glob(filepath.Join(sharedData, "catalogs/*.json"))
	if len(files) == 0 {
		tb.Fatalf("shared data present but no catalogs/*.json")
	}
	sort.Strings(files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if strings.HasSuffix(name, "-default") || strings.HasSuffix(name, "-namespace") {
			continue // subsets of another catalog
		}
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var tools []tool
		if err := json.Unmarshal(b, &tools); err != nil {
			tb.Fatal(err)
		}
		c := benchCase{name: "catalog-" + name}
		var skipped []string
	tools:
		for _, t := range tools {
			inst, ok := instanceFor(t.InputSchema)
			if !ok {
				skipped = append(skipped, t.Name+" (no instance)")
				continue
			}
			for _, l := range libs {
				v, err := l.compile(t.InputSchema)
				if err != nil {
					skipped = append(skipped, t.Name+" ("+l.name+" compile)")
					continue tools
				}
				if err := v(inst); err != nil {
					skipped = append(skipped, t.Name+" ("+l.name+" rejects the instance)")
					continue tools
				}
			}
			c.schemas = append(c.schemas, t.InputSchema)
			c.args = append(c.args, inst)
		}
		report = append(report, fmt.Sprintf("%s: %d of %d tools benchmarked; skipped %v", name, len(c.args), len(tools), skipped))
		if len(c.args) > 0 {
			cases = append(cases, c)
		}
	}
	return cases, report
}

// instanceFor generates a valid-looking instance for a schema: every declared
// property, the first enum value, the first type, bounds and lengths respected, and a
// string matching the pattern from a short candidate list. The caller checks it.
func instanceFor(schema []byte) ([]byte, bool) {
	var s any
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, false
	}
	v, ok := gen(s, 0)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(v)
	return b, err == nil
}

var formatExamples = map[string]string{
	"uri": "https://example.com/a", "uri-reference": "/a", "url": "https://example.com/a",
	"date-time": "2024-01-01T00:00:00Z", "date": "2024-01-01", "time": "00:00:00Z",
	"email": "user@example.com", "uuid": "123e4567-e89b-12d3-a456-426614174000",
	"hostname": "example.com", "ipv4": "192.0.2.1",
}

var candidates = []string{"example", "abc", "main", "octocat/hello-world", "a1", "2024-01-01", "2024-01-01T00:00:00Z", "https://example.com", "user@example.com", "12345", "ABC", "x", "a-b", "v1.0.0"}

func gen(s any, depth int) (any, bool) {
	m, ok := s.(map[string]any)
	if !ok || depth > 12 {
		return nil, s != false
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0], true
	}
	if c, ok := m["const"]; ok {
		return c, true
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if bs, ok := m[k].([]any); ok && len(bs) > 0 {
			return gen(bs[0], depth+1)
		}
	}
	typ := ""
	switch t := m["type"].(type) {
	case string:
		typ = t
	case []any:
		for _, x := range t {
			if x != "null" {
				typ, _ = x.(string)
				break
			}
		}
	}
	if typ == "" {
		if _, ok := m["properties"]; ok {
			typ = "object"
		}
	}
	num := func(def float64) float64 {
		v := def
		if x, ok := m["minimum"].(float64); ok && v < x {
			v = x
		}
		if x, ok := m["exclusiveMinimum"].(float64); ok && v <= x {
			v = x + 1
		}
		if x, ok := m["maximum"].(float64); ok && v > x {
			v = x
		}
		if x, ok := m["exclusiveMaximum"].(float64); ok && v >= x {
			v = x - 1
		}
		return v
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		for name, ps := range props {
			if v, ok := gen(ps, depth+1); ok {
				out[name] = v
			}
		}
		return out, true
	case "array":
		n := 1
		if x, ok := m["minItems"].(float64); ok && int(x) > n {
			n = int(x)
		}
		if x, ok := m["maxItems"].(float64); ok && int(x) < n {
			n = int(x)
		}
		out := []any{}
		for i := 0; i < n; i++ {
			v, ok := gen(m["items"], depth+1)
			if !ok {
				return nil, false
			}
			if i > 0 {
				if sv, ok := v.(string); ok {
					v = fmt.Sprintf("%s%d", sv, i)
				}
			}
			out = append(out, v)
		}
		return out, true
	case "integer":
		return int(num(1)), true
	case "number":
		return num(1.5), true
	case "boolean":
		return true, true
	case "null":
		return nil, true
	case "string", "":
		str := "example"
		if f, ok := m["format"].(string); ok {
			if v, ok := formatExamples[f]; ok {
				str = v
			}
		}
		if p, ok := m["pattern"].(string); ok {
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, false
			}
			found := false
			for _, c := range candidates {
				if re.MatchString(c) {
					str, found = c, true
					break
				}
			}
			if !found {
				return nil, false
			}
		}
		if x, ok := m["minLength"].(float64); ok && len(str) < int(x) {
			str += strings.Repeat("a", int(x)-len(str))
		}
		if x, ok := m["maxLength"].(float64); ok && len(str) > int(x) {
			str = str[:int(x)]
		}
		return str, true
	}
	return nil, true
}

// TestCasesValid checks every library accepts every benchmark case, so the benchmark
// measures the valid path of all three, and logs which catalog tools are left out.
func TestCasesValid(t *testing.T) {
	cases, report := catalogCases(t)
	for _, r := range report {
		t.Log(r)
	}
	cases = append(cases, tenProp(t))
	for _, c := range cases {
		for _, l := range libs {
			for i := range c.schemas {
				v, err := l.compile(c.schemas[i])
				if err != nil {
					t.Fatalf("%s %s: compile: %v", c.name, l.name, err)
				}
				if err := v(c.args[i]); err != nil {
					t.Errorf("%s %s: instance %d invalid: %v", c.name, l.name, i, err)
				}
			}
		}
	}
	// Our validator must also reject what the peers reject on the ten-property case.
	bad := bytes.Replace(tenProp(t).args[0], []byte(`"version":42`), []byte(`"version":1001`), 1)
	for _, l := range libs {
		v, _ := l.compile(tenProp(t).schemas[0])
		if v(bad) == nil {
			t.Errorf("%s accepts version 1001", l.name)
		}
	}
}

// compileCase compiles every schema of c with the library lib, failing tb on an error.
func compileCase(tb testing.TB, lib string, compile func([]byte) (validator, error), c benchCase) []validator {
	tb.Helper()
	vs := make([]validator, len(c.schemas))
	for i, s := range c.schemas {
		v, err := compile(s)
		if err != nil {
			tb.Fatalf("%s %s: %v", lib, c.name, err)
		}
		vs[i] = v
	}
	return vs
}

// BenchmarkValidate measures decode+validate from raw argument bytes for each library
// (lib=ours|santhosh|google) on the ten-property object and on every benchmarked tool
// of each real catalog (one op validates each tool's instance once).
//
// SPEC PERF-3
func BenchmarkValidate(b *testing.B) {
	cases := []benchCase{tenProp(b)}
	cat, _ := catalogCases(b)
	cases = append(cases, cat...)
	// Cases outside, libraries inside: the three runs of a case are close in time, so
	// they see the same machine load.
	for _, c := range cases {
		for _, l := range libs {
			vs := compileCase(b, l.name, l.compile, c)
			b.Run("lib="+l.name+"/case="+c.name, func(b *testing.B) {
				b.ReportAllocs()
				stop := cputime.Report(b)
				for b.Loop() {
					for i, v := range vs {
						if err := v(c.args[i]); err != nil {
							b.Fatal(err)
						}
					}
				}
				stop()
			})
		}
	}
}
