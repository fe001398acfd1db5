package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// ph rewrites ? placeholders as $1, $2... for PostgreSQL.
func ph(d Dialect, q string) string {
	if d != Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func control(t *testing.T, db *sql.DB) int64 {
	t.Helper()
	var c int64
	if err := db.QueryRow("SELECT revision FROM control_revisions WHERE name = 'model_grants'").Scan(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// scopeColumns are texts for the scopes column: hand-picked ones and the seed corpus of
// FuzzScopesColumn.
func scopeColumns(t *testing.T) []string {
	cols := []string{"", "a", "a b", "read ", " read", "a  b", " ", "a\tb", "a\nb", "é", "a a", "a b a", "b a a",
		"ab b", "a ab", `a"b`, `a\b`, "a,b", "models:read tools:write", "x\x00y", "~!#[]", "a\u00a0b"}
	files, _ := filepath.Glob("testdata/fuzz/FuzzScopesColumn/*")
	if len(files) == 0 {
		t.Fatal("no seed corpus under testdata/fuzz/FuzzScopesColumn")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, line, _ := strings.Cut(string(b), "\n")
		line = strings.TrimSpace(line)
		q, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "string("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cols = append(cols, q)
	}
	return cols
}

// SPEC GRANT-1, GRANT-5: after Migrate, plain SQL cannot store a row that a read would
// refuse: the schema refuses exactly the scopes texts grants.CheckRow refuses, and every
// other broken field; a bad "*" row can no longer fail every principal's read.
func TestConstraintsRefusePlainSQL(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			ins := ph(b.dialect, "INSERT INTO tool_grants (principal_id, tool_name, scopes, effect, revision) VALUES (?, ?, ?, ?, ?)")
			for _, col := range scopeColumns(t) {
				want := grants.CheckRow(grants.Row{Principal: "*", Tool: "t", Scopes: decodeScopes(col), Effect: grants.Allow, Revision: 1}) == nil
				_, err := db.Exec(ins, "*", "t", col, "allow", 1)
				if got := err == nil; got != want {
					t.Errorf("GRANT-5: plain INSERT of scopes %q: stored %v, want %v (what a read accepts)", col, got, want)
				}
				if _, err := s.ReadGrants(ctx, "alice"); err != nil {
					t.Errorf("GRANT-5: after plain INSERT of scopes %q, alice's read fails: %v", col, err)
				}
				if _, err := db.Exec("DELETE FROM tool_grants"); err != nil {
					t.Fatal(err)
				}
				// The same text written by UPDATE.
				if _, err := db.Exec(ins, "*", "t", "", "allow", 1); err != nil {
					t.Fatal(err)
				}
				_, err = db.Exec(ph(b.dialect, "UPDATE tool_grants SET scopes = ?"), col)
				if got := err == nil; got != want {
					t.Errorf("GRANT-5: plain UPDATE to scopes %q: stored %v, want %v", col, got, want)
				}
				if _, err := db.Exec("DELETE FROM tool_grants"); err != nil {
					t.Fatal(err)
				}
			}
			for _, tc := range []struct {
				rule                                 string
				principal, tool, scopes, effect, rev any
			}{
				{"principal empty", "", "t", "", "allow", 1},
				{"principal NULL", nil, "t", "", "allow", 1},
				{"tool empty", "*", "", "", "allow", 1},
				{"tool NULL", "*", nil, "", "allow", 1},
				{"scopes NULL", "*", "t", nil, "allow", 1},
				{"effect ALLOW", "*", "t", "", "ALLOW", 1},
				{"effect empty", "*", "t", "", "", 1},
				{"effect NULL", "*", "t", "", nil, 1},
			} {
				if _, err := db.Exec(ins, tc.principal, tc.tool, tc.scopes, tc.effect, tc.rev); err == nil {
					t.Errorf("GRANT-1: plain INSERT with %s was stored, want it refused", tc.rule)
				}
			}
			// A revision below 1 or NULL is refused (SQLite) or replaced by the
			// trigger's (PostgreSQL): never stored.
			for _, rev := range []any{0, -5, nil} {
				_, err := db.Exec(ins, "*", "r", "", "deny", rev)
				if err == nil {
					var got int64
					if err := db.QueryRow("SELECT revision FROM tool_grants WHERE tool_name = 'r'").Scan(&got); err != nil || got != control(t, db) {
						t.Errorf("GRANT-1: plain INSERT with revision %v stored revision %d (%v), want it refused or the control revision", rev, got, err)
					}
				}
				db.Exec("DELETE FROM tool_grants")
				if _, err := db.Exec(ins, "*", "r", "", "deny", 1); err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(ph(b.dialect, "UPDATE tool_grants SET revision = ?"), rev); err == nil {
					var got int64
					if err := db.QueryRow("SELECT revision FROM tool_grants WHERE tool_name = 'r'").Scan(&got); err != nil || got < 1 {
						t.Errorf("GRANT-1: plain UPDATE to revision %v stored %d (%v), want it refused or >= 1", rev, got, err)
					}
				}
				db.Exec("DELETE FROM tool_grants")
			}
			if b.dialect == SQLite {
				for _, rev := range []any{1.5, "x", []byte{1}} {
					if _, err := db.Exec(ins, "*", "r", "", "deny", rev); err == nil {
						t.Errorf("GRANT-1: SQLite stored revision %#v, want it refused (not an integer)", rev)
					}
				}
				if _, err := db.Exec(ins, "*", "r", []byte("a"), "deny", 1); err == nil {
					t.Error("GRANT-1: SQLite stored a BLOB scopes column, want it refused")
				}
			}
			if _, err := s.ReadGrants(ctx, "alice"); err != nil {
				t.Errorf("GRANT-5: alice's read after the refused writes: %v", err)
			}
		})
	}
}

