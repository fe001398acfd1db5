package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/grants"
)

// functionSurgeries are, on PostgreSQL, the ways of leaving a trigger or its function
// other than the migrations made it under the same names: the body replaced by one
// that counts nothing, the trigger recreated for fewer events or with a WHEN
// condition, the search_path reset (0023) or pointed elsewhere. None on SQLite, whose
// Migrate compares each trigger's whole SQL.
func functionSurgeries(b backend) []surgery {
	if b.dialect != Postgres {
		return nil
	}
	return []surgery{
		{"CREATE OR REPLACE FUNCTION tool_grants_revise counting nothing", func(t *testing.T, db *sql.DB) {
			execAll(t, db, countingNothing("tool_grants_revise"))
		}},
		{"tool_grants_revise recreated AFTER INSERT only", func(t *testing.T, db *sql.DB) {
			execAll(t, db, "DROP TRIGGER tool_grants_revise ON tool_grants",
				"CREATE TRIGGER tool_grants_revise AFTER INSERT ON tool_grants FOR EACH ROW EXECUTE FUNCTION tool_grants_revise()")
		}},
		{"tool_grants_revise recreated with a WHEN condition", func(t *testing.T, db *sql.DB) {
			execAll(t, db, "DROP TRIGGER tool_grants_revise ON tool_grants",
				`CREATE TRIGGER tool_grants_revise BEFORE INSERT OR UPDATE OR DELETE ON tool_grants
    FOR EACH ROW WHEN (pg_trigger_depth() > 5) EXECUTE FUNCTION tool_grants_revise()`)
		}},
		{"ALTER FUNCTION tool_grants_revise RESET search_path", func(t *testing.T, db *sql.DB) {
			execAll(t, db, "ALTER FUNCTION tool_grants_revise() RESET search_path")
		}},
		{"ALTER FUNCTION tool_grants_truncated SET search_path = public", func(t *testing.T, db *sql.DB) {
			execAll(t, db, "ALTER FUNCTION tool_grants_truncated() SET search_path = public")
		}},
	}
}

// schemaDefs lists what the migrations made on the store's tables, as the database
// holds it: every trigger (SQLite: its SQL; PostgreSQL: its definition, enabled state
// and function's definition, search_path included) and every index.
func schemaDefs(t *testing.T, db *sql.DB, d Dialect) []string {
	t.Helper()
	queries := []string{
		`SELECT type || ' ' || name || ' ' || tbl_name || ': ' || sql FROM sqlite_master
WHERE type IN ('trigger', 'index') AND sql IS NOT NULL ORDER BY type, name`,
	}
	if d == Postgres {
		queries = []string{
			`SELECT t.tgname || ' ' || t.tgenabled::text || ': ' || pg_get_triggerdef(t.oid) || ' ' || pg_get_functiondef(t.tgfoid)
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace ORDER BY t.tgname`,
			`SELECT indexname || ': ' || indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname`,
		}
	}
	var out []string
	for _, q := range queries {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// revisions reads the control revision and the tombstone floor.
func revisions(t *testing.T, db *sql.DB) (control, floor int64) {
	t.Helper()
	if err := db.QueryRow(`SELECT (SELECT revision FROM control_revisions WHERE name = 'model_grants'),
    (SELECT max(revision) FROM tool_grants_deleted_floor)`).Scan(&control, &floor); err != nil {
		t.Fatal(err)
	}
	return control, floor
}

// SPEC GRANT-4, GRANT-6: Migrate does not report success over a database where a
// trigger the store relies on is missing, disabled, renamed or (PostgreSQL) runs a
// function other than the migrations' (body or search_path): it answers
// ErrTriggersChanged, a fixed text, on every run, until RepairTriggers. (Migrate
// answered nil: "schema at 0023" while every read failed.)
func TestMigrateSeesMissingTriggers(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			for _, sg := range append(surgeries(t, b), functionSurgeries(b)...) {
				t.Run(sg.name, func(t *testing.T) {
					_, db := newStore(t, b)
					sg.do(t, db)
					for i := range 2 {
						err := Migrate(ctx, db, b.dialect, nil)
						checkClosed(t, "Migrate over the surgery", err, ErrTriggersChanged)
						if err != nil && err.Error() != ErrTriggersChanged.Error() {
							t.Errorf("Migrate %d: error %q, want the fixed text %q", i+1, err, ErrTriggersChanged)
						}
					}
					if err := RepairTriggers(ctx, db, b.dialect); err != nil {
						t.Fatalf("RepairTriggers: %v", err)
					}
					if err := Migrate(ctx, db, b.dialect, nil); err != nil {
						t.Errorf("Migrate after RepairTriggers: %v, want nil", err)
					}
				})
			}
		})
	}
}

