package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// Fields holding a tab, a newline, a control character or invalid UTF-8 (all of which
// the row model admits) are quoted in list and check text output, so that every row
// stays one line of five tab-separated fields and no stored byte reaches the terminal
// raw.
func TestListHostileFields(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "grants.db")
	ok(t, "migrate", "-db", db)
	hostile := []string{"al\tice", "al\nice", "a\x1b[2Jb", "x\xffy", `q"uote`}
	for _, p := range hostile {
		ok(t, "grants", "allow", "-db", db, "-principal", p, "-tool", p)
	}
	out := ok(t, "grants", "list", "-db", db)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1+len(hostile) {
		t.Fatalf("list printed %d lines, want the revision and %d rows:\n%q", len(lines), len(hostile), out)
	}
	for _, l := range lines[1:] {
		if f := strings.Split(l, "\t"); len(f) != 5 {
			t.Errorf("list row %q has %d tab-separated fields, want 5", l, len(f))
		}
	}
	for _, p := range hostile {
		out := ok(t, "grants", "check", "-db", db, "-principal", p)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 2 || len(strings.Split(lines[1], "\t")) != 7 {
			t.Errorf("check of a hostile principal printed %q, want the revision and one line of 7 fields", out)
		}
	}
	for _, c := range out {
		if c == utf8.RuneError || c == 0x1b {
			t.Errorf("list printed a raw %U: %q", c, out)
		}
	}
}

// A SQLite path holding the characters of URI syntax ("?", "#", "%") or spaces names
// that file: the path is not read as a URI with parameters. migrate creates exactly
// that file (and SQLite's -wal and -shm beside it), nothing else in the directory, and
// the grants commands and a Store opened with dbtest.SQLiteURI read the same database.
func TestSQLitePathURICharacters(t *testing.T) {
	for _, name := range []string{"a?b.db", "c#d.db", "e%3Ff.db", "g.db?_pragma=journal_mode(DELETE)&mode=memory",
		"h i.db", " j.db", "k%41.db", "l%zz #?.db"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		db := "sqlite:" + path
		ok(t, "migrate", "-db", db)
		ok(t, "grants", "allow", "-db", db, "-principal", "alice", "-tool", "t")
		if out := ok(t, "grants", "list", "-db", db); !strings.Contains(out, "alice\tt\tallow") {
			t.Errorf("list of %q printed %q", name, out)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != name && e.Name() != name+"-wal" && e.Name() != name+"-shm" {
				t.Errorf("migrate of %q made %q in its directory", name, e.Name())
			}
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("migrate of %q did not create that file: %v", name, err)
		}
		raw := dbtest.Open(t, "sqlite", dbtest.SQLiteURI(path, "mode=rw&_pragma=busy_timeout(5000)"))
		var n int
		if err := raw.QueryRow("SELECT count(*) FROM tool_grants WHERE principal_id = 'alice'").Scan(&n); err != nil || n != 1 {
			t.Errorf("the file %q read directly holds %d rows of alice (%v), want the one the command wrote", name, n, err)
		}
	}
}
