package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"github.com/deferredtools/deferredtools/internal/dbtest"
	"sync/atomic"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// canaryErr is the storage failure the fault driver injects; its text must never reach
// an error of this package (SPEC ERR-2).
var canaryErr = errors.New("canary-storage-secret: disk I/O error reading tool_grants (SELECT ...)")

// faultConnector opens SQLite connections whose query results fail with canaryErr after
// failAfter rows while armed: a connection lost in the middle of a read.
type faultConnector struct {
	drv       driver.Driver
	dsn       string
	armed     atomic.Bool
	failAfter atomic.Int64
}

func (c *faultConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &faultConn{Conn: conn, c: c}, nil
}

func (c *faultConnector) Driver() driver.Driver { return c.drv }

type faultConn struct {
	driver.Conn
	c *faultConnector
}

func (fc *faultConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := fc.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	if err != nil || !fc.c.armed.Load() {
		return rows, err
	}
	return &faultRows{Rows: rows, left: fc.c.failAfter.Load()}, nil
}

func (fc *faultConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return fc.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

// PrepareContext wraps the statements a Store prepares, whose queries fail alike.
func (fc *faultConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := fc.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &faultStmt{Stmt: st, c: fc.c}, nil
}

type faultStmt struct {
	driver.Stmt
	c *faultConnector
}

func (fs *faultStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := fs.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil || !fs.c.armed.Load() {
		return rows, err
	}
	return &faultRows{Rows: rows, left: fs.c.failAfter.Load()}, nil
}

func (fs *faultStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return fs.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

type faultRows struct {
	driver.Rows
	left int64
}

func (r *faultRows) Next(dest []driver.Value) error {
	if r.left == 0 {
		return canaryErr
	}
	r.left--
	return r.Rows.Next(dest)
}

// SPEC GRANT-5, ERR-2: a SQLite read whose connection fails part-way through the rows
// answers no Snapshot (never the rows read so far) and no storage text.
func TestSQLiteFailureMidRead(t *testing.T) {
	ctx := context.Background()
	probe, err := sql.Open("sqlite", "")
	if err != nil {
		t.Fatal(err)
	}
	drv := probe.Driver()
	probe.Close()
	c := &faultConnector{drv: drv, dsn: dbtest.SQLiteDSN(t, "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	if err := Migrate(ctx, db, SQLite, nil); err != nil {
		t.Fatal(err)
	}
	// The full read is under test: a Store that caches nothing reads the rows every time.
	s := NewWithOptions(db, SQLite, &Options{CacheBytes: -1})
	for i := range 100 {
		p := "alice"
		if i%2 == 0 {
			p = grants.AnyPrincipal
		}
		if _, err := s.Put(ctx, grants.Row{Principal: p, Tool: fmt.Sprintf("t%03d", i), Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 100 {
		t.Fatalf("ReadGrants before the fault = (%v, %v), want 100 rows", snap, err)
	}
	c.armed.Store(true)
	for _, after := range []int64{0, 1, 50, 99} {
		c.failAfter.Store(after)
		snap, err := s.ReadGrants(ctx, "alice")
		checkClosed(t, fmt.Sprintf("read failing after %d rows", after), err, grants.ErrUnavailable)
		if snap != nil {
			t.Errorf("read failing after %d rows answered a Snapshot of %d rows, want none", after, len(snap.Rows))
		}
	}
	c.armed.Store(false)
	if _, err := s.ReadGrants(ctx, "alice"); err != nil {
		t.Errorf("ReadGrants once the fault is gone: %v", err)
	}

	// SPEC GRANT-6: a caching Store whose control revision read fails answers no cached
	// Snapshot: the cache is never a fallback.
	cs := New(db, SQLite)
	if _, err := cs.ReadGrants(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	c.armed.Store(true)
	c.failAfter.Store(0)
	snap, err := cs.ReadGrants(ctx, "alice")
	checkClosed(t, "cached read whose control revision read fails", err, grants.ErrUnavailable)
	if snap != nil {
		t.Error("a cached read whose control revision read failed answered a Snapshot")
	}
	c.armed.Store(false)
}
