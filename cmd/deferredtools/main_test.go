package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// bin is the command built once for every test.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "deferredtools-cli")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "deferredtools")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("building the command: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the command.
type result struct {
	code           int
	stdout, stderr string
}

func cli(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// ok runs the command and fails the test unless it exits 0; it returns stdout.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	r := cli(t, args...)
	if r.code != 0 {
		t.Fatalf("deferredtools %q: exit %d, stderr %q; want 0", args, r.code, r.stderr)
	}
	return r.stdout
}

// refused runs the command and fails the test unless it exits 1 with one line on stderr
// containing want.
func refused(t *testing.T, want string, args ...string) {
	t.Helper()
	r := cli(t, args...)
	if r.code != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("deferredtools %q = exit %d, stdout %q, stderr %q; want exit 1 and one line containing %q", args, r.code, r.stdout, r.stderr, want)
	}
}

// A target is one database the command runs against.
type target struct {
	name   string
	db     func(t *testing.T) (flag string, raw *sql.DB)
	driver string
}

func targets() []target {
	return []target{
		{"sqlite", func(t *testing.T) (string, *sql.DB) {
			path := filepath.Join(t.TempDir(), "grants.db")
			return "sqlite:" + path, dbtest.Open(t, "sqlite", dbtest.SQLiteURI(path, "_pragma=busy_timeout(5000)"))
		}, "sqlite"},
		{"postgres", func(t *testing.T) (string, *sql.DB) {
			dsn := dbtest.PostgresDSN(t)
			return dsn, dbtest.Open(t, "pgx", dsn)
		}, "pgx"},
	}
}

