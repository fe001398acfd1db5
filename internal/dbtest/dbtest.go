// Package dbtest opens fresh SQLite and PostgreSQL databases for the module's tests, so
// every test that needs a real database sets one up the same way. Only tests import it.
package dbtest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"
	_ "modernc.org/sqlite"             // driver "sqlite"
)

// PostgresEnv names the variable holding a PostgreSQL connection string for the tests
// (`eval "$(bash .ci/postgres.sh | tail -n 1)"` sets it).
const PostgresEnv = "DEFERRED_TOOLS_TEST_POSTGRES"

// SQLiteDSN returns the DSN of a new database file in a temporary directory of t, with
// the given query string of pragmas (see SQLiteURI).
func SQLiteDSN(t testing.TB, pragmas string) string {
	return SQLiteURI(filepath.Join(t.TempDir(), "grants.db"), pragmas)
}

// SQLiteURI returns the DSN of the SQLite file at path, for modernc.org/sqlite, with the
// given query string of pragmas. The path is percent-encoded, as cmd/deferredtools and
// examples/mcpserver encode it: SQLite reads "file:" names as URIs ("#" would end the
// name, "%41" would be "A") and the driver takes what follows the first "?" as
// parameters. A test's temporary directory holds its name, "#", "%" and spaces
// included.
func SQLiteURI(path, pragmas string) string {
	return "file:" + (&url.URL{Path: filepath.Clean(path)}).EscapedPath() + "?" + pragmas
}

// SQLitePragmas are SQLite's pragmas for the tests: WAL mode, the busy timeout set
// before the journal mode (as the sqlstore package doc advises), durability off (tests
// measure locking and snapshots, not fsync).
const SQLitePragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)"

// SQLite opens a new SQLite database with SQLitePragmas, closed when the test ends.
func SQLite(t testing.TB) *sql.DB {
	t.Helper()
	return Open(t, "sqlite", SQLiteDSN(t, SQLitePragmas))
}

// Open opens dsn with driver, closed when the test ends.
func Open(t testing.TB, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// PostgresDSN creates a schema of its own in the database PostgresEnv names, dropped
// when the test ends, and returns a DSN whose search_path is that schema. It skips the
// test, saying why, when PostgresEnv is unset.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(PostgresEnv)
	if dsn == "" {
		t.Skipf("PostgreSQL tests skipped: set %s to a connection string (bash .ci/postgres.sh prints one)", PostgresEnv)
	}
	admin := Open(t, "pgx", dsn)
	var b [6]byte
	rand.Read(b[:])
	schema := "test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("dropping schema: %v", err)
		}
	})
	switch {
	case !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://"):
		return dsn + " search_path=" + schema // key=value form
	case strings.Contains(dsn, "?"):
		return dsn + "&search_path=" + schema
	default:
		return dsn + "?search_path=" + schema
	}
}

// Postgres opens a fresh schema of the database PostgresEnv names (see PostgresDSN).
func Postgres(t testing.TB) *sql.DB {
	t.Helper()
	return Open(t, "pgx", PostgresDSN(t))
}
