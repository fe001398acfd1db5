package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"
)

// openDB opens the SQL grant store named by -db (sqlite:PATH, a file path: "?", "#" and
// "%" are part of the name, as for cmd/deferredtools), creating the file and
// applying the migrations not yet recorded in it (sqlstore.Migrate). compat are the
// compatibility rows (principal "*") inserted when migration 0018 first runs, that is
// on the database's first start only: a "*" row deleted or edited since stays so across
// restarts (SPEC GRANT-3). The database is the grant store from then on: change grants
// with `go run ./cmd/deferredtools grants ...`, SQL or sqlstore.Store.Put, and every
// call sees the change.
func openDB(ctx context.Context, spec string, compat []grants.Row) (grants.Reader, error) {
	path, ok := strings.CutPrefix(spec, "sqlite:")
	if !ok || path == "" {
		return nil, errors.New("-db: want sqlite:PATH")
	}
	// PATH is a file path, as for cmd/deferredtools: percent-encoded, since SQLite reads
	// "file:" names as URIs and the driver takes what follows the first "?" as parameters.
	uri := (&url.URL{Path: filepath.Clean(path)}).EscapedPath()
	db, err := sql.Open("sqlite", "file:"+uri+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, fmt.Errorf("-db: %w", err)
	}
	if err := sqlstore.Migrate(ctx, db, sqlstore.SQLite, compat); err != nil {
		db.Close()
		return nil, fmt.Errorf("-db: migrate: %w", err)
	}
	return sqlstore.New(db, sqlstore.SQLite), nil
}