// SPEC GRANT-4: triggers count every plain SQL write like the Store's own: each row
// inserted, updated or deleted increments the control revision once, and an inserted or
// updated row takes it as its revision; a refused statement changes nothing; a Store
// sees the edits on its next read.
func TestTriggersCountPlainSQL(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			rowRev := func(p, tool string) int64 {
				t.Helper()
				var r int64
				if err := db.QueryRow(ph(b.dialect, "SELECT revision FROM tool_grants WHERE principal_id = ? AND tool_name = ?"), p, tool).Scan(&r); err != nil {
					t.Fatal(err)
				}
				return r
			}
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := db.Exec(ph(b.dialect, q), args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			c := control(t, db)
			step := func(what string, n int64, p, tool string) {
				t.Helper()
				got := control(t, db)
				if got != c+n {
					t.Errorf("GRANT-4: %s: control revision %d→%d, want +%d", what, c, got, n)
				}
				c = got
				if p != "" {
					if r := rowRev(p, tool); r != c {
						t.Errorf("GRANT-4: %s: row revision %d, want the control revision %d", what, r, c)
					}
				}
			}
			exec("INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 't', 'allow')")
			step("INSERT without a revision", 1, "alice", "t")
			exec("INSERT INTO tool_grants (principal_id, tool_name, effect, revision) VALUES ('alice', 'u', 'allow', 777)")
			step("INSERT with revision 777", 1, "alice", "u")
			exec("UPDATE tool_grants SET effect = 'deny' WHERE tool_name = 't'")
			step("UPDATE of the effect", 1, "alice", "t")
			exec("UPDATE tool_grants SET revision = 999 WHERE tool_name = 't'")
			step("UPDATE of the revision alone", 1, "alice", "t")
			exec("UPDATE tool_grants SET scopes = 'x y'")
			step("UPDATE of two rows", 2, "", "")
			if a, b := rowRev("alice", "t"), rowRev("alice", "u"); a == b || max(a, b) != c {
				t.Errorf("GRANT-4: the two updated rows have revisions %d and %d, want distinct, the higher %d", a, b, c)
			}
			snap, err := s.ReadGrants(ctx, "alice")
			if err != nil || snap.Revision != c || len(snap.Rows) != 2 || !slices.Equal(snap.Rows[0].Scopes, []string{"x", "y"}) {
				t.Errorf("GRANT-4: Store read after plain SQL = (%+v, %v), want revision %d and both edited rows", snap, err, c)
			}
			if _, err := db.Exec("UPDATE tool_grants SET scopes = 'x x'"); err == nil {
				t.Error("GRANT-5: an UPDATE to duplicate scopes was stored")
			}
			step("refused UPDATE", 0, "", "")
			exec("DELETE FROM tool_grants WHERE tool_name = 'u'")
			step("DELETE", 1, "", "")
			exec("DELETE FROM tool_grants WHERE tool_name = 'missing'")
			step("DELETE of nothing", 0, "", "")
			r, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
			if err != nil || r.Revision != c+1 {
				t.Errorf("GRANT-4: Put after plain SQL = (%+v, %v), want revision %d", r, err, c+1)
			}
			step("Put replacing a row", 1, "alice", "t")
			if rev, err := s.Remove(ctx, "alice", "t"); err != nil || rev != c+1 {
				t.Errorf("GRANT-4: Remove = (%d, %v), want %d", rev, err, c+1)
			}
			step("Remove", 1, "", "")
			if rev, err := s.Remove(ctx, "alice", "t"); err != nil || rev != 0 {
				t.Errorf("Remove of a missing row = (%d, %v), want (0, nil)", rev, err)
			}
			step("Remove of a missing row", 0, "", "")
		})
	}
}

