package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// compileCounter opens SQLite connections that count how often the upsert of Put
// reaches a connection as SQL text to compile (run directly or prepared), and the
// transactions open at once (open, and the most seen, maxOpen).
type compileCounter struct {
	drv           driver.Driver
	dsn           string
	upserts       atomic.Int64
	open, maxOpen atomic.Int64
}

func (c *compileCounter) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: conn, c: c}, nil
}

func (c *compileCounter) Driver() driver.Driver { return c.drv }

func (c *compileCounter) saw(query string) {
	if strings.Contains(query, "INSERT INTO tool_grants") {
		c.upserts.Add(1)
	}
}

type countingConn struct {
	driver.Conn
	c *compileCounter
}

func (cc *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cc.c.saw(query)
	return cc.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (cc *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cc.c.saw(query)
	return cc.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (cc *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	cc.c.saw(query)
	return cc.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (cc *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := cc.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	n := cc.c.open.Add(1)
	for m := cc.c.maxOpen.Load(); n > m && !cc.c.maxOpen.CompareAndSwap(m, n); m = cc.c.maxOpen.Load() {
	}
	return &countedTx{Tx: tx, c: cc.c}, nil
}

// countedTx is a transaction compileCounter counts open until it commits or rolls back.
type countedTx struct {
	driver.Tx
	c    *compileCounter
	done atomic.Bool
}

func (t *countedTx) end() {
	if t.done.CompareAndSwap(false, true) {
		t.c.open.Add(-1)
	}
}

func (t *countedTx) Commit() error   { defer t.end(); return t.Tx.Commit() }
func (t *countedTx) Rollback() error { defer t.end(); return t.Tx.Rollback() }

// openCounted opens a migrated SQLite database of at most two connections through a
// compileCounter.
func openCounted(t *testing.T) (*sql.DB, *compileCounter) {
	return openCountedConns(t, 2)
}

// openCountedConns is openCounted with at most conns connections.
func openCountedConns(t *testing.T, conns int) (*sql.DB, *compileCounter) {
	t.Helper()
	probe, err := sql.Open("sqlite", "")
	if err != nil {
		t.Fatal(err)
	}
	drv := probe.Driver()
	probe.Close()
	c := &compileCounter{drv: drv, dsn: dbtest.SQLiteDSN(t, "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	t.Cleanup(func() { db.Close() })
	if err := Migrate(context.Background(), db, SQLite, nil); err != nil {
		t.Fatal(err)
	}
	c.upserts.Store(0) // the migrations' own INSERTs (of 0019 and 0021) are not Puts
	c.maxOpen.Store(0) // nor their transaction
	return db, c
}

// A Store compiles the upsert of Put (and the triggers it fires) once per connection,
// not at every Put: 40 Puts over two connections hand the upsert's text to a
// connection at most twice.
func TestSQLitePutPreparedOnce(t *testing.T) {
	ctx := context.Background()
	db, c := openCounted(t)
	s := New(db, SQLite)
	defer s.Close()
	for i := range 40 {
		r := grants.Row{Principal: "alice", Tool: "t" + string(rune('a'+i%20)), Effect: grants.Allow}
		if _, err := s.Put(ctx, r); err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
	}
	if n := c.upserts.Load(); n < 1 || n > 2 {
		t.Errorf("40 Puts over 2 connections compiled the upsert %d times, want 1 or 2", n)
	}
	snap, err := s.ReadGrants(ctx, "alice")
	if err != nil || len(snap.Rows) != 20 || snap.Revision != 41 {
		t.Errorf("ReadGrants = (%v, %v), want 20 rows at revision 41", snap, err)
	}
}

// SPEC GRANT-4: a Store's prepared writes follow a schema change made after they were
// prepared: with the revision triggers dropped, a Put or Delete that no trigger counts
// is rolled back and fails closed, as it would on a Store that prepared nothing.
func TestPreparedWritesFollowSchema(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			defer s.Close()
			row := grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}
			if _, err := s.Put(ctx, row); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "u", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, "alice", "u"); err != nil {
				t.Fatal(err)
			}
			drop := []string{"DROP TRIGGER tool_grants_insert", "DROP TRIGGER tool_grants_update", "DROP TRIGGER tool_grants_delete"}
			if b.dialect == Postgres {
				drop = []string{"DROP TRIGGER tool_grants_revise ON tool_grants"}
			}
			for _, q := range drop {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			before := control(t, db)
			_, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Deny})
			checkClosed(t, "Put without the triggers", err, grants.ErrUnavailable)
			if !errors.Is(err, errSchema) {
				t.Errorf("Put without the triggers: %v, want %v", err, errSchema)
			}
			err = s.Delete(ctx, "alice", "t")
			checkClosed(t, "Delete without the triggers", err, grants.ErrUnavailable)
			if !errors.Is(err, errSchema) {
				t.Errorf("Delete without the triggers: %v, want %v", err, errSchema)
			}
			var effect string
			if err := db.QueryRow("SELECT effect FROM tool_grants WHERE tool_name = 't'").Scan(&effect); err != nil || effect != "allow" {
				t.Errorf("row after the failed writes = (%q, %v), want it unchanged (allow)", effect, err)
			}
			if after := control(t, db); after != before {
				t.Errorf("control revision %d after the failed writes, want %d", after, before)
			}
		})
	}
}

