package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

type catalogTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func loadCatalogs(t testing.TB) map[string][]catalogTool {
	t.Helper()
	if _, err := os.Stat(sharedData); err != nil {
		t.Skipf("shared data folder %s absent: skipping the real catalogs", sharedData)
	}
	files, err := filepath.Glob(filepath.Join(sharedData, "catalogs/*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("shared data present but no catalogs/*.json found (err %v)", err)
	}
	out := map[string][]catalogTool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tools []catalogTool
		if err := json.Unmarshal(b, &tools); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = tools
	}
	return out
}

// TestCatalogs compiles every tool of the real catalogs under the strict subset and
// with the documented annotation option, logs the table, and asserts the counts
// measured when this test was written. A refusal must be ErrUnsupported, never a limit
// or a crash.
//
// SPEC CALL-3
// SPEC CALL-4
func TestCatalogs(t *testing.T) {
	want := map[string][3]int{ // tools, strict, with annotations (see also fullWant)
		"azure":              {235, 235, 235},
		"azure-namespace":    {61, 61, 61},
		"github":             {117, 117, 117},
		"gitlab":             {216, 211, 211}, // allOf in 5 tools
		"gitlab-default":     {116, 116, 116},
		"mcp-reference":      {37, 0, 37}, // $schema (draft-07) and format
		"notion":             {24, 0, 0},  // $defs/$ref in every tool
		"playwright":         {69, 0, 68}, // $schema on every tool; propertyNames in one
		"playwright-default": {24, 0, 23},
	}
	// The full validator (SPEC CALL-7) compiles every tool of every catalog.
	cats := loadCatalogs(t)
	full := NewFull(nil)
	strict := NewCompiler(nil)
	annot := NewCompiler(&Options{Annotations: AnnotationKeywords})
	names := make([]string, 0, len(cats))
	for n := range cats {
		names = append(names, n)
	}
	sort.Strings(names)
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-20s %6s %8s %12s %6s  %s\n", "catalog", "tools", "strict", "annotations", "full", "refused by (with annotations)")
	for _, name := range names {
		tools := cats[name]
		var nStrict, nAnnot, nFull int
		reasons := map[string]int{}
		for _, tool := range tools {
			if _, err := full.Compile(tool.InputSchema); err == nil {
				nFull++
			} else {
				t.Errorf("%s/%s: NewFull Compile = %v", name, tool.Name, err)
			}
			if _, err := strict.Compile(tool.InputSchema); err == nil {
				nStrict++
			} else if !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s/%s: strict Compile = %v, want nil or ErrUnsupported", name, tool.Name, err)
			}
			_, err := annot.Compile(tool.InputSchema)
			if err == nil {
				nAnnot++
				continue
			}
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Errorf("%s/%s: Compile = %v, want nil or an *UnsupportedError", name, tool.Name, err)
				continue
			}
			kw := ue.Keyword
			if kw == "" {
				kw = "(malformed/unknown)"
			}
			reasons[kw]++
		}
		var rs []string
		for k, n := range reasons {
			rs = append(rs, fmt.Sprintf("%s×%d", k, n))
		}
		sort.Strings(rs)
		fmt.Fprintf(&table, "%-20s %6d %8d %12d %6d  %s\n", name, len(tools), nStrict, nAnnot, nFull, strings.Join(rs, " "))
		if w, ok := want[name]; ok && (w != [3]int{len(tools), nStrict, nAnnot}) {
			t.Errorf("%s: tools, strict, annotations = %d, %d, %d; want %v", name, len(tools), nStrict, nAnnot, w)
		}
	}
	t.Log(table.String())
}