// SPEC GRANT-4, FLAG-3: a Store over a database without the revision triggers (migrated
// to 0018 only) refuses to write rather than change a row uncounted.
func TestWriteWithoutTriggers(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			db := b.open(t)
			if err := migrate(context.Background(), db, b.dialect, nil, versionTables); err != nil {
				t.Fatal(err)
			}
			_, err := New(db, b.dialect).Put(context.Background(), grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
			checkClosed(t, "Put without 0019", err, grants.ErrUnavailable)
			if c, rows := readAll(t, db); c != 1 || len(rows) != 0 {
				t.Errorf("the refused Put changed the store: control %d, rows %q", c, rows)
			}
		})
	}
}

// SPEC GRANT-3: a database whose tables an older build made (no migrations record) is
// adopted: no compatibility row is inserted, edited rows are kept, and 0019 applies.
func TestMigrateAdoptsOlderDatabase(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			db := b.open(t)
			ms, err := Migrations(b.dialect)
			if err != nil || ms[0].Version != 18 {
				t.Fatalf("Migrations = %v, %v", ms, err)
			}
			for _, stmt := range splitStatements(ms[0].src) {
				if _, err := db.Exec(stmt); err != nil {
					t.Fatal(err)
				}
			}
			// The older build seeded "*" rows, then an operator deleted one and edited one.
			if _, err := db.Exec("INSERT INTO tool_grants VALUES ('*', 'kept', 'a', 'deny', 3)"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("UPDATE control_revisions SET revision = 3"); err != nil {
				t.Fatal(err)
			}
			c0, rows0 := readAll(t, db)
			compat := []grants.Row{{Principal: "*", Tool: "kept", Effect: grants.Allow}, {Principal: "*", Tool: "deleted", Effect: grants.Allow}}
			for range 2 {
				if err := Migrate(ctx, db, b.dialect, compat); err != nil {
					t.Fatal(err)
				}
				if c, rows := readAll(t, db); c != c0 || !slices.Equal(rows, rows0) {
					t.Errorf("GRANT-3: adopting changed the rows: control %d→%d, rows %q→%q", c0, c, rows0, rows)
				}
			}
			applied, err := Applied(ctx, db, b.dialect)
			if err != nil || len(applied) != len(ms) || applied[0].Checksum != ms[0].Checksum || applied[1].Name != "0019_grant_rules" {
				t.Errorf("Applied = (%+v, %v), want every embedded migration recorded", applied, err)
			}
		})
	}
}