// A Store made before its database is migrated fails its writes closed, then works
// once Migrate has run: a failed preparation is tried again, not kept.
func TestStoreBeforeMigrate(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			db := b.open(t)
			s := New(db, b.dialect)
			defer s.Close()
			row := grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}
			_, err := s.Put(ctx, row)
			checkClosed(t, "Put before Migrate", err, grants.ErrUnavailable)
			if err := Migrate(ctx, db, b.dialect, nil); err != nil {
				t.Fatal(err)
			}
			got, err := s.Put(ctx, row)
			if err != nil || got.Revision != 2 {
				t.Fatalf("Put after Migrate = (%v, %v), want revision 2", got, err)
			}
			if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 1 {
				t.Errorf("ReadGrants after Migrate = (%v, %v), want the row", snap, err)
			}
		})
	}
}

// Close releases the Store, not the database: every method then fails closed with
// ErrClosed, a second Close is harmless, and the *sql.DB serves a new Store.
func TestClose(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			row := grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}
			if _, err := s.Put(ctx, row); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ReadGrants(ctx, "alice"); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			_, err := s.Put(ctx, row)
			checkClosed(t, "Put after Close", err, ErrClosed)
			checkClosed(t, "Delete after Close", s.Delete(ctx, "alice", "t"), ErrClosed)
			_, err = s.ReadGrants(ctx, "alice")
			checkClosed(t, "ReadGrants after Close", err, ErrClosed)
			_, err = s.ListGrants(ctx, "", "")
			checkClosed(t, "ListGrants after Close", err, ErrClosed)
			if !errors.Is(ErrClosed, grants.ErrUnavailable) {
				t.Error("ErrClosed does not match grants.ErrUnavailable")
			}

			s2 := New(db, b.dialect)
			defer s2.Close()
			if snap, err := s2.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 1 {
				t.Errorf("a new Store over the same database: (%v, %v), want the row", snap, err)
			}
		})
	}
}

// On PostgreSQL a Store's statements follow a change of a column's type: after one
// failed call at most (pgx drops its cached statement on "cached plan must not change
// result type"), reads and writes work again on every pooled connection, where a
// statement the Store had prepared itself would keep failing.
func TestPostgresStatementsFollowColumnType(t *testing.T) {
	b := backends()[1]
	ctx := context.Background()
	s, db := newStore(t, b)
	defer s.Close()
	db.SetMaxOpenConns(1) // one connection: the one that ran every statement before
	row := grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}
	if _, err := s.Put(ctx, row); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadGrants(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("ALTER TABLE control_revisions ALTER COLUMN revision TYPE numeric(20)"); err != nil {
		t.Fatal(err)
	}
	works := func(what string, f func() error) {
		t.Helper()
		var err error
		for range 3 {
			if err = f(); err == nil {
				return
			}
		}
		t.Errorf("%s after the column type changed: %v three times", what, err)
	}
	works("Put", func() error { _, err := s.Put(ctx, row); return err })
	works("ReadGrants", func() error { _, err := s.ReadGrants(ctx, "alice"); return err })
	works("Delete", func() error { return s.Delete(ctx, "alice", "t") })
}

// A SQLite write leaves its connection's busy timeout as the host set it: the shorter
// timeout a write takes from its context's deadline does not stay on the pooled
// connection for the reads that use it next.
func TestSQLiteWriteRestoresBusyTimeout(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t, "sqlite", dbtest.SQLiteDSN(t, "_pragma=busy_timeout(7000)&_pragma=journal_mode(WAL)"))
	db.SetMaxOpenConns(1) // the write's connection is the one read next
	if err := Migrate(ctx, db, SQLite, nil); err != nil {
		t.Fatal(err)
	}
	s := New(db, SQLite)
	defer s.Close()
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := s.Put(wctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(wctx, "alice", "t"); err != nil {
		t.Fatal(err)
	}
	var ms int
	if err := db.QueryRow("PRAGMA busy_timeout").Scan(&ms); err != nil || ms != 7000 {
		t.Errorf("busy timeout after the writes = (%d, %v), want the DSN's 7000 ms", ms, err)
	}
}
