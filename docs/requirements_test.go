// Package docs holds the project's prose documentation (requirements.md, scale.md,
// perf/) and the tests of all prose: every requirement ID a test cites resolves in
// requirements.md; the README's and package docs' code blocks are the code they name,
// compiled and run; relative links resolve; the package tables of DESIGN.md and the
// README match go list; and the core packages import only the allowed modules, their
// tests no heavy one.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// requirementID matches an ID of the register's families anywhere, and any ID written
// right after "SPEC ", so that a citation of a family the register lacks is caught too.
var requirementID = regexp.MustCompile(`\b(FLAG|DISC|PAGE|CONTRACT|GRANT|CALL|CURSOR|ERR|PLAN|VIS|PERF)-[0-9]+\b|\bSPEC [A-Z]+-[0-9]+\b`)

// TestRequirementCitationsResolve fails when a test file anywhere in the repository
// cites a requirement ID that docs/requirements.md does not define.
func TestRequirementCitationsResolve(t *testing.T) {
	text, err := os.ReadFile("requirements.md")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, line := range strings.Split(string(text), "\n") {
		if id, ok := strings.CutPrefix(line, "- **"); ok {
			id, _, _ = strings.Cut(id, "**")
			defined[id] = true
		}
	}
	if len(defined) < 50 {
		t.Fatalf("requirements.md defines %d IDs; want the whole register (over 50)", len(defined))
	}
	cited := map[string]string{} // ID -> first file citing it
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, id := range requirementID.FindAllString(string(b), -1) {
			id = strings.TrimPrefix(id, "SPEC ")
			if _, ok := cited[id]; !ok {
				cited[id] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cited) == 0 {
		t.Fatal("no test cites a requirement: the walk found nothing")
	}
	for id, path := range cited {
		if !defined[id] {
			t.Errorf("%s cites %s, which docs/requirements.md does not define", path, id)
		}
	}
}