// SPEC GRANT-5: 0019 is refused, naming the count, while rows break the model; nothing
// is deleted or changed, and it applies once they are fixed.
func TestMigrateRefusesBadRows(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			db := b.open(t)
			if err := migrate(ctx, db, b.dialect, nil, versionTables); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{
				"INSERT INTO tool_grants VALUES ('*', 'good', 'a b', 'allow', 1)",
				"INSERT INTO tool_grants VALUES ('*', 'spaces', 'read ', 'allow', 1)",
				"INSERT INTO tool_grants VALUES ('bob', 'twice', 'x x', 'deny', 1)",
				"INSERT INTO tool_grants VALUES ('*', 'tab', 'a\tb', 'allow', 1)",
			} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			c0, rows0 := readAll(t, db)
			err := Migrate(ctx, db, b.dialect, nil)
			var bad *BadRowsError
			if !errors.As(err, &bad) || bad.Count != 3 || !errors.Is(err, grants.ErrMalformed) {
				t.Fatalf("Migrate over 3 bad rows = %v, want a *BadRowsError counting 3", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "3 rows") || strings.Contains(msg, "read ") || strings.Contains(msg, "twice") {
				t.Errorf("BadRowsError text %q: want the count and no row content", msg)
			}
			if c, rows := readAll(t, db); c != c0 || !slices.Equal(rows, rows0) {
				t.Errorf("a refused Migrate changed rows: %q→%q", rows0, rows)
			}
			if applied, _ := Applied(ctx, db, b.dialect); len(applied) != 1 {
				t.Errorf("after the refusal Applied = %+v, want 0018 only", applied)
			}
			if _, err := db.Exec("DELETE FROM tool_grants WHERE tool_name <> 'good'"); err != nil {
				t.Fatal(err)
			}
			if err := Migrate(ctx, db, b.dialect, nil); err != nil {
				t.Fatalf("Migrate once the rows are fixed: %v", err)
			}
			if _, err := db.Exec("INSERT INTO tool_grants VALUES ('*', 'spaces', 'read ', 'allow', 1)"); err == nil {
				t.Error("GRANT-5: after 0019 a bad row is still stored")
			}
		})
	}
}

// A migration recorded with another checksum (another build's file) stops Migrate.
func TestMigrateChecksumMismatch(t *testing.T) {
	ctx := context.Background()
	db := dbtest.SQLite(t)
	if err := Migrate(ctx, db, SQLite, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE sqlstore_migrations SET checksum = 'other' WHERE version = 18"); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(ctx, db, SQLite, nil); !errors.Is(err, ErrMigrationChanged) {
		t.Errorf("Migrate over a changed 0018 = %v, want ErrMigrationChanged", err)
	}
}

// The splitter keeps trigger and function bodies whole.
func TestSplitStatements(t *testing.T) {
	for _, tc := range []struct {
		d    Dialect
		v    int
		want int
	}{{SQLite, 18, 3}, {Postgres, 18, 3}, {SQLite, 19, 9}, {Postgres, 19, 12}} {
		ms, err := Migrations(tc.d)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(ms, func(m Migration) bool { return m.Version == tc.v })
		stmts := splitStatements(ms[i].src)
		if len(stmts) != tc.want {
			t.Errorf("%s %d: %d statements, want %d: %q", tc.d, tc.v, len(stmts), tc.want, stmts)
		}
		for _, s := range stmts {
			if strings.HasPrefix(s, "--") || strings.HasSuffix(s, ";") && !strings.HasSuffix(s, "END;") {
				t.Errorf("%s %d: statement %q", tc.d, tc.v, s)
			}
		}
	}
}