// SPEC GRANT-1..5, FLAG-3: every subcommand on SQLite and PostgreSQL: before migrate the
// store is unavailable (exit 1), then migrate, writes printing the new revision, list,
// check naming the deciding row, revoke; refused operations exit 1 with one line.
func TestCommand(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			db, raw := tg.db(t)
			// FLAG-3: no tables yet: every grants subcommand is refused, nothing is created.
			refused(t, "run deferredtools migrate first", "grants", "list", "-db", db)
			refused(t, "run deferredtools migrate first", "grants", "allow", "-db", db, "-principal", "alice", "-tool", "t")
			refused(t, "run deferredtools migrate first", "grants", "check", "-db", db, "-principal", "alice")
			refused(t, "run deferredtools migrate first", "grants", "revoke", "-db", db, "-principal", "alice", "-tool", "t")

			out := ok(t, "migrate", "-db", db)
			if !strings.Contains(out, "applied 0018_tool_grants\napplied 0019_grant_rules\napplied 0020_revision_once\napplied 0021_deleted_rows\napplied 0022_replaced_rows\napplied 0023_trigger_search_path\n") {
				t.Errorf("GRANT-3: first migrate printed %q, want every migration applied", out)
			}
			if out := ok(t, "migrate", "-db", db); out != "schema at 0023_trigger_search_path\n" {
				t.Errorf("GRANT-3: second migrate printed %q, want nothing applied", out)
			}

			// GRANT-4: each change prints the new control revision.
			for i, args := range [][]string{
				{"grants", "allow", "-principal", "alice", "-tool", "t", "-scopes", "a,b"},
				{"grants", "deny", "-principal", "alice", "-tool", "u"},
				{"grants", "allow", "-principal", "*", "-tool", "t"},
				{"grants", "allow", "-principal", "*", "-tool", "u"},
			} {
				want := "revision " + string(rune('2'+i)) + "\n"
				if out := ok(t, append(args, "-db", db)...); out != want {
					t.Errorf("GRANT-4: %q printed %q, want %q", args, out, want)
				}
			}

			if out := ok(t, "grants", "list", "-db", db); out != "revision 5\n*\tt\tallow\t-\t4\n*\tu\tallow\t-\t5\nalice\tt\tallow\ta,b\t2\nalice\tu\tdeny\t-\t3\n" {
				t.Errorf("GRANT-1: list printed %q", out)
			}
			// A listing read one row per page is the same listing.
			full := ok(t, "grants", "list", "-db", db)
			if out := ok(t, "grants", "list", "-db", db, "-page", "1"); out != full {
				t.Errorf("list -page 1 printed %q, want %q", out, full)
			}
			if a, b := ok(t, "grants", "list", "-db", db, "-json"), ok(t, "grants", "list", "-db", db, "-json", "-page", "3"); a != b || !json.Valid([]byte(a)) {
				t.Errorf("list -json -page 3 printed %q, want %q (valid JSON)", b, a)
			}
			if out := ok(t, "grants", "list", "-db", db, "-principal", "nobody", "-json"); out != "{\n  \"revision\": 5,\n  \"rows\": []\n}\n" {
				t.Errorf("list -json of no rows printed %q", out)
			}
			if out := ok(t, "grants", "list", "-db", db, "-principal", "alice", "-tool", "u"); out != "revision 5\nalice\tu\tdeny\t-\t3\n" {
				t.Errorf("list -principal alice -tool u printed %q", out)
			}
			var listed struct {
				Revision int64
				Rows     []struct {
					Principal, Tool, Effect string
					Scopes                  []string
					Revision                int64
				}
			}
			if err := json.Unmarshal([]byte(ok(t, "grants", "list", "-db", db, "-tool", "t", "-json")), &listed); err != nil {
				t.Fatal(err)
			}
			if listed.Revision != 5 || len(listed.Rows) != 2 || listed.Rows[1].Principal != "alice" ||
				strings.Join(listed.Rows[1].Scopes, " ") != "a b" || listed.Rows[1].Revision != 2 {
				t.Errorf("list -tool t -json = %+v", listed)
			}

			// GRANT-2: the decision and the deciding row.
			for _, tc := range []struct {
				args []string
				want string
			}{
				{[]string{"-principal", "alice", "-scopes", "a,b", "-tool", "t"}, "revision 5\nt\tgranted\talice\tt\tallow\ta,b\t2\n"},
				{[]string{"-principal", "alice", "-scopes", "a", "-tool", "t"}, "revision 5\nt\tdenied\talice\tt\tallow\ta,b\t2\n"},
				{[]string{"-principal", "alice", "-tool", "u"}, "revision 5\nu\tdenied\talice\tu\tdeny\t-\t3\n"},
				{[]string{"-principal", "bob", "-tool", "u"}, "revision 5\nu\tgranted\t*\tu\tallow\t-\t5\n"},
				{[]string{"-principal", "bob", "-tool", "v"}, "revision 5\nv\tdenied\tno row\n"},
				{[]string{"-principal", "bob"}, "revision 5\nt\tgranted\t*\tt\tallow\t-\t4\nu\tgranted\t*\tu\tallow\t-\t5\n"},
			} {
				if out := ok(t, append([]string{"grants", "check", "-db", db}, tc.args...)...); out != tc.want {
					t.Errorf("GRANT-2: check %q printed %q, want %q", tc.args, out, tc.want)
				}
			}

			if out := ok(t, "grants", "revoke", "-db", db, "-principal", "alice", "-tool", "t"); out != "revision 6\n" {
				t.Errorf("GRANT-4: revoke printed %q, want revision 6", out)
			}

			// Refused operations: exit 1, one line, nothing changed.
			refused(t, "no grant row", "grants", "revoke", "-db", db, "-principal", "alice", "-tool", "t")
			refused(t, "malformed row: scope", "grants", "allow", "-db", db, "-principal", "alice", "-tool", "t", "-scopes", "a b")
			refused(t, "malformed row: scope", "grants", "allow", "-db", db, "-principal", "alice", "-tool", "t", "-scopes", "a,a")
			refused(t, "malformed row: scope", "grants", "allow", "-db", db, "-principal", "alice", "-tool", "t", "-scopes", "a,,b")
			if out := ok(t, "grants", "list", "-db", db, "-principal", "alice"); out != "revision 6\nalice\tu\tdeny\t-\t3\n" {
				t.Errorf("refused operations changed the store: list printed %q", out)
			}

			// Plain SQL edits are seen, counted by the triggers (GRANT-4).
			if _, err := raw.Exec("UPDATE tool_grants SET effect = 'allow' WHERE principal_id = 'alice'"); err != nil {
				t.Fatal(err)
			}
			if out := ok(t, "grants", "check", "-db", db, "-principal", "alice", "-tool", "u"); out != "revision 7\nu\tgranted\talice\tu\tallow\t-\t7\n" {
				t.Errorf("GRANT-4: check after a plain SQL edit printed %q", out)
			}
			// A storage failure is a refusal too.
			if _, err := raw.Exec("DELETE FROM control_revisions"); err != nil {
				t.Fatal(err)
			}
			refused(t, "control revision missing", "grants", "list", "-db", db)
			refused(t, "control revision missing", "grants", "deny", "-db", db, "-principal", "alice", "-tool", "u")
		})
	}
}

