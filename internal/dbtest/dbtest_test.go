package dbtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// SQLite opens the file SQLiteDSN names in the test's temporary directory even when
// the test's name, and so that directory's, holds "#", "%", "&" or "=": no stray file
// elsewhere. (The path was not escaped: "#" ended the file name, so the
// database was a file named after the start of the directory, beside it.)
func TestSQLitePathCharacters(t *testing.T) {
	for _, name := range []string{"hash#mark", "percent%41", "percent%zz", "amp&x=1"} {
		t.Run(name, func(t *testing.T) {
			db := dbtest.SQLite(t)
			if _, err := db.Exec("CREATE TABLE x (a)"); err != nil {
				t.Fatal(err)
			}
			var seq int
			var schema, file string
			if err := db.QueryRow("PRAGMA database_list").Scan(&seq, &schema, &file); err != nil {
				t.Fatal(err)
			}
			if filepath.Base(file) != "grants.db" {
				t.Fatalf("the database is the file %q, want grants.db in the test's directory", file)
			}
			if _, err := os.Stat(file); err != nil {
				t.Fatal(err)
			}
			// The directory is the test's, named after it (t.TempDir keeps these
			// characters).
			if !strings.Contains(filepath.Dir(file), name) {
				t.Errorf("the database file %q is not in a directory named after %q", file, name)
			}
		})
	}
}
