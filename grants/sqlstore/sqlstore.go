package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deferredtools/deferredtools/grants"
)

// A Dialect names the SQL database a Store talks to.
type Dialect int

// The supported dialects. The zero Dialect is none of them.
const (
	SQLite Dialect = iota + 1
	Postgres
)

// String returns the dialect's name, "sqlite" or "postgres".
func (d Dialect) String() string {
	switch d {
	case SQLite:
		return "sqlite"
	case Postgres:
		return "postgres"
	}
	return "unknown"
}

// ErrStale reports a read that answered a control revision older than one the Store
// had already confirmed (SPEC CURSOR-5). It matches grants.ErrUnavailable.
var ErrStale = fmt.Errorf("sqlstore: stale control revision: %w", grants.ErrUnavailable)

// ErrUncounted reports a read over a database where writes may go uncounted: a
// revision trigger the Store relies on is missing or disabled (see the package doc).
// RepairTriggers restores them. It matches grants.ErrUnavailable.
var ErrUncounted = fmt.Errorf("sqlstore: revision triggers missing or disabled: %w", grants.ErrUnavailable)

// errNoControl reports a missing or broken control revision row.
var errNoControl = fmt.Errorf("sqlstore: control revision missing: %w", grants.ErrUnavailable)

// errSchema reports a write that the revision triggers of migration 0019 did not count:
// the database was not migrated.
var errSchema = fmt.Errorf("sqlstore: schema not migrated: %w", grants.ErrUnavailable)

// ErrClosed reports a call to a Store after (or during) its Close. It matches
// grants.ErrUnavailable.
var ErrClosed = fmt.Errorf("sqlstore: Store used after Close: %w", grants.ErrUnavailable)

// errSetup reports a Store or migration with no database or an unknown dialect.
var errSetup = fmt.Errorf("sqlstore: no database or unknown dialect: %w", grants.ErrUnavailable)

// storageError is a storage failure, reported without the storage's text.
type storageError struct {
	op     string // "read", "write", "migrate"
	ctxErr error  // the context's error when ctx had ended, else nil
}

func (e *storageError) Error() string {
	msg := "sqlstore: " + e.op + " failed: " + grants.ErrUnavailable.Error()
	if e.ctxErr != nil {
		msg += ": " + e.ctxErr.Error()
	}
	return msg
}

func (e *storageError) Unwrap() []error {
	if e.ctxErr != nil {
		return []error{grants.ErrUnavailable, e.ctxErr}
	}
	return []error{grants.ErrUnavailable}
}

// fail reports a storage failure of op. The cause is dropped: its text may hold
// storage details (SPEC ERR-2).
func fail(ctx context.Context, op string, cause error) error {
	return &storageError{op: op, ctxErr: ctx.Err()}
}

// busyTimeout is how long a SQLite write waits for the database lock.
var busyTimeout = 5 * time.Second // a var: tests lower it to force lock contention past it

// Store is a grants.Store over a SQL database. It is safe for concurrent use, by many
// Stores and processes on the same database too.
//
// ReadGrants answers a principal's Snapshot from memory when one single-row read of the
// control revision finds the revision its cached Snapshot was read at and the revision
// triggers as they were then, and otherwise reads the rows (see the package doc).
// Unless Options.CacheBytes is negative, it answers the same *Snapshot while the rows
// and revision stay the same, so consumers may key caches by the Snapshot pointer.
//
// On SQLite a Store prepares its write statements, the control revision read and the
// delta read at their first use and keeps them until Close (or until its *sql.DB
// closes), and runs one write at a time: its writers queue, within their contexts'
// deadlines, rather than race each other for the database's one write lock.
type Store struct {
	db      *sql.DB
	dialect Dialect
	q       *queries

	highest atomic.Int64 // the highest control revision confirmed
	busy    atomic.Int64 // SQLite: the database's own busy timeout, see setBusyTimeout

	cache   *snapshotCache
	reads   struct{ full, delta atomic.Int64 } // rows read in full, Snapshots brought up to date
	counted atomic.Int32                       // countedYes once 0020 is found recorded, countedDelta 0021 and 0022, countedNo neither

	writing chan struct{} // SQLite: held by the Store's one write in progress (see enterWrite)

	stmts  atomic.Pointer[statements] // prepared on first use, see prepared
	deltaQ atomic.Pointer[sql.Stmt]   // SQLite: the delta read, prepared at its first use
	mu     sync.Mutex                 // serialises preparing and Close
	closed atomic.Bool
}

