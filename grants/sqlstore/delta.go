package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/deferredtools/deferredtools/grants"
)

// maxDelta is the most changes (rows written and keys left) readDelta applies to a
// cached Snapshot; more mean a full read. It bounds the work a delta read wastes before
// that full read to a quarter of one.
const maxDelta = grants.MaxRows / 4

// deltaQuery is the delta read of a dialect whose placeholders arg writes: in one
// statement, the control revision, the triggers' mark (a knownMarkQuery subquery:
// delta reads run only over 0021 and 0022), the
// tombstone floor, and what changed for the
// principal (arg 1) since a revision (arg 2): its rows written since (gone = 0) and the
// keys that left since and hold no row now (gone = 1), at most maxDelta+1 of them.
func deltaQuery(arg func(int) string, mark string) string {
	return fmt.Sprintf(`SELECT c.revision, k.schema,
    (SELECT max(revision) FROM tool_grants_deleted_floor),
    d.gone, d.principal_id, d.tool_name, d.scopes, d.effect, d.revision
FROM control_revisions c
CROSS JOIN (%[4]s) k
LEFT JOIN (
    SELECT 0 AS gone, principal_id, tool_name, scopes, effect, revision FROM tool_grants
    WHERE principal_id IN (%[1]s, '*') AND revision > %[2]s
    UNION ALL
    SELECT 1, t.principal_id, t.tool_name, NULL, NULL, t.revision FROM tool_grants_deleted t
    WHERE t.principal_id IN (%[1]s, '*') AND t.revision > %[2]s
        AND NOT EXISTS (SELECT 1 FROM tool_grants g
            WHERE g.principal_id = t.principal_id AND g.tool_name = t.tool_name)
) d ON 1 = 1
WHERE c.name = 'model_grants'
LIMIT %[3]d`, arg(1), arg(2), maxDelta+1, mark)
}

// A rowKey is a grant row's primary key.
type rowKey struct{ principal, tool string }

// readDelta brings cached, a Snapshot of principalID's rows, up to the control revision
// by reading only what changed since its revision (one statement, one database
// snapshot): the rows whose revision is above it, and the keys that left since (the
// tombstones of migration 0021) and hold no row now. It answers ok false, for a full
// read instead, when the read fails, answers a lower control revision, finds more than
// maxDelta changes, finds cached's revision below the tombstone floor (tombstones it
// would need were pruned or never written), or finds the triggers changed since cached
// was read (their mark differs from schema, see markQuery); and when the result would
// break a rule a full read reports (too many rows, a malformed row), so that the full
// read reports it.
//
// It is exact: a row written since cached's revision has a higher revision (the
// triggers stamp every insert and update), a row that left its key since left a
// tombstone at the higher revision of that change, and any other row is as cached has
// it. A tombstone of a key that holds a row now is not read, so a stray one (written
// by hand) changes nothing.
func (s *Store) readDelta(ctx context.Context, principalID string, cached *grants.Snapshot, schema int64) (*grants.Snapshot, bool) {
	var (
		rows *sql.Rows
		err  error
	)
	if st := s.deltaStmt(ctx); st != nil {
		rows, err = st.QueryContext(ctx, principalID, cached.Revision)
	} else {
		rows, err = s.db.QueryContext(ctx, s.q.delta, principalID, cached.Revision)
	}
	if err != nil {
		return nil, false
	}
	defer rows.Close()
	var (
		control, floor, gone, rev       sql.NullInt64
		mark                            int64
		principal, tool, scopes, effect sql.NullString
		changed                         []grants.Row
		left                            []rowKey
		found                           bool
		at                              int64 // the control revision of the first row
	)
	for rows.Next() {
		if err := rows.Scan(&control, &mark, &floor, &gone, &principal, &tool, &scopes, &effect, &rev); err != nil {
			return nil, false
		}
		if !control.Valid || !floor.Valid || floor.Int64 > cached.Revision || control.Int64 < cached.Revision ||
			(found && control.Int64 != at) {
			return nil, false
		}
		if !found && mark != schema {
			return nil, false
		}
		found, at = true, control.Int64
		switch {
		case !gone.Valid: // no change: the control revision alone
		case len(changed)+len(left) == maxDelta:
			return nil, false
		case gone.Int64 == 0:
			r, err := decodeRow(principalID, principal, tool, scopes, effect, rev)
			if err != nil {
				return nil, false
			}
			changed = append(changed, r)
		default:
			k, ok := leftKey(principalID, principal, tool)
			if !ok {
				return nil, false
			}
			left = append(left, k)
		}
	}
	if rows.Err() != nil || rows.Close() != nil || !found {
		return nil, false
	}
	snap := applyDelta(cached, at, changed, left)
	if len(snap.Rows) > grants.MaxRows {
		return nil, false
	}
	return snap, true
}

// leftKey is a tombstone's key, its principal the shared string of principalID or
// grants.AnyPrincipal; ok is false for a key the query should not have matched.
func leftKey(principalID string, principal, tool sql.NullString) (rowKey, bool) {
	switch {
	case !tool.Valid:
		return rowKey{}, false
	case principal.String == grants.AnyPrincipal:
		return rowKey{grants.AnyPrincipal, tool.String}, true
	case principal.String == principalID:
		return rowKey{principalID, tool.String}, true
	}
	return rowKey{}, false
}

// applyDelta answers a new Snapshot at revision rev: cached's rows but those whose key
// was written (changed) or left (left), then changed. cached is not modified; the new
// Snapshot shares its rows' scope arrays, which nobody writes.
func applyDelta(cached *grants.Snapshot, rev int64, changed []grants.Row, left []rowKey) *grants.Snapshot {
	drop := len(changed) + len(left)
	if drop == 0 { // another principal's change: the same rows at rev
		return &grants.Snapshot{Revision: rev, Rows: cached.Rows}
	}
	keys := make([]rowKey, 0, drop)
	for _, r := range changed {
		keys = append(keys, rowKey{r.Principal, r.Tool})
	}
	keys = append(keys, left...)
	// A few keys (one, after most grant changes) are compared in turn; more go in a set.
	has := func(k rowKey) bool {
		for _, d := range keys {
			if d == k {
				return true
			}
		}
		return false
	}
	if drop > 8 {
		set := make(map[rowKey]struct{}, drop)
		for _, k := range keys {
			set[k] = struct{}{}
		}
		has = func(k rowKey) bool { _, ok := set[k]; return ok }
	}
	out := make([]grants.Row, 0, len(cached.Rows)+len(changed))
	for _, r := range cached.Rows {
		if !has(rowKey{r.Principal, r.Tool}) {
			out = append(out, r)
		}
	}
	out = append(out, changed...)
	return &grants.Snapshot{Revision: rev, Rows: out}
}

// deltaStmt answers the delta read prepared (on SQLite, where compiling it costs about
// as much as running it), preparing it at the first call; nil on PostgreSQL (see
// statements), after Close, or when preparing fails (the next call tries again).
func (s *Store) deltaStmt(ctx context.Context) *sql.Stmt {
	if s.dialect != SQLite {
		return nil
	}
	if st := s.deltaQ.Load(); st != nil {
		return st
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil
	}
	if st := s.deltaQ.Load(); st != nil {
		return st
	}
	st, err := s.db.PrepareContext(ctx, s.q.delta)
	if err != nil {
		return nil
	}
	s.deltaQ.Store(st)
	return st
}
