package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// A trigger is one trigger of the store's schema as the database holds it: its name,
// its table and the SQL that creates it again.
type trigger struct {
	name, table, def string
}

// notRelied are the triggers no read relies on: SQLite's refusal of a repeated scope
// (a row it would let in fails every read closed as malformed, cached or not).
var notRelied = []string{"tool_grants_scopes_insert", "tool_grants_scopes_update"}

// storeTriggers lists the triggers on the store's tables that reads rely on, found in the
// database itself rather than in the Store's list, so that a trigger a migration adds
// and the Store does not check fails the tests.
func storeTriggers(t *testing.T, db *sql.DB, d Dialect) []trigger {
	t.Helper()
	q := `SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'
AND tbl_name IN ('tool_grants', 'tool_grants_deleted', 'tool_grants_deleted_floor', 'control_revisions') ORDER BY name`
	if d == Postgres {
		q = `SELECT t.tgname, c.relname, pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE NOT t.tgisinternal AND t.tgrelid IN (to_regclass('tool_grants'), to_regclass('tool_grants_deleted'),
    to_regclass('tool_grants_deleted_floor'), to_regclass('control_revisions')) ORDER BY t.tgname`
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []trigger
	for rows.Next() {
		var tr trigger
		if err := rows.Scan(&tr.name, &tr.table, &tr.def); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(notRelied, tr.name) {
			out = append(out, tr)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 2 {
		t.Fatalf("found %d revision triggers, want the migrations' (at least 2)", len(out))
	}
	return out
}

// restoreTriggers creates again those of want that are missing and (PostgreSQL) enables
// them all, as an operator putting the schema back would.
func restoreTriggers(t *testing.T, db *sql.DB, d Dialect, want []trigger) {
	t.Helper()
	have := map[string]bool{}
	for _, tr := range storeTriggers(t, db, d) {
		have[tr.name] = true
	}
	for _, tr := range want {
		if !have[tr.name] {
			def := tr.def
			if d == Postgres && pgTriggerExists(t, db, tr.name+"_away") { // renamed: rename it back
				def = "ALTER TRIGGER " + tr.name + "_away ON " + tr.table + " RENAME TO " + tr.name
			}
			if _, err := db.Exec(def); err != nil {
				t.Fatalf("restoring %s: %v", tr.name, err)
			}
		}
		if d == Postgres {
			if _, err := db.Exec("ALTER TABLE " + tr.table + " ENABLE TRIGGER " + tr.name); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// pgTriggerExists reports whether a PostgreSQL trigger named name exists.
func pgTriggerExists(t *testing.T, db *sql.DB, name string) bool {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM pg_trigger WHERE tgname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// A surgery changes the store's schema behind the Stores' backs so that writes may go
// uncounted: the control revision no longer moves with the rows.
type surgery struct {
	name string
	do   func(t *testing.T, db *sql.DB)
}

// countingNothing answers the statement replacing PostgreSQL trigger function fn by one
// that passes the row through and counts nothing.
func countingNothing(fn string) string {
	return "CREATE OR REPLACE FUNCTION " + fn + `() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$`
}

func execAll(t *testing.T, db *sql.DB, queries ...string) {
	t.Helper()
	for _, q := range queries {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// surgeries are the ways, per dialect, of leaving the store without a trigger it
// relies on: dropping and recreating tool_grants (rows kept, same columns), dropping
// each trigger in turn, and on PostgreSQL disabling and renaming them.
func surgeries(t *testing.T, b backend) []surgery {
	_, db := newStore(t, b)
	var out []surgery
	recreate := surgery{name: "drop and recreate tool_grants", do: func(t *testing.T, db *sql.DB) {
		create := `CREATE TABLE tool_grants (
    principal_id TEXT   NOT NULL,
    tool_name    TEXT   NOT NULL,
    scopes       TEXT   NOT NULL DEFAULT '',
    effect       TEXT   NOT NULL,
    revision     BIGINT NOT NULL DEFAULT 1,
    PRIMARY KEY (principal_id, tool_name)
)`
		if b.dialect == SQLite { // the table as 0019 made it, constraints and all
			if err := db.QueryRow("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'tool_grants'").Scan(&create); err != nil {
				t.Fatal(err)
			}
		}
		execAll(t, db, "CREATE TABLE kept AS SELECT * FROM tool_grants", "DROP TABLE tool_grants", create,
			"INSERT INTO tool_grants SELECT * FROM kept", "DROP TABLE kept")
	}}
	out = append(out, recreate)
	for _, tr := range storeTriggers(t, db, b.dialect) {
		drop := "DROP TRIGGER " + tr.name
		if b.dialect == Postgres {
			drop += " ON " + tr.table
		}
		out = append(out, surgery{name: drop, do: func(t *testing.T, db *sql.DB) { execAll(t, db, drop) }})
		if b.dialect == Postgres {
			for _, how := range []string{"DISABLE TRIGGER", "ENABLE REPLICA TRIGGER"} {
				q := "ALTER TABLE " + tr.table + " " + how + " " + tr.name
				out = append(out, surgery{name: q, do: func(t *testing.T, db *sql.DB) { execAll(t, db, q) }})
			}
			rename := "ALTER TRIGGER " + tr.name + " ON " + tr.table + " RENAME TO " + tr.name + "_away"
			out = append(out, surgery{name: rename, do: func(t *testing.T, db *sql.DB) { execAll(t, db, rename) }})
		}
	}
	if b.dialect == Postgres {
		for _, q := range []string{"ALTER TABLE tool_grants DISABLE TRIGGER ALL", "ALTER TABLE tool_grants DISABLE TRIGGER USER"} {
			out = append(out, surgery{name: q, do: func(t *testing.T, db *sql.DB) { execAll(t, db, q) }})
		}
	}
	return out
}

// revoke deletes alice's grant and turns the "*" grant into a deny by plain SQL, which
// the surgery may have left uncounted.
func revoke(t *testing.T, db *sql.DB) {
	t.Helper()
	execAll(t, db, "DELETE FROM tool_grants WHERE principal_id = 'alice'",
		"UPDATE tool_grants SET effect = 'deny' WHERE principal_id = '*'")
}

// cachedAlice opens a Store over b holding a "*" grant and alice's, reads alice twice
// (the second read answers from the cache) and answers the Store, its database and the
// triggers the database holds before any surgery.
func cachedAlice(t *testing.T, b backend) (*Store, *sql.DB, []trigger) {
	t.Helper()
	ctx := context.Background()
	s, db := newStore(t, b, grants.Row{Principal: grants.AnyPrincipal, Tool: "t", Effect: grants.Allow})
	if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow}); err != nil {
		t.Fatal(err)
	}
	triggers := storeTriggers(t, db, b.dialect)
	for i := range 2 {
		if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 2 {
			t.Fatalf("read %d = (%v, %v), want 2 rows", i+1, snap, err)
		}
	}
	return s, db, triggers
}

// SPEC GRANT-6, GRANT-4: a Store relies on the revision triggers to answer from its
// cache (an unchanged control revision means unchanged rows) and to bring a Snapshot up
// to date (the tombstones). Whenever one of them is missing or disabled (the table
// dropped and recreated, a trigger dropped, PostgreSQL's ALTER TABLE ... DISABLE
// TRIGGER), every read fails closed with ErrUncounted, for a principal whose Snapshot
// is cached, for one never read, and in a new Store, rather than answer grants revoked
// since by uncounted SQL. Once the triggers are back, reads answer the rows as they are.
// (The cache answered the revoked grants; the other reads answered rows.)
func TestMissingTriggersFailClosed(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			for _, sg := range surgeries(t, b) {
				t.Run(sg.name, func(t *testing.T) {
					s, db, triggers := cachedAlice(t, b)
					sg.do(t, db)
					revoke(t, db)
					for _, read := range []struct {
						what      string
						s         *Store
						principal string
					}{
						{"cached read", s, "alice"},
						{"read of a principal never read", s, "bob"},
						{"read by a new Store", New(db, b.dialect), "alice"},
						{"cached read again", s, "alice"},
					} {
						snap, err := read.s.ReadGrants(ctx, read.principal)
						checkClosed(t, "GRANT-6: "+read.what, err, grants.ErrUnavailable)
						if !errors.Is(err, ErrUncounted) {
							t.Errorf("%s: error %v, want ErrUncounted", read.what, err)
						}
						if snap != nil {
							t.Errorf("GRANT-6: %s answered %v", read.what, rowsOf(snap))
						}
					}
					restoreTriggers(t, db, b.dialect, triggers)
					got := sameAsFull(t, "restoring the triggers", s, db, b.dialect, "alice")
					if got != nil && (len(got.Rows) != 1 || got.Rows[0].Effect != grants.Deny) {
						t.Errorf("GRANT-6: read once the triggers are back = %v, want the * row, denied", rowsOf(got))
					}
				})
			}
		})
	}
}

// SPEC GRANT-6, GRANT-4: a trigger dropped (or disabled), a grant revoked uncounted
// meanwhile and the trigger put back, all between two reads of a Store, do not let the
// Store answer the revoked grant from its cache: a read that finds the triggers changed
// since its Snapshot reads the rows again. (The cache answered the revoked grants.)
func TestTriggersChangedBetweenReads(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			for _, sg := range surgeries(t, b) {
				t.Run(sg.name, func(t *testing.T) {
					s, db, triggers := cachedAlice(t, b)
					sg.do(t, db)
					revoke(t, db)
					restoreTriggers(t, db, b.dialect, triggers)
					sameAsFull(t, "triggers dropped and put back between reads", s, db, b.dialect, "alice")
				})
			}
		})
	}
}

// SPEC GRANT-6: a Snapshot read while the Store cannot tell which triggers it relies on
// (the migration record unreadable, so the read checks none) is not cached: once the
// record is back, a read with a trigger missing fails closed rather than answer that
// Snapshot, whose mark vouches for no check. (It answered a grant revoked uncounted;
// on SQLite renaming the record table moves the mark anyway.)
func TestUncheckedReadNotCached(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			_, db := newStore(t, b)
			w := New(db, b.dialect)
			if _, err := w.Put(ctx, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			drop := "DROP TRIGGER tool_grants_delete"
			if b.dialect == Postgres {
				drop = "DROP TRIGGER tool_grants_revise ON tool_grants"
			}
			execAll(t, db, drop, "ALTER TABLE sqlstore_migrations RENAME TO migrations_away")
			s := New(db, b.dialect)
			if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 1 {
				t.Fatalf("read without the migration record = (%v, %v), want alice's row", snap, err)
			}
			execAll(t, db, "ALTER TABLE migrations_away RENAME TO sqlstore_migrations",
				"DELETE FROM tool_grants WHERE principal_id = 'alice'")
			for i := range 2 {
				snap, err := s.ReadGrants(ctx, "alice")
				checkClosed(t, fmt.Sprintf("GRANT-6: read %d once the record is back", i+1), err, ErrUncounted)
				if snap != nil {
					t.Errorf("GRANT-6: read %d once the record is back answered %v", i+1, rowsOf(snap))
				}
			}
		})
	}
}

