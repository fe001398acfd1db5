package discovery_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
)

// SPEC ERR-1: Codes lists every Code constant the package declares, each once, so
// what is prepared per code (the observer's check, otelmetrics' series) misses none.
func TestCodesListsEveryConstant(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); ok && id.Name == "Code" {
				for _, lit := range v.Values {
					declared = append(declared, lit.(*ast.BasicLit).Value[1:len(lit.(*ast.BasicLit).Value)-1])
				}
			}
		}
	}
	var listed []string
	for _, c := range discovery.Codes() {
		listed = append(listed, string(c))
		if c.Status() == 0 {
			t.Errorf("%s has no HTTP status", c)
		}
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if len(declared) < 20 || !slices.Equal(declared, listed) {
		t.Errorf("Codes() = %q\nerrors.go declares %q", listed, declared)
	}
}
