package docs

import (
	"os/exec"
	"strings"
	"testing"
)

// The core packages and their own tests import no database driver, no MCP SDK and no
// OpenTelemetry: `go mod tidy` in a module importing them loads their tests too, so
// one such import would make every importer download it (README, "Adapters and your
// module graph").
func TestCoreTestsImportNoHeavyModule(t *testing.T) {
	core := []string{"discovery", "discovery/wire", "grants", "grants/grantstest", "rank", "validate", "cursor", "schemaguard", "plan", "metatool", "safemode", "observe"}
	args := []string{"list", "-deps", "-test"}
	for _, p := range core {
		args = append(args, "github.com/deferredtools/deferredtools/"+p)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list listed %d packages: the check would prove nothing", len(deps))
	}
	for _, dep := range deps {
		for _, heavy := range []string{"modernc.org/", "github.com/jackc/", "github.com/modelcontextprotocol/", "github.com/mark3labs/", "go.opentelemetry.io/", "/grants/sqlstore", "/internal/dbtest"} {
			if strings.Contains(dep, heavy) {
				t.Errorf("a core package or its tests depends on %s", dep)
			}
		}
	}
}

// The core packages import only the standard library, github.com/google/jsonschema-go
// and golang.org/x/text (README, "Install"): an allowlist, where
// TestCoreTestsImportNoHeavyModule names what must never come in.
func TestCoreImportsOnlyAllowedModules(t *testing.T) {
	core := []string{"discovery", "discovery/wire", "grants", "grants/grantstest", "rank", "validate", "cursor", "schemaguard", "plan", "metatool", "safemode", "observe"}
	args := []string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}
	for _, p := range core {
		args = append(args, "github.com/deferredtools/deferredtools/"+p)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < len(core) {
		t.Fatalf("go list listed %d packages: the check would prove nothing", len(deps))
	}
	for _, dep := range deps {
		allowed := false
		for _, prefix := range []string{"github.com/deferredtools/deferredtools/", "github.com/google/jsonschema-go/", "golang.org/x/text/"} {
			allowed = allowed || strings.HasPrefix(dep+"/", prefix)
		}
		if !allowed {
			t.Errorf("a core package depends on %s, outside the standard library, jsonschema-go and x/text", dep)
		}
	}
}
