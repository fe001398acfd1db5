package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"github.com/deferredtools/deferredtools/internal/dbtest"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/grants"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// A backend opens a fresh, empty database of one dialect for a test.
type backend struct {
	dialect Dialect
	open    func(t testing.TB) *sql.DB
}

// backends lists SQLite always and PostgreSQL when dbtest.PostgresEnv is set; a test running
// over them reports the PostgreSQL skip in its own subtest.
func backends() []backend {
	return []backend{{SQLite, dbtest.SQLite}, {Postgres, dbtest.Postgres}}
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