// SPEC GRANT-4, GRANT-6: RepairTriggers puts back exactly what the migrations made (the
// triggers, their functions and search_path, the indexes; a renamed copy is dropped)
// over every surgery, the table dropped and recreated included, and raises the control
// revision and the tombstone floor to it: a grant revoked by plain SQL while the
// triggers were gone is seen by the Store's cached read, by a read of a principal never
// read and by a new Store; the next write counts again.
func TestRepairTriggers(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			for _, sg := range append(surgeries(t, b), functionSurgeries(b)...) {
				t.Run(sg.name, func(t *testing.T) {
					s, db, _ := cachedAlice(t, b)
					want := schemaDefs(t, db, b.dialect)
					sg.do(t, db)
					revoke(t, db)
					before, _ := revisions(t, db)
					if err := RepairTriggers(ctx, db, b.dialect); err != nil {
						t.Fatalf("RepairTriggers: %v", err)
					}
					if got := schemaDefs(t, db, b.dialect); !slices.Equal(got, want) {
						t.Errorf("after RepairTriggers the schema holds\n%q\nwant the migrations'\n%q", got, want)
					}
					control, floor := revisions(t, db)
					if control <= before || floor != control {
						t.Errorf("after RepairTriggers control revision %d, floor %d; want above %d, the floor at it", control, floor, before)
					}
					if err := Migrate(ctx, db, b.dialect, nil); err != nil {
						t.Errorf("Migrate after RepairTriggers: %v", err)
					}
					denied := func(what string, snap *grants.Snapshot, err error) {
						t.Helper()
						if err != nil || len(snap.Rows) != 1 || snap.Rows[0].Effect != grants.Deny {
							t.Errorf("GRANT-6: %s after the repair = (%v, %v), want the * row, denied", what, snap, err)
						}
					}
					got := sameAsFull(t, "the repair", s, db, b.dialect, "alice")
					denied("cached read", got, nil)
					snap, err := s.ReadGrants(ctx, "bob")
					denied("read of a principal never read", snap, err)
					snap, err = New(db, b.dialect).ReadGrants(ctx, "alice")
					denied("read by a new Store", snap, err)
					put, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "b", Effect: grants.Allow})
					if err != nil || put.Revision != control+1 {
						t.Fatalf("Put after the repair = (%v, %v), want revision %d", put, err, control+1)
					}
					if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 2 || snap.Revision != put.Revision {
						t.Errorf("GRANT-4: read after a Put following the repair = (%v, %v), want 2 rows at %d", snap, err, put.Revision)
					}
				})
			}
		})
	}
}

// SPEC GRANT-6: RepairTriggers is idempotent over an intact database (the same schema,
// Migrate still content) and still sends every cached Snapshot to a full read: the
// floor rises to the new control revision, so no delta read spans it.
func TestRepairIntact(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db, _ := cachedAlice(t, b)
			want := schemaDefs(t, db, b.dialect)
			for i := range 2 {
				if err := RepairTriggers(ctx, db, b.dialect); err != nil {
					t.Fatalf("RepairTriggers %d: %v", i+1, err)
				}
			}
			if got := schemaDefs(t, db, b.dialect); !slices.Equal(got, want) {
				t.Errorf("after RepairTriggers the schema holds\n%q\nwant\n%q", got, want)
			}
			if err := Migrate(ctx, db, b.dialect, nil); err != nil {
				t.Errorf("Migrate after RepairTriggers: %v", err)
			}
			full := s.reads.full.Load()
			sameAsFull(t, "two repairs", s, db, b.dialect, "alice")
			if n := s.reads.full.Load() - full; n != 1 {
				t.Errorf("the cached read after the repair made %d full reads, want 1", n)
			}
		})
	}
}

