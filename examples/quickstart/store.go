package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx", for -db postgres:URL
	_ "modernc.org/sqlite"             // the database/sql driver "sqlite", for -db sqlite:FILE

	"github.com/deferredtools/deferredtools/examples/internal/demo"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"
)

// The row the walk-through itself changes (it denies alice deployments_delete). A SQL
// store keeps it between runs, so seeding removes it: every run prints the same.
const changedPrincipal, changedTool = "alice", "deployments_delete"

// grantStore is where the walk-through keeps grants: grants.Memory, or a SQL database
// named by -db.
type grantStore struct {
	grants.Store
	db      *sql.DB          // nil in memory
	dialect sqlstore.Dialect // 0 in memory
	where   string           // what -db named, without credentials
}

// Close closes the database, if any.
func (s *grantStore) Close() error {
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

// openStore returns the store -db names ("" for memory, "sqlite:FILE", "postgres:URL"
// or a postgres:// URL) holding the demo's grants.
//
// In memory every demo row is Put. In a database, migration 0018 is applied with the
// demo's "*" rows as its compatibility rows (inserted where no row exists; rows already
// there, edited or not, are kept: SPEC GRANT-3), the demo's own rows of each principal
// are Put, and the row the walk-through changes is deleted.
func openStore(ctx context.Context, spec string) (*grantStore, error) {
	rows := demo.Rows()
	if spec == "" {
		m := grants.NewMemory()
		for _, r := range rows {
			if _, err := m.Put(ctx, r); err != nil {
				return nil, err
			}
		}
		return &grantStore{Store: m}, nil
	}

	s, err := openDB(spec)
	if err != nil {
		return nil, err
	}
	var compat, own []grants.Row
	for _, r := range rows {
		if r.Principal == grants.AnyPrincipal {
			compat = append(compat, r)
		} else {
			own = append(own, r)
		}
	}
	if err := s.seed(ctx, compat, own); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// openDB opens the database spec names; nothing is read or written yet.
func openDB(spec string) (*grantStore, error) {
	var (
		driver, dsn string
		s           = &grantStore{}
	)
	switch {
	case strings.HasPrefix(spec, "sqlite:"):
		path := strings.TrimPrefix(spec, "sqlite:")
		if path == "" || strings.ContainsAny(path, "?#") {
			return nil, errors.New("quickstart: -db sqlite:FILE needs a file name without '?' or '#'")
		}
		// The busy timeout comes first: it then also covers switching to WAL, which
		// connections opening at once would otherwise fail with "database is locked".
		// In WAL mode readers never wait for the writer.
		driver, dsn = "sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)"
		s.dialect, s.where = sqlstore.SQLite, "SQLite "+path
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		driver, dsn = "pgx", spec
		s.dialect, s.where = sqlstore.Postgres, "PostgreSQL"
	case strings.HasPrefix(spec, "postgres:"):
		driver, dsn = "pgx", strings.TrimPrefix(spec, "postgres:")
		s.dialect, s.where = sqlstore.Postgres, "PostgreSQL"
	default:
		return nil, errors.New("quickstart: -db wants sqlite:FILE or postgres:URL")
	}
	if dsn == "" {
		return nil, errors.New("quickstart: -db postgres:URL needs a connection string")
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("quickstart: -db: %w", err)
	}
	s.db = db
	s.Store = sqlstore.New(db, s.dialect)
	return s, nil
}

// seed migrates the database and writes the demo's rows of its principals.
func (s *grantStore) seed(ctx context.Context, compat, own []grants.Row) error {
	if err := sqlstore.Migrate(ctx, s.db, s.dialect, compat); err != nil {
		return fmt.Errorf("quickstart: migration 0018: %w", err)
	}
	for _, r := range own {
		if _, err := s.Put(ctx, r); err != nil {
			return fmt.Errorf("quickstart: writing the demo's grants: %w", err)
		}
	}
	for _, r := range own {
		if r.Principal == changedPrincipal && r.Tool == changedTool {
			return nil // Put above restored the demo's row
		}
	}
	if err := s.Delete(ctx, changedPrincipal, changedTool); err != nil {
		return fmt.Errorf("quickstart: resetting the walk-through's change: %w", err)
	}
	return nil
}
