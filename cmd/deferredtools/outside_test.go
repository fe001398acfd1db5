package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"
	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// This file attacks the grant rows from outside a Store that caches them: the command
// run as a subprocess, a second Store over its own *sql.DB and plain SQL change the
// rows between two of its reads, and every read must answer what a Store reading in
// full answers then.

// dialectOf is the sqlstore dialect of a target.
func dialectOf(tg target) sqlstore.Dialect {
	if tg.name == "postgres" {
		return sqlstore.Postgres
	}
	return sqlstore.SQLite
}

// grantsOf reads principal's applicable rows through s as "principal tool effect scopes"
// lines, in order.
func grantsOf(t *testing.T, s *sqlstore.Store, principal string) []string {
	t.Helper()
	snap, err := s.ReadGrants(context.Background(), principal)
	if err != nil {
		t.Fatalf("ReadGrants(%s): %v", principal, err)
	}
	var out []string
	for _, r := range snap.Rows {
		out = append(out, fmt.Sprintf("%s %s %s %s", r.Principal, r.Tool, r.Effect, strings.Join(r.Scopes, ",")))
	}
	slices.Sort(out)
	return out
}

// SPEC GRANT-6, GRANT-4: a grant deleted by another process never comes back in a
// caching Store's next read, by the command (a subprocess) or a second Store over its
// own *sql.DB: the only row of a principal, a row deleted and re-created with the same
// key (other content, then the same content), a "*" row, 25 rows deleted between two
// reads (a delta read) and 1,100 rows put and deleted between two reads (more changes
// than a delta read takes). After each change the caching Store answers exactly what a
// Store reading in full answers, and what the change left. No clock is involved: each
// change has returned (committed) before the next read starts.
func TestDeletedGrantsStayDeleted(t *testing.T) {
	ctx := context.Background()
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			db, raw := tg.db(t)
			ok(t, "migrate", "-db", db)
			d := dialectOf(tg)
			cached := sqlstore.New(raw, d)
			defer cached.Close()
			full := sqlstore.NewWithOptions(raw, d, &sqlstore.Options{CacheBytes: -1})
			defer full.Close()
			other, err := sql.Open(tg.driver, rawDSN(t, db))
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			second := sqlstore.New(other, d)
			defer second.Close()

			expect := func(what, principal string, want ...string) {
				t.Helper()
				slices.Sort(want)
				got := grantsOf(t, cached, principal)
				if !slices.Equal(got, want) {
					t.Errorf("GRANT-6: %s: the caching Store read %s's grants %q, want %q", what, principal, got, want)
				}
				if f := grantsOf(t, full, principal); !slices.Equal(got, f) {
					t.Errorf("GRANT-6: %s: the caching Store read %q, a full read %q", what, got, f)
				}
			}

			// The only row of a principal.
			ok(t, "grants", "allow", "-db", db, "-principal", "alice", "-tool", "only")
			expect("one row", "alice", "alice only allow ")
			ok(t, "grants", "revoke", "-db", db, "-principal", "alice", "-tool", "only")
			expect("its only row revoked by the command", "alice")

			// Delete and re-create of one key: other content, then the same.
			ok(t, "grants", "allow", "-db", db, "-principal", "alice", "-tool", "t", "-scopes", "a")
			expect("t allowed", "alice", "alice t allow a")
			ok(t, "grants", "revoke", "-db", db, "-principal", "alice", "-tool", "t")
			ok(t, "grants", "deny", "-db", db, "-principal", "alice", "-tool", "t")
			expect("t revoked and denied", "alice", "alice t deny ")
			ok(t, "grants", "revoke", "-db", db, "-principal", "alice", "-tool", "t")
			ok(t, "grants", "allow", "-db", db, "-principal", "alice", "-tool", "t", "-scopes", "a")
			expect("t revoked and allowed again", "alice", "alice t allow a")
			if err := second.Delete(ctx, "alice", "t"); err != nil {
				t.Fatal(err)
			}
			if _, err := second.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Deny}); err != nil {
				t.Fatal(err)
			}
			if err := second.Delete(ctx, "alice", "t"); err != nil {
				t.Fatal(err)
			}
			expect("t re-created and deleted by a second Store", "alice")

			// A "*" row, read through alice and bob.
			ok(t, "grants", "allow", "-db", db, "-principal", "*", "-tool", "pub")
			expect("pub for everyone", "alice", "* pub allow ")
			expect("pub for everyone", "bob", "* pub allow ")
			ok(t, "grants", "revoke", "-db", db, "-principal", "*", "-tool", "pub")
			expect("pub revoked", "alice")
			expect("pub revoked", "bob")

			// Many deletes between two reads.
			var want []string
			for i := range 30 {
				tool := fmt.Sprintf("m%02d", i)
				if _, err := second.Put(ctx, grants.Row{Principal: "alice", Tool: tool, Effect: grants.Allow}); err != nil {
					t.Fatal(err)
				}
				want = append(want, "alice "+tool+" allow ")
			}
			expect("30 rows", "alice", want...)
			for i := range 25 {
				if err := second.Delete(ctx, "alice", fmt.Sprintf("m%02d", i)); err != nil {
					t.Fatal(err)
				}
			}
			expect("25 of them deleted by a second Store", "alice", want[25:]...)
			for i := range 1100 {
				tool := fmt.Sprintf("n%04d", i)
				if _, err := second.Put(ctx, grants.Row{Principal: "alice", Tool: tool, Effect: grants.Allow}); err != nil {
					t.Fatal(err)
				}
				if err := second.Delete(ctx, "alice", tool); err != nil {
					t.Fatal(err)
				}
			}
			ok(t, "grants", "revoke", "-db", db, "-principal", "alice", "-tool", "m25")
			ok(t, "grants", "revoke", "-db", db, "-principal", "alice", "-tool", "m26")
			expect("1,100 rows put and deleted, 2 revoked by the command", "alice", want[27:]...)
			if _, err := raw.Exec("DELETE FROM tool_grants WHERE principal_id = 'alice'"); err != nil {
				t.Fatal(err)
			}
			expect("the rest deleted by plain SQL", "alice")
		})
	}
}

