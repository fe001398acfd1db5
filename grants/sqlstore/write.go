package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/deferredtools/deferredtools/grants"
)

// Put inserts or replaces the row keyed by (r.Principal, r.Tool), in one transaction
// with the increment of the control revision, whose new value becomes the row's
// revision (SPEC GRANT-4). A row failing grants.CheckRow (r.Revision aside) is refused
// with a *grants.MalformedError before the database is touched.
func (s *Store) Put(ctx context.Context, r grants.Row) (grants.Row, error) {
	r.Revision = 1
	if err := grants.CheckRow(r); err != nil {
		return grants.Row{}, err
	}
	r.Scopes = slices.Clone(r.Scopes)
	scopes := encodeScopes(r.Scopes)
	if s.dialect == Postgres {
		rev, err := s.putPostgres(ctx, r, scopes)
		if err != nil {
			return grants.Row{}, err
		}
		r.Revision = rev
		return r, nil
	}
	rev, err := s.write(ctx, func(tx *sql.Tx, st *statements, rev int64) (bool, error) {
		_, err := st.upsert.exec(ctx, tx, r.Principal, r.Tool, scopes, string(r.Effect), rev)
		return true, err
	})
	if err != nil {
		return grants.Row{}, err
	}
	r.Revision = rev
	return r, nil
}

// putPostgres is Put on PostgreSQL in one statement: the BEFORE trigger of migration
// 0020 locks the control row (writers queue there), counts the change and stamps the
// row, and RETURNING answers the stamped revision. The statement offers revision 1,
// which no counted change can take (the control revision starts at 1), so a 1 back
// means no trigger ran: the transaction is rolled back (errSchema).
func (s *Store) putPostgres(ctx context.Context, r grants.Row, scopes string) (int64, error) {
	st, err := s.writeStatements(ctx)
	if err != nil {
		return 0, err
	}
	var rev int64
	err = postgresTx(ctx, s.db, func(tx *sql.Tx) (bool, error) {
		if err := st.upsert.row(ctx, nil, tx, r.Principal, r.Tool, scopes, string(r.Effect), 1).Scan(&rev); err != nil {
			return false, err
		}
		if rev < 2 {
			return false, errSchema
		}
		return true, nil
	})
	switch {
	case err == nil:
		s.raise(rev)
		return rev, nil
	case errors.Is(err, errSchema):
		return 0, err
	case strings.Contains(err.Error(), "control revision missing"): // the trigger's exception
		return 0, errNoControl
	}
	return 0, fail(ctx, "write", err)
}

// Delete removes the row keyed by (principal, tool) in one transaction with the
// increment of the control revision. Deleting a missing row changes nothing, the
// control revision included.
func (s *Store) Delete(ctx context.Context, principal, tool string) error {
	_, err := s.delete(ctx, principal, tool)
	return err
}

// delete is Delete, answering the control revision of the change (0 when nothing
// changed).
func (s *Store) delete(ctx context.Context, principal, tool string) (int64, error) {
	return s.write(ctx, func(tx *sql.Tx, st *statements, rev int64) (bool, error) {
		res, err := st.remove.exec(ctx, tx, principal, tool)
		if err != nil {
			return false, err
		}
		n, err := res.RowsAffected()
		return n > 0, err
	})
}

// An execer is a transaction's connection: a *sql.Tx or a *sql.Conn in BEGIN.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// write runs change in one transaction after reading the control revision with the lock
// query (locking its row; on SQLite, the database), passing change the revision its
// change will take and the Store's prepared statements. The triggers of
// migration 0019 increment the control revision once per changed row; write commits when
// change reports a change counted exactly once, else rolls back. It answers the new
// control revision, or 0 when nothing changed.
func (s *Store) write(ctx context.Context, change func(tx *sql.Tx, st *statements, rev int64) (bool, error)) (int64, error) {
	st, err := s.writeStatements(ctx)
	if err != nil {
		return 0, err
	}
	if s.dialect == SQLite {
		if !s.enterWrite(ctx) {
			return 0, fail(ctx, "write", nil)
		}
		defer func() { <-s.writing }()
	}
	var (
		rev     int64
		changed bool
	)
	err = stmtTx(ctx, s.db, s.dialect, &s.busy, func(tx *sql.Tx) (bool, error) {
		var before int64
		if err := st.lock.row(ctx, nil, tx).Scan(&before); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return false, errNoControl
			}
			return false, err
		}
		var err error
		changed, err = change(tx, st, before+1)
		if err != nil || !changed {
			return false, err
		}
		if err := st.control.row(ctx, nil, tx).Scan(&rev); err != nil {
			return false, err
		}
		if rev != before+1 { // no trigger counted the change: 0019 is not applied
			return false, errSchema
		}
		return true, nil
	})
	if err != nil {
		if errors.Is(err, errNoControl) || errors.Is(err, errSchema) {
			return 0, err
		}
		return 0, fail(ctx, "write", err)
	}
	if !changed {
		return 0, nil
	}
	s.raise(rev)
	return rev, nil
}