// SPEC GRANT-5: migrate refuses a database holding rows that break the row model, naming
// their count, and deletes nothing.
func TestMigrateRefused(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			db, raw := tg.db(t)
			// An older build's tables, with rows no read accepts.
			for _, q := range []string{
				"CREATE TABLE control_revisions (name TEXT NOT NULL PRIMARY KEY, revision BIGINT NOT NULL)",
				"INSERT INTO control_revisions VALUES ('model_grants', 3)",
				"CREATE TABLE tool_grants (principal_id TEXT NOT NULL, tool_name TEXT NOT NULL, scopes TEXT NOT NULL, effect TEXT NOT NULL, revision BIGINT NOT NULL, PRIMARY KEY (principal_id, tool_name))",
				"INSERT INTO tool_grants VALUES ('*', 'a', 'read ', 'allow', 1), ('*', 'b', 'x', 'ALLOW', 2), ('*', 'c', 'x', 'allow', 3)",
			} {
				if _, err := raw.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			refused(t, "2 rows break the grant row model", "migrate", "-db", db)
			var n int
			if err := raw.QueryRow("SELECT count(*) FROM tool_grants").Scan(&n); err != nil || n != 3 {
				t.Errorf("the refused migrate left %d rows (%v), want all 3", n, err)
			}
			if _, err := raw.Exec("DELETE FROM tool_grants WHERE tool_name <> 'c'"); err != nil {
				t.Fatal(err)
			}
			ok(t, "migrate", "-db", db)
			if out := ok(t, "grants", "list", "-db", db); out != "revision 3\n*\tc\tallow\tx\t3\n" {
				t.Errorf("GRANT-3: the adopted database lists %q, want its row kept", out)
			}
		})
	}
}