// rawDSN is the driver's DSN of the database the -db flag db names.
func rawDSN(t *testing.T, db string) string {
	if path, ok := strings.CutPrefix(db, "sqlite:"); ok {
		return dbtest.SQLiteURI(path, "_pragma=busy_timeout(5000)")
	}
	return db
}

// SPEC GRANT-5: the command reads exactly grants.MaxRows applicable rows (alice's and
// "*"'s, stored by plain SQL; bob's rows do not count) and refuses one more, with one
// line and nothing on stdout; a caching Store in this process refuses it too.
func TestRowBoundFromOutside(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			db, raw := tg.db(t)
			ok(t, "migrate", "-db", db)
			cached := sqlstore.New(raw, dialectOf(tg))
			defer cached.Close()
			series := "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < %[1]d) SELECT '%[2]s', '%[3]s' || x, '', 'allow', 1 FROM n"
			if tg.name == "postgres" {
				series = "SELECT '%[2]s', '%[3]s' || x, '', 'allow', 1 FROM generate_series(1, %[1]d) x"
			}
			for _, q := range []string{
				fmt.Sprintf(series, grants.MaxRows/2, "alice", "a"),
				fmt.Sprintf(series, grants.MaxRows/2, "*", "s"),
				fmt.Sprintf(series, 10, "bob", "b"),
			} {
				if _, err := raw.Exec("INSERT INTO tool_grants (principal_id, tool_name, scopes, effect, revision) " + q); err != nil {
					t.Fatal(err)
				}
			}
			out := ok(t, "grants", "check", "-db", db, "-principal", "alice")
			if n := strings.Count(out, "\tgranted\t"); n != grants.MaxRows {
				t.Errorf("GRANT-5: check of %d applicable rows granted %d tools, want them all", grants.MaxRows, n)
			}
			if snap, err := cached.ReadGrants(context.Background(), "alice"); err != nil || len(snap.Rows) != grants.MaxRows {
				t.Fatalf("GRANT-5: a Store's read of %d applicable rows = %v; want them all", grants.MaxRows, err)
			}
			if _, err := raw.Exec("INSERT INTO tool_grants (principal_id, tool_name, scopes, effect, revision) VALUES ('*', 'one-more', '', 'allow', 1)"); err != nil {
				t.Fatal(err)
			}
			refused(t, "too many applicable rows", "grants", "check", "-db", db, "-principal", "alice")
			refused(t, "too many applicable rows", "grants", "check", "-db", db, "-principal", "alice", "-tool", "a1")
			if snap, err := cached.ReadGrants(context.Background(), "alice"); snap != nil || !errors.Is(err, grants.ErrTooManyRows) {
				t.Errorf("GRANT-5: the caching Store's read of %d applicable rows = (%v, %v), want no Snapshot and ErrTooManyRows", grants.MaxRows+1, snap != nil, err)
			}
			// bob has 10 + MaxRows/2 + 1 applicable rows: served.
			if out := ok(t, "grants", "check", "-db", db, "-principal", "bob"); strings.Count(out, "\tgranted\t") != grants.MaxRows/2+11 {
				t.Errorf("GRANT-5: bob's check granted %d tools, want %d", strings.Count(out, "\tgranted\t"), grants.MaxRows/2+11)
			}
		})
	}
}

