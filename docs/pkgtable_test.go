package docs

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

const modulePath = "github.com/deferredtools/deferredtools/"

// packageImports returns, for every package of the module (relative to its root), the
// module's packages it imports (tests left out), as `go list ./...` reports them.
func packageImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \",\"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, "|")
		var own []string
		for _, im := range strings.Split(imports, ",") {
			if rel, ok := strings.CutPrefix(im, modulePath); ok {
				own = append(own, rel)
			}
		}
		pkgs[strings.TrimPrefix(pkg, modulePath)] = own
	}
	if len(pkgs) < 30 {
		t.Fatalf("go list listed %d packages: the check would prove nothing", len(pkgs))
	}
	return pkgs
}

// tableRows returns, row by row, the packages the first cell of each row of the
// Markdown table that follows heading in text names in backquotes (a "dir/..." cell
// stands for every package under dir).
func tableRows(text, heading string) [][]string {
	_, sec, _ := strings.Cut(lf(text), "\n"+heading+"\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	name := regexp.MustCompile("`([a-z][a-z0-9/._]*)`")
	var rows [][]string
	for _, line := range strings.Split(sec, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 || strings.HasPrefix(cells[1], " package") {
			continue
		}
		var row []string
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			row = append(row, m[1])
		}
		rows = append(rows, row)
	}
	return rows
}

// rowOf returns the row of rows naming pkg, or -1.
func rowOf(rows [][]string, pkg string) int {
	for i, row := range rows {
		for _, p := range row {
			if p == pkg || strings.HasSuffix(p, "/...") && strings.HasPrefix(pkg, strings.TrimSuffix(p, "...")) {
				return i
			}
		}
	}
	return -1
}

// importProblems says which package of pkgs a table of rows does not name (when all is
// set) and which imports a package listed below it: "imports point down" the table,
// so a package imports only packages of the rows above its own.
func importProblems(name string, rows [][]string, pkgs map[string][]string, all bool) (problems []string) {
	for pkg, imports := range pkgs {
		at := rowOf(rows, pkg)
		if at < 0 {
			if all {
				problems = append(problems, name+" does not name package "+pkg)
			}
			continue
		}
		for _, im := range imports {
			if r := rowOf(rows, im); r > at || r == at && !strings.HasSuffix(rows[at][0], "/...") {
				problems = append(problems, name+": "+pkg+" imports "+im+", which is not above it")
			}
		}
	}
	return problems
}

// DESIGN's package table names every package folder of the module, and each package
// imports only packages of the rows above its own, as its first line says; the
// README's table of public packages (the library's and its commands) keeps the same
// order, and names every package a user imports or runs.
func TestPackageTablesMatchImports(t *testing.T) {
	pkgs := packageImports(t)
	design, err := readRepo("DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := readRepo("README.md")
	if err != nil {
		t.Fatal(err)
	}
	designRows, readmeRows := tableRows(string(design), "## Packages"), tableRows(string(readme), "## Packages")
	if len(designRows) < 20 || len(readmeRows) < 15 {
		t.Fatalf("read %d rows of DESIGN's table, %d of the README's: the tables moved", len(designRows), len(readmeRows))
	}
	problems := importProblems("DESIGN.md", designRows, pkgs, true)
	problems = append(problems, importProblems("README.md", readmeRows, pkgs, false)...)
	for pkg := range pkgs {
		if rowOf(readmeRows, pkg) < 0 && !strings.Contains(pkg, "internal") && pkg != "docs" && pkg != "discovery/storetests" {
			problems = append(problems, "README.md's Packages does not name "+pkg)
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// The check reports a package missing from a table and an import of a package listed
// below the importer.
func TestImportProblemsFindsBreaks(t *testing.T) {
	rows := [][]string{{"low"}, {"mid"}, {"examples/..."}}
	pkgs := map[string][]string{"low": {"mid"}, "mid": {"low"}, "examples/a": {"examples/b", "mid"}, "examples/b": nil, "extra": nil}
	got := strings.Join(importProblems("T", rows, pkgs, true), "\n")
	for _, want := range []string{"T: low imports mid", "T does not name package extra"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "mid imports") || strings.Contains(got, "examples/a") {
		t.Errorf("problems %q report an import that points down", got)
	}
}