// SPEC GRANT-6, GRANT-4: on PostgreSQL, a counting trigger's function replaced by one
// that counts nothing (CREATE OR REPLACE FUNCTION), grants revoked uncounted meanwhile
// and the function put back, all between two reads of a Store, do not let the Store
// answer the revoked grants from its cache: the functions' row versions are part of the
// triggers' mark. (The cache answered the revoked grants: the mark held only the
// pg_trigger rows, which CREATE OR REPLACE FUNCTION leaves alone.)
func TestTriggerFunctionReplacedBetweenReads(t *testing.T) {
	ctx := context.Background()
	b := backends()[1]
	for _, c := range []struct {
		function string
		revoke   func(t *testing.T, db *sql.DB)
	}{
		{"tool_grants_revise", revoke},
		{"tool_grants_truncated", func(t *testing.T, db *sql.DB) { execAll(t, db, "TRUNCATE tool_grants") }},
	} {
		t.Run(c.function, func(t *testing.T) {
			s, db := newStore(t, b, grants.Row{Principal: grants.AnyPrincipal, Tool: "t", Effect: grants.Allow})
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			var def string
			if err := db.QueryRow("SELECT pg_get_functiondef($1::regproc)", c.function).Scan(&def); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 2 {
					t.Fatalf("read %d = (%v, %v), want 2 rows", i+1, snap, err)
				}
			}
			execAll(t, db, countingNothing(c.function))
			c.revoke(t, db)
			execAll(t, db, def)
			got := sameAsFull(t, "a trigger function replaced and put back between reads", s, db, b.dialect, "alice")
			if got != nil && slices.ContainsFunc(got.Rows, func(r grants.Row) bool { return r.Effect == grants.Allow }) {
				t.Errorf("GRANT-6: read after the function was put back answered %v, allowing a revoked grant", rowsOf(got))
			}
		})
	}
}

