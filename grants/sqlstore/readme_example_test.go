package sqlstore_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"
	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// readmeSQLite is the README's SQLite snippet (Grants in a database).
func readmeSQLite(ctx context.Context, path string, compat []grants.Row) (*sqlstore.Store, error) {
	// SQLite reads a "file:" name as a URI: escape the path, where ?, # and % are not syntax.
	uri := (&url.URL{Path: path}).EscapedPath()
	db, err := sql.Open("sqlite", "file:"+uri+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	err = sqlstore.Migrate(ctx, db, sqlstore.SQLite, compat) // compat: the "*" rows of your public tools
	if err != nil {
		return nil, err
	}
	store := sqlstore.New(db, sqlstore.SQLite)
	return store, nil
}

// readmePostgres is the README's PostgreSQL snippet.
func readmePostgres(ctx context.Context, dsn string, compat []grants.Row) (*sqlstore.Store, error) {
	db, err := sql.Open("pgx", dsn) // dsn: "postgres://app@db.internal:5432/app"
	if err != nil {
		return nil, err
	}
	err = sqlstore.Migrate(ctx, db, sqlstore.Postgres, compat) // an advisory lock serialises processes starting at once
	if err != nil {
		return nil, err
	}
	store := sqlstore.New(db, sqlstore.Postgres)
	return store, nil
}

// The README's store snippets open, migrate with the compatibility rows and read: on
// SQLite always, on PostgreSQL when DEFERRED_TOOLS_TEST_POSTGRES names a server.
func TestREADMEStores(t *testing.T) {
	ctx := context.Background()
	compat := []grants.Row{{Principal: grants.AnyPrincipal, Tool: "status", Effect: grants.Allow}}
	check := func(t *testing.T, store *sqlstore.Store, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		snap, err := store.ReadGrants(ctx, "alice")
		if err != nil || len(snap.Rows) != 1 || snap.Rows[0].Tool != "status" {
			t.Fatalf("ReadGrants = %+v, %v; want the compatibility row", snap, err)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		store, err := readmeSQLite(ctx, filepath.Join(t.TempDir(), "grants.db"), compat)
		check(t, store, err)
	})
	// A path holding URI syntax opens that file, not the name before the ? or #.
	t.Run("sqlite/path-with-uri-syntax", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "g#1?x=1%41.db")
		store, err := readmeSQLite(ctx, path, compat)
		check(t, store, err)
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("the store's file is not at the path given: %v", err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		store, err := readmePostgres(ctx, dbtest.PostgresDSN(t), compat)
		check(t, store, err)
	})
}