// Usage errors exit 2 and print the usage.
func TestUsage(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "g.db")
	for _, args := range [][]string{
		{},
		{"frob"},
		{"grants"},
		{"grants", "frob", "-db", db},
		{"catalog", "check"},
		{"catalog", "check", "a.json", "b.json"},
		{"catalog", "check", "a.json", "-bogus"},
		{"catalog", "frob"},
		{"catalog"},
		{"rank"},
		{"rank", "frob"},
		{"rank", "eval"},
		{"rank", "eval", "-catalog", "a.json"},
		{"rank", "eval", "-queries", "q.json"},
		{"rank", "eval", "-catalog", "a.json", "-queries", "q.json", "extra"},
		{"migrate"},
		{"migrate", "-db", "mysql://x"},
		{"migrate", "-db", "sqlite:"},
		{"migrate", "-db", db, "extra"},
		{"grants", "list", "-db", db, "-bogus"},
		{"grants", "allow", "-db", db, "-tool", "t"},
		{"grants", "allow", "-db", db, "-principal", "p"},
		{"grants", "deny", "-db", db, "-principal", "p", "-tool", "t", "-scopes", "a"},
		{"grants", "revoke", "-db", db, "-principal", "p"},
		{"grants", "check", "-db", db, "-tool", "t"},
		{"grants", "list", "-principal", "p"},
		{"grants", "list", "-db", db, "-page", "0"},
		{"grants", "list", "-db", db, "-page", "10001"},
	} {
		r := cli(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "usage:") || r.stdout != "" {
			t.Errorf("deferredtools %q = exit %d, stdout %q, stderr %q; want exit 2 and the usage", args, r.code, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(strings.TrimPrefix(db, "sqlite:")); err == nil {
		t.Error("a usage error created the database file")
	}
}

// A command group followed by a subcommand it lacks (deferredtools rank bogus) is a
// usage error naming the group and printing that group's usage to stderr: exit 2. The
// rank and catalog groups answered "unknown command" and every group the whole usage.
func TestGroupUnknownSubcommand(t *testing.T) {
	for _, tc := range []struct{ group, sub string }{
		{"grants", "grants list"}, {"catalog", "catalog check"}, {"rank", "rank eval"},
	} {
		r := cli(t, tc.group, "bogus")
		if r.code != 2 || r.stdout != "" {
			t.Errorf("deferredtools %s bogus = exit %d, stdout %q; want exit 2, nothing on stdout", tc.group, r.code, r.stdout)
		}
		if !strings.HasPrefix(r.stderr, "deferredtools: usage: unknown "+tc.group+" subcommand\n") {
			t.Errorf("deferredtools %s bogus: stderr %q, want it to name the group", tc.group, r.stderr)
		}
		if !strings.Contains(r.stderr, "\n  deferredtools "+tc.sub+" ") || strings.Contains(r.stderr, "deferredtools migrate") {
			t.Errorf("deferredtools %s bogus: stderr %q, want the group's usage alone", tc.group, r.stderr)
		}
	}
}

// A command group named alone (deferredtools grants) is a usage error that says so and
// prints that group's usage, its subcommands, to stderr: exit 2. It answered "unknown
// command".
func TestGroupWithoutSubcommand(t *testing.T) {
	for _, tc := range []struct {
		group       string
		subcommands []string
	}{
		{"grants", []string{"grants list", "grants allow", "grants deny", "grants revoke", "grants check"}},
		{"catalog", []string{"catalog check"}},
		{"rank", []string{"rank eval"}},
	} {
		r := cli(t, tc.group)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("deferredtools %s = exit %d, stdout %q; want exit 2, nothing on stdout", tc.group, r.code, r.stdout)
		}
		if strings.Contains(r.stderr, "unknown") || !strings.HasPrefix(r.stderr, "deferredtools: usage: "+tc.group+" needs a subcommand\n") {
			t.Errorf("deferredtools %s: stderr %q, want it to say the group needs a subcommand", tc.group, r.stderr)
		}
		for _, sub := range tc.subcommands {
			if !strings.Contains(r.stderr, "\n  deferredtools "+sub+" ") {
				t.Errorf("deferredtools %s: stderr %q lacks the usage of %s", tc.group, r.stderr, sub)
			}
		}
		if strings.Contains(r.stderr, "deferredtools migrate") {
			t.Errorf("deferredtools %s: stderr %q holds other commands' usage, want the group's", tc.group, r.stderr)
		}
	}
}

// A listing read in pages refuses (exit 1, one line) when grants change between its
// pages: each page is one consistent read, and pages of different control revisions
// together could miss or repeat a change. Writers here change grants without pause
// while list reads 500 pages of one row.
func TestListChangedBetweenPages(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) {
			db, raw := tg.db(t)
			ok(t, "migrate", "-db", db)
			ins := "INSERT INTO tool_grants (principal_id, tool_name, effect) SELECT 'bulk', 'tool' || x, 'allow' FROM "
			if tg.name == "sqlite" {
				ins += "(WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 500) SELECT x FROM n)"
			} else {
				ins += "generate_series(1, 500) x"
			}
			if _, err := raw.Exec(ins); err != nil {
				t.Fatal(err)
			}
			// A writer flips a row while the listing pages. Its writes may all land before
			// the first page or after the last on a loaded machine (SQLite writers also
			// wait on the readers' lock), so an exit 0 is inconclusive and is tried again;
			// a listing that never notices a change fails all three tries.
			var r result
			for try := 0; try < 3; try++ {
				done := make(chan struct{})
				stopped := make(chan struct{})
				go func() {
					defer close(stopped)
					for {
						select {
						case <-done:
							return
						default:
						}
						raw.Exec("UPDATE tool_grants SET effect = CASE effect WHEN 'allow' THEN 'deny' ELSE 'allow' END WHERE principal_id = 'bulk' AND tool_name = 'tool1'")
					}
				}()
				r = cli(t, "grants", "list", "-db", db, "-page", "1")
				close(done)
				<-stopped
				if r.code != 0 {
					break
				}
			}
			if r.code != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "grants changed while listing") {
				t.Errorf("grants list during writes = exit %d, stderr %q; want exit 1 and one line saying grants changed", r.code, r.stderr)
			}
		})
	}
}

// TestNotMigrated checks that a grants command on a database no migration has run on
// (a missing SQLite file, or an empty one) says to run migrate, creates nothing, and
// that every refusal names the command.
func TestNotMigrated(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	refused(t, "run deferredtools migrate first", "grants", "list", "-db", "sqlite:"+missing)
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("grants list created %s (stat: %v)", missing, err)
	}
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, "run deferredtools migrate first", "grants", "check", "-db", "sqlite:"+empty, "-principal", "alice")
	r := cli(t, "grants", "revoke", "-db", "sqlite:"+empty, "-principal", "alice", "-tool", "t")
	if !strings.HasPrefix(r.stderr, "deferredtools: ") {
		t.Errorf("stderr %q does not name the command", r.stderr)
	}
}

// A postgres:// connection string that cannot be parsed is refused as such, not as
// unavailable storage, and its text (it may hold a password) is not quoted.
func TestBadPostgresURL(t *testing.T) {
	for _, spec := range []string{"postgres://u:s3cret@host:notaport/db", "postgresql://u:s3cret@[::1/db"} {
		r := cli(t, "grants", "list", "-db", spec)
		if r.code != 1 || !strings.Contains(r.stderr, "connection string cannot be parsed") || strings.Contains(r.stderr, "s3cret") {
			t.Errorf("grants list -db %q = exit %d, stderr %q; want exit 1, the parse refusal, no password", spec, r.code, r.stderr)
		}
	}
}
