package main

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"
	_ "modernc.org/sqlite"             // driver "sqlite"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"
)

// open opens the database -db names. Only migrate may create a SQLite file.
func open(spec string, create bool) (*sql.DB, sqlstore.Dialect, error) {
	if path, ok := strings.CutPrefix(spec, "sqlite:"); ok {
		if path == "" {
			return nil, 0, usageErr("-db sqlite:PATH needs a path")
		}
		mode := "rw"
		if create {
			mode = "rwc"
		} else if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, 0, errNotMigrated // no file yet: migrate creates it
		}
		if !sqliteOrEmpty(path) {
			return nil, 0, errNotSQLite
		}
		// The path is percent-encoded: SQLite reads "file:" names as URIs, and the
		// driver reads what follows the first "?" as parameters.
		uri := (&url.URL{Path: filepath.Clean(path)}).EscapedPath()
		db, err := sql.Open("sqlite", "file:"+uri+"?mode="+mode+"&_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
		if err != nil {
			return nil, 0, grants.ErrUnavailable
		}
		return db, sqlstore.SQLite, nil
	}
	if strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://") {
		if _, err := pgx.ParseConfig(spec); err != nil {
			return nil, 0, errDBSpec // its text would quote the connection string
		}
		db, err := sql.Open("pgx", spec)
		if err != nil {
			return nil, 0, grants.ErrUnavailable
		}
		return db, sqlstore.Postgres, nil
	}
	return nil, 0, usageErr("-db must be sqlite:PATH or postgres://...")
}

// withStore opens -db and runs f with its Store under a one-minute deadline.
func withStore(spec string, f func(ctx context.Context, s *sqlstore.Store) error) error {
	db, d, err := open(spec, false)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := sqlstore.New(db, d)
	defer s.Close()
	err = f(ctx, s)
	if errors.Is(err, sqlstore.ErrUncounted) {
		return errUncounted
	}
	if errors.Is(err, grants.ErrUnavailable) {
		// The commonest cause on a new database: say so rather than "unavailable".
		if ms, aerr := sqlstore.Applied(ctx, db, d); aerr == nil && len(ms) == 0 {
			return errNotMigrated
		}
	}
	return err
}

// errNotMigrated refuses a grants command on a database no migration has run on.
// A missing SQLite file gets the same answer: migrate creates it.
var errNotMigrated = errors.New("deferredtools: the database has no grant tables; run deferredtools migrate first")

// errNotSQLite refuses a -db sqlite:PATH whose file holds something else; the driver
// would answer only "storage unavailable".
var errNotSQLite = errors.New("deferredtools: the -db file is not a SQLite database")

// sqliteHeader opens every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// sqliteOrEmpty reports whether the file at path is absent, empty (SQLite makes a
// database of it), unreadable (the driver says so) or starts with the SQLite header.
func sqliteOrEmpty(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, _ := io.ReadFull(f, head)
	return n == 0 || string(head[:n]) == sqliteHeader
}

// errDBSpec refuses a postgres:// connection string that cannot be parsed; like every
// refusal, it does not quote it (it may hold a password).
var errDBSpec = errors.New("deferredtools: the -db connection string cannot be parsed")

// errUncounted refuses a grants command whose read the store refused because its
// revision triggers are missing or disabled (sqlstore.ErrUncounted): it names the repair.
var errUncounted = errors.New("deferredtools: the revision triggers are missing or disabled, so every read fails; run deferredtools migrate -repair")

// errTriggers refuses a migrate over a database whose revision triggers are not the
// migrations' (sqlstore.ErrTriggersChanged).
var errTriggers = errors.New("deferredtools: the revision triggers are missing, disabled or changed, so every read fails; run deferredtools migrate -repair")