// SPEC GRANT-1: tool names and principals are exact bytes: names differing only by
// case or by Unicode normalization (NFC "é" and NFD "e" + U+0301) are different keys,
// each stored, listed and decided on its own, by the command and by a Store.
func TestExactNames(t *testing.T) {
	nfc, nfd := "caf\u00e9", "cafe\u0301"
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			db, raw := tg.db(t)
			ok(t, "migrate", "-db", db)
			ok(t, "grants", "allow", "-db", db, "-principal", "alice", "-tool", "Deploy")
			ok(t, "grants", "allow", "-db", db, "-principal", "alice", "-tool", nfc)
			ok(t, "grants", "deny", "-db", db, "-principal", "alice", "-tool", nfd)
			ok(t, "grants", "allow", "-db", db, "-principal", "Alice", "-tool", "deploy")
			for _, tc := range []struct{ principal, tool, want string }{
				{"alice", "Deploy", "granted"},
				{"alice", "deploy", "denied\tno row"},
				{"alice", "DEPLOY", "denied\tno row"},
				{"alice", nfc, "granted"},
				{"alice", nfd, "denied\talice"},
				{"Alice", "deploy", "granted"},
				{"Alice", "Deploy", "denied\tno row"},
				{"ALICE", "deploy", "denied\tno row"},
			} {
				out := ok(t, "grants", "check", "-db", db, "-principal", tc.principal, "-tool", tc.tool)
				if !strings.Contains(out, "\n"+tc.tool+"\t"+tc.want) {
					t.Errorf("GRANT-1: check %q %q printed %q, want %q", tc.principal, tc.tool, out, tc.want)
				}
			}
			got := grantsOf(t, sqlstore.New(raw, dialectOf(tg)), "alice")
			want := []string{"alice Deploy allow ", "alice " + nfc + " allow ", "alice " + nfd + " deny "}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("GRANT-1: alice's rows %q, want %q", got, want)
			}
		})
	}
}

// bypassChecks opens a connection to the database of -db db that can store what the
// schema refuses, as an operator with full rights could: SQLite ignores its CHECK
// constraints (PRAGMA ignore_check_constraints); PostgreSQL drops them (every CHECK on
// tool_grants) and the NOT NULL of scopes and effect. Writes still fire the triggers.
func bypassChecks(t *testing.T, tg target, raw *sql.DB) *sql.Conn {
	t.Helper()
	conn, err := raw.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	stmts := []string{"PRAGMA ignore_check_constraints = ON"}
	if tg.name == "postgres" {
		stmts = []string{`DO $$
DECLARE c TEXT;
BEGIN
    FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'tool_grants'::regclass AND contype = 'c' LOOP
        EXECUTE format('ALTER TABLE tool_grants DROP CONSTRAINT %I', c);
    END LOOP;
END $$`, "ALTER TABLE tool_grants ALTER COLUMN scopes DROP NOT NULL, ALTER COLUMN effect DROP NOT NULL"}
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// SPEC GRANT-5, GRANT-1: each class of malformed row, stored by plain SQL past the
// schema's constraints (see bypassChecks) for alice or "*", fails alice's reads closed:
// the command's check refuses with one line naming the class and prints nothing, for
// alice's tool that is well formed too, and a caching Store that read alice before
// answers no Snapshot. A malformed row of another principal changes nothing for alice.
// (A bad revision cannot be stored this way: the triggers stamp every written row.)
func TestMalformedRowsFromOutside(t *testing.T) {
	ctx := context.Background()
	type class struct {
		reason                  string
		principal, tool, scopes any
		effect                  any
		postgresOnly            bool // SQLite's NOT NULL and repeated-scope trigger still refuse it
	}
	classes := []class{
		{"effect", "alice", "bad", "", "ALLOW", false},
		{"effect", "*", "bad", "", "", false},
		{"tool", "alice", "", "", "allow", false},
		{"scope", "alice", "bad", "a  b", "allow", false},
		{"scope", "*", "bad", " a", "allow", false},
		{"scope", "alice", "bad", "a ", "allow", false},
		{"scope", "alice", "bad", "a\tb", "allow", false},
		{"scope", "alice", "bad", "a,b \u00e9", "deny", false},
		{"scope", "alice", "bad", "a a", "allow", true},
		{"scope", "alice", "bad", nil, "allow", true},
		{"effect", "alice", "bad", "", nil, true},
	}
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			for i, c := range classes {
				if c.postgresOnly && tg.name != "postgres" {
					continue
				}
				t.Run(fmt.Sprintf("%d-%s", i, c.reason), func(t *testing.T) {
					db, raw := tg.db(t)
					ok(t, "migrate", "-db", db)
					ok(t, "grants", "allow", "-db", db, "-principal", "alice", "-tool", "good")
					cached := sqlstore.New(raw, dialectOf(tg))
					defer cached.Close()
					if got := grantsOf(t, cached, "alice"); len(got) != 1 {
						t.Fatalf("alice's grants before = %q", got)
					}
					conn := bypassChecks(t, tg, raw)
					ins := "INSERT INTO tool_grants (principal_id, tool_name, scopes, effect, revision) VALUES (?, ?, ?, ?, 1)"
					if tg.name == "postgres" {
						ins = "INSERT INTO tool_grants (principal_id, tool_name, scopes, effect, revision) VALUES ($1, $2, $3, $4, 1)"
					}
					if _, err := conn.ExecContext(ctx, ins, c.principal, c.tool, c.scopes, c.effect); err != nil {
						t.Fatalf("storing the malformed row: %v", err)
					}
					refused(t, "malformed row: "+c.reason, "grants", "check", "-db", db, "-principal", "alice")
					refused(t, "malformed row: "+c.reason, "grants", "check", "-db", db, "-principal", "alice", "-tool", "good")
					if snap, err := cached.ReadGrants(ctx, "alice"); snap != nil || !errors.Is(err, grants.ErrMalformed) {
						t.Errorf("GRANT-5: the caching Store's read after a malformed row = (%v, %v), want no Snapshot and ErrMalformed", snap != nil, err)
					}
					if c.principal == "alice" {
						if _, err := conn.ExecContext(ctx, "UPDATE tool_grants SET principal_id = 'bob' WHERE principal_id = 'alice' AND (tool_name IS NULL OR tool_name <> 'good')"); err != nil {
							t.Fatal(err)
						}
						if got := grantsOf(t, cached, "alice"); len(got) != 1 {
							t.Errorf("alice's grants with the malformed row moved to bob = %q, want her one row", got)
						}
					}
				})
			}
		})
	}
}

