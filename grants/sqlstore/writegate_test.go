package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// txCounter opens SQLite connections that count the transactions open at once.
type txCounter struct {
	drv       driver.Driver
	dsn       string
	open, max atomic.Int64
}

func (c *txCounter) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &txConn{Conn: conn, c: c}, nil
}

func (c *txCounter) Driver() driver.Driver { return c.drv }

type txConn struct {
	driver.Conn
	c *txCounter
}

func (tc *txConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return tc.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (tc *txConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return tc.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (tc *txConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return tc.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (tc *txConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := tc.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	n := tc.c.open.Add(1)
	for m := tc.c.max.Load(); n > m && !tc.c.max.CompareAndSwap(m, n); m = tc.c.max.Load() {
	}
	return &countedTx{Tx: tx, c: tc.c}, nil
}

type countedTx struct {
	driver.Tx
	c    *txCounter
	done atomic.Bool
}

func (t *countedTx) end() {
	if t.done.CompareAndSwap(false, true) {
		t.c.open.Add(-1)
	}
}

func (t *countedTx) Commit() error   { defer t.end(); return t.Tx.Commit() }
func (t *countedTx) Rollback() error { defer t.end(); return t.Tx.Rollback() }

// On SQLite a Store runs one write at a time: 16 goroutines writing at once through 8
// connections never hold two write transactions open together (they queue in the
// Store instead of racing for the database's one write lock through busy retries,
// which starved some writes for tens of seconds under load), and every write lands.
func TestSQLiteWritesQueue(t *testing.T) {
	probe, err := sql.Open("sqlite", "")
	if err != nil {
		t.Fatal(err)
	}
	drv := probe.Driver()
	probe.Close()
	c := &txCounter{drv: drv, dsn: dbtest.SQLiteDSN(t, "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(8)
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if err := Migrate(ctx, db, SQLite, nil); err != nil {
		t.Fatal(err)
	}
	c.max.Store(0)
	s := New(db, SQLite)
	defer s.Close()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 10 {
				r := grants.Row{Principal: "alice", Tool: fmt.Sprintf("t%d_%d", g, i), Effect: grants.Allow}
				if _, err := s.Put(ctx, r); err != nil {
					t.Errorf("Put: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if m := c.max.Load(); m != 1 {
		t.Errorf("%d write transactions open at once, want 1", m)
	}
	snap, err := s.ReadGrants(ctx, "alice")
	if err != nil || len(snap.Rows) != 160 || snap.Revision != 161 {
		t.Errorf("ReadGrants: %d rows at revision %d (%v), want 160 at 161 (the migrations count 1)", len(snap.Rows), snap.Revision, err)
	}
}

// A SQLite write waiting its turn in the Store's queue stops at its context's deadline
// and fails closed (storage unavailable), writing nothing.
func TestSQLiteWriteQueueDeadline(t *testing.T) {
	s, _ := newStore(t, backends()[0])
	defer s.Close()
	if s.dialect != SQLite {
		t.Fatal("backends()[0] is not SQLite")
	}
	s.writing <- struct{}{} // another write in progress
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
	if !errors.Is(err, grants.ErrUnavailable) {
		t.Errorf("Put behind a write in progress past its deadline = %v, want ErrUnavailable", err)
	}
	<-s.writing
	snap, err := s.ReadGrants(context.Background(), "alice")
	if err != nil || len(snap.Rows) != 0 {
		t.Errorf("ReadGrants after the refused Put: %v rows (%v), want none", snap, err)
	}
	if _, err := s.Put(context.Background(), grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}); err != nil {
		t.Errorf("Put once the queue is free: %v", err)
	}
}