// SPEC GRANT-4, GRANT-6: on PostgreSQL, a write to the store's tool_grants from a
// session whose search_path lists first another schema holding the store's tables
// (another tenant's, or another environment's) is counted in the store's own control
// revision: the trigger functions resolve their tables in the schema they belong to,
// not by the writer's search_path. So a Store's cached read does not answer a grant
// revoked by such a session. (The triggers bumped the other schema's control revision,
// and the cached read answered alice's revoked grant.)
func TestWriterSearchPathCounted(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.PostgresDSN(t)
	other := dbtest.PostgresDSN(t)
	schema := func(dsn string) string { return dsn[strings.LastIndex(dsn, "search_path=")+len("search_path="):] }
	db := dbtest.Open(t, "pgx", dsn)
	for _, d := range []*sql.DB{db, dbtest.Open(t, "pgx", other)} {
		if err := Migrate(ctx, d, Postgres, nil); err != nil {
			t.Fatal(err)
		}
	}
	s := New(db, Postgres)
	if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 1 {
			t.Fatalf("read %d = (%v, %v), want alice's row", i+1, snap, err)
		}
	}
	operator := dbtest.Open(t, "pgx", strings.Replace(dsn, "search_path="+schema(dsn), "search_path="+schema(other)+","+schema(dsn), 1))
	for _, q := range []string{
		"DELETE FROM " + schema(dsn) + ".tool_grants WHERE principal_id = 'alice'",
		"INSERT INTO " + schema(dsn) + ".tool_grants (principal_id, tool_name, effect) VALUES ('alice', 'b', 'deny')",
		"TRUNCATE " + schema(dsn) + ".tool_grants",
	} {
		execAll(t, operator, q)
		got := sameAsFull(t, q+" from a session whose search_path lists another store first", s, db, Postgres, "alice")
		if got != nil && slices.ContainsFunc(got.Rows, func(r grants.Row) bool { return r.Tool == "a" }) {
			t.Errorf("GRANT-6: after %s: read answered %v, the revoked grant included", q, rowsOf(got))
		}
	}
	var theirs int64
	if err := dbtest.Open(t, "pgx", other).QueryRow("SELECT revision FROM control_revisions").Scan(&theirs); err != nil || theirs != 1 {
		t.Errorf("the other schema's control revision = (%d, %v), want 1: its rows did not change", theirs, err)
	}
}

