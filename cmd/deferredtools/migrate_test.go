package main

import (
	"strings"
	"testing"
)

// SPEC GRANT-4, GRANT-6: migrate over a database whose revision trigger was dropped
// (and a grant revoked by plain SQL meanwhile, uncounted) exits 1 every time with one
// line naming migrate -repair, while reads fail closed; migrate -repair recreates the
// triggers, says so and reaches the schema's level; then migrate is content, reads see
// the revocation and writes count. (migrate printed "schema at 0023" and exited 0.)
func TestMigrateRepair(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			db, raw := tg.db(t)
			if out := ok(t, "migrate", "-repair", "-db", db); strings.Contains(out, "repaired") || !strings.HasSuffix(out, "schema at 0023_trigger_search_path\n") {
				t.Errorf("migrate -repair of a new database printed %q, want the migrations applied and no repair", out)
			}
			ok(t, "grants", "allow", "-db", db, "-principal", "alice", "-tool", "t")
			ok(t, "grants", "allow", "-db", db, "-principal", "*", "-tool", "u")
			drop := "DROP TRIGGER tool_grants_delete"
			if tg.name == "postgres" {
				drop = "DROP TRIGGER tool_grants_revise ON tool_grants"
			}
			for _, q := range []string{drop, "DELETE FROM tool_grants WHERE principal_id = 'alice'"} {
				if _, err := raw.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			for range 2 {
				refused(t, "run deferredtools migrate -repair", "migrate", "-db", db)
			}
			if r := cli(t, "grants", "check", "-db", db, "-principal", "alice", "-tool", "t"); r.code != 1 || r.stdout != "" {
				t.Errorf("GRANT-6: check with a trigger missing = exit %d, stdout %q; want exit 1, nothing printed", r.code, r.stdout)
			} else if !strings.Contains(r.stderr, "run deferredtools migrate -repair") {
				t.Errorf("check with a trigger missing said %q; want the way out: migrate -repair", r.stderr)
			}
			if out := ok(t, "migrate", "-repair", "-db", db); out != "repaired the revision triggers; every cached grant is read again\nschema at 0023_trigger_search_path\n" {
				t.Errorf("migrate -repair printed %q", out)
			}
			if out := ok(t, "migrate", "-db", db); out != "schema at 0023_trigger_search_path\n" {
				t.Errorf("migrate after the repair printed %q", out)
			}
			// The repair raised the control revision from 3 to 4.
			if out := ok(t, "grants", "check", "-db", db, "-principal", "alice", "-tool", "t"); out != "revision 4\nt\tdenied\tno row\n" {
				t.Errorf("GRANT-6: check after the repair printed %q, want alice's revoked grant gone", out)
			}
			if out := ok(t, "grants", "check", "-db", db, "-principal", "bob", "-tool", "u"); out != "revision 4\nu\tgranted\t*\tu\tallow\t-\t3\n" {
				t.Errorf("check after the repair printed %q", out)
			}
			if out := ok(t, "grants", "allow", "-db", db, "-principal", "alice", "-tool", "v"); out != "revision 5\n" {
				t.Errorf("GRANT-4: allow after the repair printed %q, want revision 5", out)
			}
			if out := ok(t, "grants", "list", "-db", db, "-principal", "alice"); out != "revision 5\nalice\tv\tallow\t-\t5\n" {
				t.Errorf("list after the repair printed %q", out)
			}
		})
	}
}
