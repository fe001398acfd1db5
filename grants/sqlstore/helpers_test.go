package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/grants"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// postgresEnv names the variable holding a PostgreSQL connection string for the tests.
const postgresEnv = "DEFERRED_TOOLS_TEST_POSTGRES"

// A backend opens a fresh, empty database of one dialect for a test.
type backend struct {
	dialect Dialect
	open    func(t testing.TB) *sql.DB
}

// backends lists SQLite always and PostgreSQL when postgresEnv is set; a test running
// over them reports the PostgreSQL skip in its own subtest.
func backends() []backend {
	return []backend{{SQLite, openSQLite}, {Postgres, openPostgres}}
}

// sqliteDSN is the DSN of a new database file in a temporary directory.
func sqliteDSN(t testing.TB, pragmas string) string {
	return "file:" + filepath.Join(t.TempDir(), "grants.db") + "?" + pragmas
}

// openSQLite opens a new SQLite database in WAL mode, as the package doc advises.
// Durability is off: the tests measure locking and snapshots, not fsync.
func openSQLite(t testing.TB) *sql.DB {
	t.Helper()
	return openSQLiteDSN(t, sqliteDSN(t, "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)"))
}

func openSQLiteDSN(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openPostgres opens the database postgresEnv names, in a schema of its own that is
// dropped when the test ends, or skips the test when postgresEnv is unset.
func openPostgres(t testing.TB) *sql.DB {
	t.Helper()
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		t.Skipf("PostgreSQL tests skipped: set %s to a connection string (.ci/postgres.sh prints one)", postgresEnv)
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	var b [6]byte
	rand.Read(b[:])
	schema := "grants_test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("dropping schema: %v", err)
		}
	})
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if strings.Contains(dsn, "?") {
			dsn += "&search_path=" + schema
		} else {
			dsn += "?search_path=" + schema
		}
	} else {
		dsn += " search_path=" + schema
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newStore opens a fresh database of b's dialect, migrates it and returns its Store.
func newStore(t testing.TB, b backend, compat ...grants.Row) (*Store, *sql.DB) {
	t.Helper()
	db := b.open(t)
	if err := Migrate(context.Background(), db, b.dialect, compat); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return New(db, b.dialect), db
}

// storageWords are fragments of driver, SQL and schema text that must never appear in
// an error (SPEC ERR-2).
var storageWords = []string{
	"sqlite", "SQLITE", "SQL", "sql:", "table", "tool_grants", "control_revisions", "model_grants",
	"locked", "busy", "no such", "closed", "FATAL", "ERROR", "pgx", "pq:", "terminat", "relation",
	"connection", "canary", "SELECT", "UPDATE", "INSERT", "syntax", "constraint", "(",
}

// checkClosed fails t unless err matches want and its text is a fixed text of this
// module that carries no storage text.
func checkClosed(t *testing.T, what string, err, want error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %v (fail closed)", what, want)
		return
	}
	if !errors.Is(err, want) {
		t.Errorf("%s: error %q does not match %v", what, err, want)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "sqlstore: ") && !strings.HasPrefix(msg, "grants: ") {
		t.Errorf("%s: error %q lacks the package prefix", what, msg)
	}
	for _, w := range storageWords {
		if strings.Contains(msg, w) {
			t.Errorf("ERR-2: %s: error %q contains storage text %q", what, msg, w)
		}
	}
}