// SPEC GRANT-6, GRANT-4: Stores reading concurrently while a trigger is dropped, a
// grant revoked uncounted and the trigger put back, over and over, never answer the
// revoked grant in a read that starts after the revocation committed: each read sees the
// triggers' mark in the statement that reads the control revision, so no interleaving
// lets a Snapshot cached before the surgery pass for one checked after it.
func TestConcurrentReadsDuringSurgery(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			w, db := newStore(t, b)
			drop, restore := "DROP TRIGGER tool_grants_delete", ""
			if b.dialect == Postgres {
				drop = "DROP TRIGGER tool_grants_revise ON tool_grants"
			}
			for _, tr := range storeTriggers(t, db, b.dialect) {
				if tr.name == "tool_grants_delete" || tr.name == "tool_grants_revise" {
					restore = tr.def
				}
			}
			var (
				mu      sync.RWMutex // held for writing while the writer changes state
				revoked bool         // alice's grant revoked and not granted again since
				epoch   int          // bumped by every change of revoked
				stop    atomic.Bool
				wg      sync.WaitGroup
				served  atomic.Int64
			)
			conn, err := db.Conn(ctx) // the surgery's statements, one at a time on one connection
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			readers := []*Store{New(db, b.dialect), New(db, b.dialect), New(db, b.dialect)}
			for _, r := range readers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !stop.Load() {
						mu.RLock()
						wasRevoked, at := revoked, epoch
						mu.RUnlock()
						snap, err := r.ReadGrants(ctx, "alice")
						mu.RLock()
						same := epoch == at
						mu.RUnlock()
						if err == nil && wasRevoked && same && len(snap.Rows) > 0 {
							served.Add(1)
						}
					}
				}()
			}
			for range 15 {
				mu.Lock()
				if _, err := w.Put(ctx, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow}); err != nil {
					mu.Unlock()
					t.Fatal(err)
				}
				revoked, epoch = false, epoch+1
				mu.Unlock()
				time.Sleep(20 * time.Millisecond) // the readers cache alice's grant
				mu.Lock()
				for _, q := range []string{drop, "DELETE FROM tool_grants WHERE principal_id = 'alice'", restore} {
					if _, err := conn.ExecContext(ctx, q); err != nil {
						mu.Unlock()
						t.Fatalf("%s: %v", q, err)
					}
				}
				revoked, epoch = true, epoch+1
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
			stop.Store(true)
			wg.Wait()
			if n := served.Load(); n > 0 {
				t.Errorf("GRANT-6: %d reads started after the revocation answered alice's revoked grant", n)
			}
		})
	}
}

