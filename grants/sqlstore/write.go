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
	rev, err := s.write(ctx, func(tx execer, rev int64) (bool, error) {
		_, err := tx.ExecContext(ctx, s.q.upsert, r.Principal, r.Tool, scopes, string(r.Effect), rev)
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
	if s.db == nil || s.q == nil {
		return 0, errSetup
	}
	if err := ctx.Err(); err != nil {
		return 0, fail(ctx, "write", err)
	}
	var rev int64
	err := inTx(ctx, s.db, s.dialect, func(tx execer) (bool, error) {
		if err := tx.QueryRowContext(ctx, s.q.upsert+" RETURNING revision", r.Principal, r.Tool, scopes, string(r.Effect), 1).Scan(&rev); err != nil {
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
	return s.write(ctx, func(tx execer, rev int64) (bool, error) {
		res, err := tx.ExecContext(ctx, s.q.remove, principal, tool)
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

// write runs change in one transaction after reading (and, on PostgreSQL, locking) the
// control revision, passing change the revision its change will take. The triggers of
// migration 0019 increment the control revision once per changed row; write commits when
// change reports a change counted exactly once, else rolls back. It answers the new
// control revision, or 0 when nothing changed.
func (s *Store) write(ctx context.Context, change func(tx execer, rev int64) (bool, error)) (int64, error) {
	if s.db == nil || s.q == nil {
		return 0, errSetup
	}
	if err := ctx.Err(); err != nil {
		return 0, fail(ctx, "write", err)
	}
	var (
		rev     int64
		changed bool
	)
	err := inTx(ctx, s.db, s.dialect, func(tx execer) (bool, error) {
		var before int64
		if err := tx.QueryRowContext(ctx, s.q.lock).Scan(&before); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return false, errNoControl
			}
			return false, err
		}
		var err error
		changed, err = change(tx, before+1)
		if err != nil || !changed {
			return false, err
		}
		if err := tx.QueryRowContext(ctx, s.q.control).Scan(&rev); err != nil {
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

// inTx runs f in one write transaction: BEGIN IMMEDIATE on one connection for SQLite
// (see sqliteTx), READ COMMITTED for PostgreSQL. It commits when f reports a change and
// rolls back otherwise. Errors are the storage's own: callers wrap them.
func inTx(ctx context.Context, db *sql.DB, d Dialect, f func(tx execer) (bool, error)) error {
	if d == Postgres {
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

	// A SQLite transaction that meets a busy database is rolled back and run again,
	// until the context's deadline (or writeWait, without one): under many writers the
	// busy handler alone can time out before a writer's turn comes.
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(writeWait)
	}
	pause := time.Millisecond
	for {
		err := sqliteTx(ctx, db, deadline, f)
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
	timeout := max(min(busyTimeout, time.Until(deadline)), time.Millisecond)
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", timeout.Milliseconds())); err != nil {
		return err
	}
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

// Remove is Delete answering the control revision of the change, or 0 when there was no
// row to delete (and nothing changed).
func (s *Store) Remove(ctx context.Context, principal, tool string) (int64, error) {
	return s.delete(ctx, principal, tool)
}
