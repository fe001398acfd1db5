package main

import (
	"bytes"
	"github.com/deferredtools/deferredtools/internal/dbtest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickstart runs the quickstart and checks that each section shows what a person
// should see: the refusals with their codes and statuses, and the second page.
func TestQuickstart(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf, nil); err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	checkOutput(t, buf.String())
	if strings.Contains(buf.String(), "== Grant store") {
		t.Errorf("the in-memory run shows a grant store section:\n%s", buf.String())
	}
}

// checkOutput checks the lines every run of the walk-through prints.
func checkOutput(t *testing.T, out string) {
	t.Helper()
	// Columns are padded for people; compare with runs of spaces folded to one.
	got := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"alice sees ",
		"page 2: ",
		"alice calls deployments_scale -> allowed",
		"bob calls deployments_get_logs -> tool_not_granted (403)",
		"bob calls deployments_scale -> tool_not_granted (403)",
		"alice calls no_such_tool -> tool_not_granted (403)",
		`-> invalid_arguments (400): minimum at "/min_replicas"`,
		"alice calls models_get -> invalid_arguments (400): additionalProperties at the top level",
		"page 2 with the old cursor -> invalid_cursor (400)",
		"a call pinned to alice's old digest -> contract_changed (409)",
		`"error":{"code":-32602,"message":"invalid_params"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("quickstart output lacks %q\n--- output:\n%s", want, got)
		}
	}
	if strings.Contains(sectionOf(out, "The same words for bob"), "deployments_get_logs") {
		t.Errorf("bob's discovery shows a tool he is denied:\n%s", got)
	}
}

func sectionOf(out, title string) string {
	i := strings.Index(out, title)
	if i < 0 {
		return ""
	}
	rest := out[i:]
	if j := strings.Index(rest[1:], "\n== "); j >= 0 {
		return rest[:j+1]
	}
	return rest
}

// withoutStoreSection drops the "Grant store" section a run with -db prints first,
// failing the test when it is missing.
func withoutStoreSection(t *testing.T, out string) string {
	t.Helper()
	s := sectionOf(out, "== Grant store")
	if !strings.Contains(s, "migration 0018 applied") {
		t.Fatalf("no grant store section:\n%s", out)
	}
	return strings.Replace(out, "\n"+s, "", 1)
}

// memoryOutput is the output of the in-memory run.
func memoryOutput(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	if err := run(&buf, nil); err != nil {
		t.Fatalf("run: %v", err)
	}
	return buf.String()
}

// SPEC GRANT-3, GRANT-4: -db sqlite:FILE migrates a new database seeded with the demo's
// "*" rows and writes the principals' rows; the walk-through then prints exactly what
// it prints in memory. Run again on the same file (where the walk-through's own grant
// change is stored), it prints the same again.
func TestQuickstartSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	want := memoryOutput(t)
	for i := range 2 {
		var buf bytes.Buffer
		if err := run(&buf, []string{"-db", "sqlite:" + path}); err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, buf.String())
		}
		checkOutput(t, buf.String())
		if got := withoutStoreSection(t, buf.String()); got != want {
			t.Errorf("run %d on SQLite differs from the in-memory run:\n--- sqlite:\n%s\n--- memory:\n%s", i+1, got, want)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database file: %v", err)
	}
}

// SPEC GRANT-3, GRANT-4: -db postgres:URL does the same on PostgreSQL, when
// DEFERRED_TOOLS_TEST_POSTGRES names a server (in a schema of its own).
func TestQuickstartPostgres(t *testing.T) {
	dsn := os.Getenv(dbtest.PostgresEnv)
	if dsn != "" && !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		t.Skip("PostgreSQL skipped: this test needs DEFERRED_TOOLS_TEST_POSTGRES as a postgres:// URL")
	}
	url := dbtest.PostgresDSN(t)
	want := memoryOutput(t)
	for i, spec := range []string{"postgres:" + url, url} {
		var buf bytes.Buffer
		if err := run(&buf, []string{"-db", spec}); err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, buf.String())
		}
		if got := withoutStoreSection(t, buf.String()); got != want {
			t.Errorf("run %d on PostgreSQL differs from the in-memory run:\n--- postgres:\n%s\n--- memory:\n%s", i+1, got, want)
		}
	}
}

// Bad -db values are refused before anything runs.
func TestQuickstartBadDB(t *testing.T) {
	for _, spec := range []string{"mysql:x", "sqlite:", "postgres:", "sqlite:a?b.db"} {
		t.Run(spec, func(t *testing.T) {
			var buf bytes.Buffer
			if err := run(&buf, []string{"-db", spec}); err == nil || !strings.HasPrefix(err.Error(), "quickstart: ") {
				t.Errorf("-db %q: error %v, want a quickstart: error", spec, err)
			}
			if buf.Len() != 0 {
				t.Errorf("-db %q: printed %q", spec, buf.String())
			}
		})
	}
}