// SPEC GRANT-6, GRANT-4: on PostgreSQL, a session with session_replication_role =
// replica (a superuser's, or a logical replication worker's) fires no ordinary trigger:
// its writes are not counted, so a Store that cached a principal's Snapshot keeps
// answering it (nothing cheap sees such a write: the control revision and the triggers'
// mark are unchanged); a Store reading in full sees the rows. deferredtools migrate
// -repair restores consistency: it raises the control revision and the tombstone floor
// above every row, and the caching Store then answers what a full read answers. The
// package doc and the README state this operator rule.
func TestReplicaRoleWritesNeedRepair(t *testing.T) {
	ctx := context.Background()
	tg := targets()[1]
	db, raw := tg.db(t)
	ok(t, "migrate", "-db", db)
	ok(t, "grants", "allow", "-db", db, "-principal", "alice", "-tool", "revoked")
	ok(t, "grants", "allow", "-db", db, "-principal", "*", "-tool", "public")
	cached := sqlstore.New(raw, sqlstore.Postgres)
	defer cached.Close()
	before := []string{"* public allow ", "alice revoked allow "}
	if got := grantsOf(t, cached, "alice"); !slices.Equal(got, before) {
		t.Fatalf("alice's grants = %q, want %q", got, before)
	}
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET session_replication_role = replica"); err != nil {
		t.Skipf("the test role may not set session_replication_role (a superuser's setting): %v", err)
	}
	for _, q := range []string{
		"DELETE FROM tool_grants WHERE principal_id = 'alice' AND tool_name = 'revoked'",
		"DELETE FROM tool_grants WHERE principal_id = '*'",
		"INSERT INTO tool_grants (principal_id, tool_name, scopes, effect, revision) VALUES ('alice', 'added', '', 'deny', 1)",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	full := sqlstore.NewWithOptions(raw, sqlstore.Postgres, &sqlstore.Options{CacheBytes: -1})
	defer full.Close()
	after := []string{"alice added deny "}
	if got := grantsOf(t, full, "alice"); !slices.Equal(got, after) {
		t.Fatalf("a full read after the replica-role writes = %q, want %q", got, after)
	}
	// The hazard the doc names: the cached Snapshot is still answered.
	if got := grantsOf(t, cached, "alice"); !slices.Equal(got, before) {
		t.Errorf("the caching Store after uncounted writes read %q; the doc says it keeps %q until a repair (update it)", got, before)
	}
	if out := ok(t, "migrate", "-repair", "-db", db); !strings.HasPrefix(out, "repaired the revision triggers") {
		t.Errorf("migrate -repair printed %q", out)
	}
	if got := grantsOf(t, cached, "alice"); !slices.Equal(got, after) {
		t.Errorf("GRANT-6: the caching Store after migrate -repair read %q, want %q", got, after)
	}
	if out := ok(t, "grants", "check", "-db", db, "-principal", "alice", "-tool", "revoked"); !strings.Contains(out, "revoked\tdenied\tno row") {
		t.Errorf("check of the revoked tool after the repair printed %q", out)
	}
}