// The states of Store.counted: whether the database counts every write exactly once
// (0020), and records the rows that leave a key too (0021, 0022).
const (
	countedUnknown = iota
	countedYes
	countedNo
	countedDelta
)

var (
	_ grants.Store  = (*Store)(nil)
	_ grants.Lister = (*Store)(nil)
)

// Options configure a Store. A nil *Options means all defaults.
type Options struct {
	// CacheBytes bounds, in bytes as the Store estimates them, the Snapshots it keeps
	// for reuse, least recently used out first. Zero means DefaultCacheBytes; negative
	// keeps none, so every ReadGrants reads the rows and answers a new Snapshot.
	CacheBytes int64
}

// New returns a Store over db, whose tables Migrate created, with default Options. A nil
// db or an unknown dialect gives a Store whose every method fails with
// grants.ErrUnavailable.
func New(db *sql.DB, dialect Dialect) *Store {
	return NewWithOptions(db, dialect, nil)
}

// NewWithOptions is New with opts; nil means defaults.
func NewWithOptions(db *sql.DB, dialect Dialect, opts *Options) *Store {
	max := int64(DefaultCacheBytes)
	if opts != nil && opts.CacheBytes != 0 {
		max = opts.CacheBytes
	}
	return &Store{db: db, dialect: dialect, q: queriesFor(dialect), cache: newSnapshotCache(max), writing: make(chan struct{}, 1)}
}

// queries are a dialect's statements.
type queries struct {
	read, delta, lock, control, revision, upsert, remove, list string
	// readKnown and revisionKnown are read and revision for a Store that knows the
	// database records 0021 and 0022: their trigger check is knownTriggerCheck's,
	// as is the delta read's.
	readKnown, revisionKnown string
}

var (
	// On SQLite the lock is a write that changes nothing: the first statement of a
	// deferred transaction, it takes the database's write lock as BEGIN IMMEDIATE
	// would (waiting under the busy timeout), before the transaction has read anything.
	sqliteQueries = newQueries(func(i int) string { return fmt.Sprintf("?%d", i) },
		`UPDATE control_revisions SET revision = revision WHERE name = 'model_grants' RETURNING revision`, "", SQLite)
	postgresQueries = newQueries(func(i int) string { return fmt.Sprintf("$%d", i) },
		`SELECT revision FROM control_revisions WHERE name = 'model_grants' FOR UPDATE`, ` COLLATE "C"`, Postgres)
)

func queriesFor(d Dialect) *queries {
	switch d {
	case SQLite:
		return sqliteQueries
	case Postgres:
		return postgresQueries
	}
	return nil
}