// SPEC GRANT-6: a delta read checks the triggers' mark in its own statement, so that
// triggers changed after the cached read's revision check (a surgery between the two
// statements) send the read to the full read, which checks them: readDelta with a mark
// other than the database's answers no Snapshot. (With the check removed, it answered
// the Snapshot brought up to date; no other test saw it.)
func TestDeltaReadChecksMark(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, _ := newStore(t, b)
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ReadGrants(ctx, "alice"); err != nil {
				t.Fatal(err)
			}
			cached, mark := s.cache.get("alice")
			if cached == nil {
				t.Fatal("alice's Snapshot is not cached")
			}
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "b", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			if snap, ok := s.readDelta(ctx, "alice", cached, mark); !ok || len(snap.Rows) != 2 {
				t.Fatalf("delta read at the cached mark = (%v, %v), want alice's 2 rows", snap, ok)
			}
			if snap, ok := s.readDelta(ctx, "alice", cached, mark+1); ok || snap != nil {
				t.Errorf("GRANT-6: delta read at another mark = (%v, %v), want no Snapshot", snap, ok)
			}
		})
	}
}

// SPEC GRANT-6: the trigger check a Store uses once it knows the database records
// 0021 and 0022 (knownTriggerCheck: tables named as regclass constants) answers what
// the check of any level answers (triggerCheck), counts and mark alike, with every
// trigger present and with one dropped or disabled, so a Snapshot cached from either
// compares equal marks; and a Store at that level answers its second read from the
// cache, a write later by a delta read, with no further full read.
func TestKnownTriggerCheckSameMark(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			check := func(what string) {
				t.Helper()
				var old, known triggerState
				for _, c := range []struct {
					q   string
					dst *triggerState
				}{{triggerCheck(b.dialect), &old}, {knownTriggerCheck(b.dialect), &known}} {
					if err := db.QueryRow(c.q).Scan(&c.dst.counting, &c.dst.tombstones, &c.dst.schema); err != nil {
						t.Fatal(err)
					}
				}
				if old != known {
					t.Errorf("%s: triggerCheck = %+v, knownTriggerCheck = %+v; want the same", what, old, known)
				}
			}
			check("every trigger present")
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				if _, err := s.ReadGrants(ctx, "alice"); err != nil {
					t.Fatalf("read %d: %v", i+1, err)
				}
			}
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "b", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 2 {
				t.Fatalf("read after a write = (%v, %v), want 2 rows", snap, err)
			}
			if full, delta := s.reads.full.Load(), s.reads.delta.Load(); full != 1 || delta != 1 {
				t.Errorf("three reads made %d full and %d delta reads, want 1 and 1", full, delta)
			}
			surgery := "DROP TRIGGER tool_grants_deleted_forget"
			if b.dialect == Postgres {
				execAll(t, db, "ALTER TABLE tool_grants DISABLE TRIGGER tool_grants_truncate")
				check("a trigger disabled")
				surgery += " ON tool_grants_deleted"
			}
			execAll(t, db, surgery)
			check("a trigger dropped")
		})
	}
}