// SPEC GRANT-4: RepairTriggers restores the triggers of the migrations the database
// records, not later ones: a database at 0019 missing one is repaired, and Migrate then
// brings it up to date and counts writes.
func TestRepairOlderLevel(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			db := b.open(t)
			if err := migrate(ctx, db, b.dialect, nil, versionRules); err != nil {
				t.Fatal(err)
			}
			drop := "DROP TRIGGER tool_grants_insert"
			if b.dialect == Postgres {
				drop = "DROP TRIGGER tool_grants_revise ON tool_grants"
			}
			execAll(t, db, drop)
			if err := RepairTriggers(ctx, db, b.dialect); err != nil {
				t.Fatalf("RepairTriggers at 0019: %v", err)
			}
			if err := Migrate(ctx, db, b.dialect, nil); err != nil {
				t.Fatalf("Migrate after repairing at 0019: %v", err)
			}
			s := New(db, b.dialect)
			put, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow})
			if err != nil {
				t.Fatal(err)
			}
			if snap, err := s.ReadGrants(ctx, "alice"); err != nil || snap.Revision != put.Revision || len(snap.Rows) != 1 {
				t.Errorf("read after Put = (%v, %v), want alice's row at %d", snap, err, put.Revision)
			}
		})
	}
}

// SPEC ERR-2: RepairTriggers fails with fixed texts: no database, a migration recorded
// by another build (ErrMigrationChanged, nothing changed), tool_grants gone (a storage
// failure matching grants.ErrUnavailable, without the storage's text).
func TestRepairRefused(t *testing.T) {
	ctx := context.Background()
	if err := RepairTriggers(ctx, nil, SQLite); !errors.Is(err, grants.ErrUnavailable) {
		t.Errorf("RepairTriggers without a database = %v, want grants.ErrUnavailable", err)
	}
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			_, db := newStore(t, b)
			control, _ := revisions(t, db)
			execAll(t, db, "UPDATE sqlstore_migrations SET checksum = 'other' WHERE version = 20")
			if err := RepairTriggers(ctx, db, b.dialect); !errors.Is(err, ErrMigrationChanged) {
				t.Errorf("RepairTriggers over another build's migration = %v, want ErrMigrationChanged", err)
			}
			if now, _ := revisions(t, db); now != control {
				t.Errorf("the refused repair moved the control revision from %d to %d", control, now)
			}
			_, db = newStore(t, b)
			execAll(t, db, "DROP TABLE tool_grants")
			checkClosed(t, "RepairTriggers without tool_grants", RepairTriggers(ctx, db, b.dialect), grants.ErrUnavailable)
		})
	}
}

// SPEC GRANT-4: RepairTriggers queues behind a writer as writers queue behind each
// other, at the control row, before it locks any table: a writer holding the control
// row (the Store's lock query) and then writing tool_grants commits, and the repair
// follows. Taking the tables first, the repair waited for the control row while the
// writer waited for tool_grants: PostgreSQL broke the deadlock by failing one of them.
func TestRepairQueuesBehindWriter(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			if b.dialect != Postgres {
				t.Skip("SQLite's BEGIN IMMEDIATE serialises the repair with writers whole")
			}
			_, db := newStore(t, b)
			db.SetMaxOpenConns(4)
			writer, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer writer.Rollback()
			if _, err := writer.ExecContext(ctx, queriesFor(Postgres).lock); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- RepairTriggers(ctx, db, b.dialect) }()
			// Wait until the repair waits for the writer's lock on the control row.
			for i := 0; ; i++ {
				var waiting int
				if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%control_revisions%'`).Scan(&waiting); err != nil {
					t.Fatal(err)
				}
				if waiting > 0 {
					break
				}
				if i > 500 {
					t.Fatal("the repair never waited for the writer's lock")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if _, err := writer.ExecContext(ctx, `INSERT INTO tool_grants (principal_id, tool_name, scopes, effect, revision)
VALUES ('alice', 'a', '', 'allow', 1)`); err != nil {
				t.Fatalf("the writer's insert while the repair waits: %v", err)
			}
			if err := writer.Commit(); err != nil {
				t.Fatalf("the writer's commit: %v", err)
			}
			if err := <-done; err != nil {
				t.Fatalf("RepairTriggers after the writer: %v", err)
			}
		})
	}
}