func newQueries(arg func(int) string, lock, byteOrder string, d Dialect) *queries {
	// The LEFT JOIN yields one row of NULL grant columns when there is no grant, so
	// the revision is always read, and no row at all when the control row is
	// missing. Every row repeats the trigger check (k, see triggerCheck).
	read := func(check string) string {
		return fmt.Sprintf(`SELECT c.revision, k.counting, k.tombstones, k.schema,
    g.principal_id, g.tool_name, g.scopes, g.effect, g.revision
FROM control_revisions c
CROSS JOIN (%s) k
LEFT JOIN tool_grants g ON g.principal_id IN (%s, '*')
WHERE c.name = 'model_grants'
LIMIT %d`, check, arg(1), grants.MaxRows+1)
	}
	// revision reads the control revision and the triggers' mark (markQuery) for a
	// read of a cached principal: one statement tells whether the cache may be
	// trusted. It names tool_grants so that the read fails when the table is gone:
	// DROP TABLE fires no trigger, and a cached Snapshot must not outlive the grants
	// it holds (SPEC FLAG-3, GRANT-6).
	revision := func(mark string) string {
		return fmt.Sprintf(`SELECT c.revision, k.schema
FROM control_revisions c
CROSS JOIN (%s) k
WHERE c.name = 'model_grants' AND NOT EXISTS (SELECT 1 FROM tool_grants WHERE 1 = 0)`, mark)
	}
	return &queries{
		read:          read(triggerCheck(d)),
		readKnown:     read(knownTriggerCheck(d)),
		revision:      revision(markQuery(d)),
		revisionKnown: revision(knownMarkQuery(d)),
		delta:         deltaQuery(arg, knownMarkQuery(d)),
		// lock reads the control revision before a change, locking its row, so
		// writers queue there; the triggers of migration 0019 then increment it.
		lock: lock,
		// control reads the control revision alone: a write checks with it that the
		// triggers counted its change once.
		control: `SELECT revision FROM control_revisions WHERE name = 'model_grants'`,
		upsert: fmt.Sprintf(`INSERT INTO tool_grants (principal_id, tool_name, scopes, effect, revision)
VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (principal_id, tool_name) DO UPDATE
SET scopes = excluded.scopes, effect = excluded.effect, revision = excluded.revision`,
			arg(1), arg(2), arg(3), arg(4), arg(5)),
		remove: fmt.Sprintf(`DELETE FROM tool_grants WHERE principal_id = %s AND tool_name = %s`, arg(1), arg(2)),
		// list pages through rows in byte order of (principal, tool): keyset paging
		// after (arg 3, arg 4), limited in a subquery so the control revision is read
		// even when no row matches.
		list: fmt.Sprintf(`SELECT c.revision, g.principal_id, g.tool_name, g.scopes, g.effect, g.revision
FROM control_revisions c
LEFT JOIN (SELECT * FROM tool_grants
    WHERE (%[1]s = '' OR principal_id = %[1]s) AND (%[2]s = '' OR tool_name = %[2]s)
        AND (principal_id%[6]s > %[3]s OR (principal_id = %[3]s AND tool_name%[6]s > %[4]s))
    ORDER BY principal_id%[6]s, tool_name%[6]s
    LIMIT %[5]s) g ON 1 = 1
WHERE c.name = 'model_grants'`, arg(1), arg(2), arg(3), arg(4), arg(5), byteOrder),
	}
}

// encodeScopes joins scope tokens for the scopes column.
func encodeScopes(scopes []string) string { return strings.Join(scopes, " ") }