// enterWrite waits for the Store's other write in progress, if any, to end, until the
// context's deadline (or writeWait, without one), and reports whether this one may
// start. SQLite has one write lock per database: writers of one process that race for
// it through busy retries starve each other (a write waited up to 30 s behind its own
// process's writers under load), while a queue serves them in turn; other processes'
// writers still meet a busy database and retry.
func (s *Store) enterWrite(ctx context.Context) bool {
	select {
	case s.writing <- struct{}{}:
		return true
	default:
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(writeWait)
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case s.writing <- struct{}{}:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return false
}

// inTx runs f in one write transaction: BEGIN IMMEDIATE on one connection for SQLite
// (see sqliteTx), READ COMMITTED for PostgreSQL. It commits when f reports a change and
// rolls back otherwise. Errors are the storage's own: callers wrap them.
func inTx(ctx context.Context, db *sql.DB, d Dialect, f func(tx execer) (bool, error)) error {
	if d == Postgres {
		return postgresTx(ctx, db, func(tx *sql.Tx) (bool, error) { return f(tx) })
	}
	return retryBusy(ctx, func(deadline time.Time) error { return sqliteTx(ctx, db, deadline, f) })
}

// stmtTx is inTx for the Store's writes, in a *sql.Tx so that they run the Store's
// prepared statements (tx.StmtContext). On SQLite the transaction begins deferred, as
// the driver begins one, and f's first statement must take the write lock (the lock
// query does), so the transaction holds it before reading anything, as under BEGIN
// IMMEDIATE. busy remembers the database's own busy timeout (see setBusyTimeout).
func stmtTx(ctx context.Context, db *sql.DB, d Dialect, busy *atomic.Int64, f func(tx *sql.Tx) (bool, error)) error {
	if d == Postgres {
		return postgresTx(ctx, db, f)
	}
	return retryBusy(ctx, func(deadline time.Time) error { return sqliteStmtTx(ctx, db, deadline, busy, f) })
}

// postgresTx runs f in one READ COMMITTED transaction, committed when f reports a
// change and rolled back otherwise.
func postgresTx(ctx context.Context, db *sql.DB, f func(tx *sql.Tx) (bool, error)) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return err
	}
	changed, err := f(tx)
	if err != nil || !changed {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// retryBusy runs once, a SQLite transaction, until it ends in anything but a busy
// database: a transaction that meets one is rolled back and run again, until the
// context's deadline (or writeWait, without one), since under many writers the busy
// handler alone can time out before a writer's turn comes.
func retryBusy(ctx context.Context, once func(deadline time.Time) error) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(writeWait)
	}
	pause := time.Millisecond
	for {
		err := once(deadline)
		if err == nil || !busy(err) || ctx.Err() != nil {
			return err
		}
		wait := min(pause+time.Duration(rand.Int64N(int64(pause))), time.Until(deadline))
		if wait <= 0 {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// writeWait bounds how long a SQLite write retries a busy database when its context has
// no deadline.
const writeWait = 30 * time.Second

// busy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED, by the driver's
// error code where it has one (modernc.org/sqlite), else by the message.
func busy(err error) bool {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		c := coded.Code() & 0xff
		return c == 5 || c == 6
	}
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY")
}

// sqliteTx runs f once as BEGIN IMMEDIATE on one connection, with a busy timeout of
// busyTimeout or the time left before deadline, whichever is shorter.
func sqliteTx(ctx context.Context, db *sql.DB, deadline time.Time, f func(tx execer) (bool, error)) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	restore, err := setBusyTimeout(ctx, conn, deadline, nil)
	if err != nil {
		return err
	}
	defer restore()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	changed, err := f(conn)
	if err == nil && changed {
		if _, err = conn.ExecContext(ctx, "COMMIT"); err == nil {
			return nil
		}
	}
	// Roll back even when ctx ended; a connection left inside a transaction is
	// discarded rather than returned to the pool.
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return err
}

// sqliteStmtTx is sqliteTx in a *sql.Tx on one connection, begun deferred: f's first
// statement takes the write lock.
func sqliteStmtTx(ctx context.Context, db *sql.DB, deadline time.Time, busy *atomic.Int64, f func(tx *sql.Tx) (bool, error)) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	restore, err := setBusyTimeout(ctx, conn, deadline, busy)
	if err != nil {
		return err
	}
	defer restore()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	changed, err := f(tx)
	if err == nil && changed {
		return tx.Commit()
	}
	// A connection the rollback failed on may be left inside a transaction: it is
	// discarded rather than returned to the pool.
	if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return err
}

// setBusyTimeout sets conn's busy timeout to busyTimeout or the time left before
// deadline, whichever is shorter, and answers the function that sets it back to the
// database's own (the host's DSN setting) before conn returns to the pool, so that the
// reads using the connection next keep their timeout; a connection it cannot set back
// is discarded. When the timeout is already the database's own, it changes nothing.
// known, when not nil, remembers the database's own timeout (in ms, plus one; 0 until
// read) so that it is read once.
func setBusyTimeout(ctx context.Context, conn *sql.Conn, deadline time.Time, known *atomic.Int64) (restore func(), err error) {
	prev := int64(-1)
	if known != nil {
		prev = known.Load() - 1
	}
	if prev < 0 {
		if err := conn.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&prev); err != nil {
			return nil, err
		}
		if known != nil {
			known.Store(prev + 1)
		}
	}
	timeout := max(min(busyTimeout, time.Until(deadline)), time.Millisecond).Milliseconds()
	if timeout == prev {
		return func() {}, nil
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", timeout)); err != nil {
		return nil, err
	}
	return func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA busy_timeout = %d", prev)); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}, nil
}

// statements are a Store's statements for its dialect. On SQLite each is prepared once
// on the *sql.DB; database/sql prepares it again on each connection that runs it and
// keeps it there until the connection or the statement closes, so SQLite compiles a
// statement, with the triggers it fires, once per connection instead of at every write
// (and recompiles it by itself after a schema change, SQLITE_SCHEMA). On PostgreSQL
// none is prepared: pgx already keeps each query's server-side statement per
// connection, and re-prepares it after a schema change, which a database/sql prepared
// statement would not ("cached plan must not change result type").
type statements struct {
	lock, control, revision, upsert, remove statement
}

// A statement is one query of a Store, and the *sql.Stmt prepared from it on SQLite.
type statement struct {
	query string
	stmt  *sql.Stmt // nil on PostgreSQL
}

// row runs the statement in tx, or on db outside any transaction when tx is nil.
func (st statement) row(ctx context.Context, db *sql.DB, tx *sql.Tx, args ...any) *sql.Row {
	switch {
	case st.stmt != nil && tx != nil:
		return tx.StmtContext(ctx, st.stmt).QueryRowContext(ctx, args...)
	case st.stmt != nil:
		return st.stmt.QueryRowContext(ctx, args...)
	case tx != nil:
		return tx.QueryRowContext(ctx, st.query, args...)
	}
	return db.QueryRowContext(ctx, st.query, args...)
}

// exec runs the statement in tx.
func (st statement) exec(ctx context.Context, tx *sql.Tx, args ...any) (sql.Result, error) {
	if st.stmt != nil {
		return tx.StmtContext(ctx, st.stmt).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, st.query, args...)
}

// prepared answers the Store's statements, preparing them (SQLite) at the first call
// that succeeds (a database not yet migrated fails it, and a later call tries again),
// or ErrClosed after Close.
func (s *Store) prepared(ctx context.Context) (*statements, error) {
	if st := s.stmts.Load(); st != nil {
		return st, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if st := s.stmts.Load(); st != nil {
		return st, nil
	}
	st := &statements{lock: statement{query: s.q.lock}, control: statement{query: s.q.control},
		revision: statement{query: s.q.revision}, upsert: statement{query: s.q.upsert}, remove: statement{query: s.q.remove}}
	if s.dialect == Postgres {
		st.upsert.query += " RETURNING revision" // see putPostgres
		s.stmts.Store(st)
		return st, nil
	}
	for _, p := range st.all() {
		stmt, err := s.db.PrepareContext(ctx, p.query)
		if err != nil {
			st.close()
			return nil, err
		}
		p.stmt = stmt
	}
	s.stmts.Store(st)
	return st, nil
}

func (st *statements) all() []*statement {
	return []*statement{&st.lock, &st.control, &st.revision, &st.upsert, &st.remove}
}

// writeStatements answers the statements of a write about to start, or why it cannot:
// errSetup, the context's end, ErrClosed or a failed preparation.
func (s *Store) writeStatements(ctx context.Context) (*statements, error) {
	if s.db == nil || s.q == nil {
		return nil, errSetup
	}
	if err := ctx.Err(); err != nil {
		return nil, fail(ctx, "write", err)
	}
	st, err := s.prepared(ctx)
	if err != nil && !errors.Is(err, ErrClosed) {
		return nil, fail(ctx, "write", err)
	}
	return st, err
}

// close closes the statements prepared so far.
func (st *statements) close() error {
	var errs []error
	for _, p := range st.all() {
		if p.stmt != nil {
			errs = append(errs, p.stmt.Close())
		}
	}
	return errors.Join(errs...)
}

// Close releases the Store's prepared statements on every connection of its *sql.DB;
// it does not close the *sql.DB, which the host closes after it. A Store left unclosed
// keeps them until its *sql.DB closes, so close a Store dropped while its *sql.DB stays
// open. Every method called after Close, or while it runs, fails with an error matching
// grants.ErrUnavailable (ErrClosed). Closing twice is harmless.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed.Store(true)
	var errs []error
	if st := s.stmts.Swap(nil); st != nil {
		errs = append(errs, st.close())
	}
	if d := s.deltaQ.Swap(nil); d != nil {
		errs = append(errs, d.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fail(context.Background(), "close", err)
	}
	return nil
}

// Remove is Delete answering the control revision of the change, or 0 when there was no
// row to delete (and nothing changed).
func (s *Store) Remove(ctx context.Context, principal, tool string) (int64, error) {
	return s.delete(ctx, principal, tool)
}