// decodeScopes splits the scopes column. It never fails: an empty token (two spaces,
// a leading or trailing space) or a bad character is left for grants.CheckRow to
// refuse.
func decodeScopes(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

// raise records rev as confirmed when it is the highest yet.
func (s *Store) raise(rev int64) {
	for {
		h := s.highest.Load()
		if rev <= h || s.highest.CompareAndSwap(h, rev) {
			return
		}
	}
}

// ReadGrants returns principalID's rows and the "*" rows with the control revision of
// the same snapshot. More than grants.MaxRows rows answer grants.ErrTooManyRows, a
// malformed row a *grants.MalformedError, a stale revision ErrStale, a revision trigger
// the Store relies on missing or disabled ErrUncounted, and any storage failure (a
// missing table too) an error matching grants.ErrUnavailable.
//
// When the Store holds a Snapshot of principalID, it first reads the control revision
// alone, with the revision triggers' mark: the same revision as the Snapshot's, the
// triggers unchanged since, answers the Snapshot (every write bumps the control
// revision in its own transaction, so no row changed since); a higher one answers the
// Snapshot brought up to date by a delta read when it can (see the package doc); any
// other, or none, falls through to the full read and its rules. Only successful reads
// are cached.
func (s *Store) ReadGrants(ctx context.Context, principalID string) (*grants.Snapshot, error) {
	if s.db == nil || s.q == nil {
		return nil, errSetup
	}
	if s.closed.Load() {
		return nil, ErrClosed
	}
	floor := s.highest.Load()
	counted := s.counted.Load()
	if cached, schema := s.cache.get(principalID); cached != nil && (counted == countedYes || counted == countedDelta) {
		st, err := s.prepared(ctx)
		if err != nil {
			if errors.Is(err, ErrClosed) {
				return nil, err
			}
			return nil, fail(ctx, "read", err)
		}
		revision := st.revision
		if counted == countedDelta && s.dialect == Postgres {
			revision = statement{query: s.q.revisionKnown}
		}
		var control, mark int64
		switch err := revision.row(ctx, s.db, nil).Scan(&control, &mark); {
		case errors.Is(err, sql.ErrNoRows):
			return nil, errNoControl
		case err != nil:
			return nil, fail(ctx, "read", err)
		case control < floor:
			return nil, ErrStale
		case mark != schema:
			// The triggers changed since the Snapshot was read: writes may have gone
			// uncounted. The full read checks them.
		case control == cached.Revision:
			return cached, nil
		case control > cached.Revision && counted == countedDelta:
			if snap, ok := s.readDelta(ctx, principalID, cached, schema); ok && snap.Revision >= floor {
				s.reads.delta.Add(1)
				s.raise(snap.Revision)
				return s.cache.put(principalID, snap, schema), nil
			}
		}
	}
	s.reads.full.Add(1)
	snap, trig, err := s.read(ctx, principalID, counted)
	if err != nil {
		return nil, err
	}
	s.countsWrites(ctx)
	counted = s.counted.Load()
	if !s.trusts(counted, trig) {
		return nil, ErrUncounted
	}
	if snap.Revision < floor {
		return nil, ErrStale
	}
	s.raise(snap.Revision)
	if counted == countedUnknown {
		// Not cached: the mark of a cached Snapshot vouches for the triggers only
		// when they were checked, and which to check is not known yet.
		return snap, nil
	}
	return s.cache.put(principalID, snap, trig.schema), nil
}

// read reads principalID's rows in full, with the trigger check of the same statement:
// knownTriggerCheck's when counted says the database records 0021 and 0022.
func (s *Store) read(ctx context.Context, principalID string, counted int32) (*grants.Snapshot, triggerState, error) {
	var trig triggerState
	query := s.q.read
	if counted == countedDelta {
		query = s.q.readKnown
	}
	rows, err := s.db.QueryContext(ctx, query, principalID)
	if err != nil {
		return nil, trig, fail(ctx, "read", err)
	}
	defer rows.Close()
	snap := &grants.Snapshot{}
	found := false
	var (
		control, rev                    sql.NullInt64
		principal, tool, scopes, effect sql.NullString // the drivers' strings, not copied
	)
	for rows.Next() {
		if err := rows.Scan(&control, &trig.counting, &trig.tombstones, &trig.schema, &principal, &tool, &scopes, &effect, &rev); err != nil {
			return nil, trig, fail(ctx, "read", err)
		}
		if !control.Valid || control.Int64 < 1 || (found && control.Int64 != snap.Revision) {
			return nil, trig, errNoControl
		}
		found = true
		snap.Revision = control.Int64
		if !principal.Valid && !tool.Valid && !scopes.Valid && !effect.Valid && !rev.Valid {
			continue // the control revision alone: no grant row
		}
		if len(snap.Rows) == grants.MaxRows {
			return nil, trig, grants.ErrTooManyRows
		}
		r, err := decodeRow(principalID, principal, tool, scopes, effect, rev)
		if err != nil {
			return nil, trig, err
		}
		snap.Rows = append(snap.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, trig, fail(ctx, "read", err)
	}
	if err := rows.Close(); err != nil {
		return nil, trig, fail(ctx, "read", err)
	}
	if !found {
		return nil, trig, errNoControl
	}
	return snap, trig, nil
}

// decodeRow turns one row of the read into a grants.Row read for principalID, or
// reports the *grants.MalformedError it breaks. NULL and ” are both empty.
func decodeRow(principalID string, principal, tool, scopes, effect sql.NullString, rev sql.NullInt64) (grants.Row, error) {
	var r grants.Row
	switch principal.String {
	case "":
		return r, &grants.MalformedError{Reason: "principal"}
	case grants.AnyPrincipal:
		r.Principal = grants.AnyPrincipal
	case principalID:
		r.Principal = principalID
	default: // a row the query should not have matched
		return r, &grants.MalformedError{Reason: "principal"}
	}
	if tool.String == "" {
		return r, &grants.MalformedError{Reason: "tool"}
	}
	switch grants.Effect(effect.String) {
	case grants.Allow:
		r.Effect = grants.Allow
	case grants.Deny:
		r.Effect = grants.Deny
	default:
		return r, &grants.MalformedError{Reason: "effect"}
	}
	if !scopes.Valid {
		return r, &grants.MalformedError{Reason: "scope"}
	}
	if !rev.Valid {
		return r, &grants.MalformedError{Reason: "revision"}
	}
	r.Tool = tool.String
	r.Scopes = decodeScopes(scopes.String)
	r.Revision = rev.Int64
	if err := grants.CheckRow(r); err != nil {
		return grants.Row{}, err
	}
	return r, nil
}

func sameSnapshot(a, b *grants.Snapshot) bool {
	return a.Revision == b.Revision && slices.EqualFunc(a.Rows, b.Rows, func(x, y grants.Row) bool {
		return x.Principal == y.Principal && x.Tool == y.Tool && x.Effect == y.Effect &&
			x.Revision == y.Revision && slices.Equal(x.Scopes, y.Scopes)
	})
}

// MaxListRows is the most rows one ListGrants answers; more answer ErrListTooLong.
// ListPage reads any number of rows a page at a time.
const MaxListRows = 10000

// ErrListTooLong reports a ListGrants matching more than MaxListRows rows. It matches
// grants.ErrTooManyRows.
var ErrListTooLong = fmt.Errorf("sqlstore: more rows than one listing holds; list by pages: %w", grants.ErrTooManyRows)

// A PageKey is a row's key in Listing order: ListPage answers the rows after it. The
// zero PageKey starts at the first row.
type PageKey struct {
	Principal, Tool string
}

// ListGrants returns the rows matching principal and tool ("" matches any), sorted by
// principal then tool (byte order), with the control revision of the same snapshot.
// More than MaxListRows matching rows answer ErrListTooLong. A malformed row answers
// its *grants.MalformedError, storage failures grants.ErrUnavailable.
func (s *Store) ListGrants(ctx context.Context, principal, tool string) (*grants.Listing, error) {
	l, more, err := s.ListPage(ctx, principal, tool, PageKey{}, MaxListRows)
	if err != nil {
		return nil, err
	}
	if more {
		return nil, ErrListTooLong
	}
	return l, nil
}

// ListPage returns up to limit rows (1 to MaxListRows; others mean MaxListRows) matching
// principal and tool ("" matches any) whose key sorts after after, in ListGrants order,
// with the control revision of the same snapshot; more reports rows beyond the page.
// The next page starts after the last row's key. Each page is one consistent read:
// pages read at different control revisions may together miss or repeat a change.
// Errors are those of ListGrants.
func (s *Store) ListPage(ctx context.Context, principal, tool string, after PageKey, limit int) (l *grants.Listing, more bool, err error) {
	if s.db == nil || s.q == nil {
		return nil, false, errSetup
	}
	if s.closed.Load() {
		return nil, false, ErrClosed
	}
	if limit < 1 || limit > MaxListRows {
		limit = MaxListRows
	}
	rows, err := s.db.QueryContext(ctx, s.q.list, principal, tool, after.Principal, after.Tool, limit+1)
	if err != nil {
		return nil, false, fail(ctx, "read", err)
	}
	defer rows.Close()
	l = &grants.Listing{}
	found := false
	var (
		control, rev         sql.NullInt64
		p, t, scopes, effect sql.NullString
	)
	for rows.Next() {
		if err := rows.Scan(&control, &p, &t, &scopes, &effect, &rev); err != nil {
			return nil, false, fail(ctx, "read", err)
		}
		if !control.Valid || control.Int64 < 1 || (found && control.Int64 != l.Revision) {
			return nil, false, errNoControl
		}
		found = true
		l.Revision = control.Int64
		if !p.Valid && !t.Valid && !scopes.Valid && !effect.Valid && !rev.Valid {
			continue
		}
		if len(l.Rows) == limit {
			more = true
			continue
		}
		r, err := decodeRow(p.String, p, t, scopes, effect, rev)
		if err != nil {
			return nil, false, err
		}
		l.Rows = append(l.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fail(ctx, "read", err)
	}
	if !found {
		return nil, false, errNoControl
	}
	grants.SortRows(l.Rows)
	s.raise(l.Revision)
	return l, more, nil
}
