package storetests_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/internal/dbtest"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
	"github.com/deferredtools/deferredtools/grants/sqlstore"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// This file runs the Discoverer over the SQL grant store (issue 5): writers granting and
// revoking while readers page through discovery, on SQLite always and on PostgreSQL when
// DEFERRED_TOOLS_TEST_POSTGRES holds a connection string. Its helpers carry the prefix
// "sq".

// sqTools is the catalog size of these tests: at most 32, so a tool set fits a uint32.
const sqTools = 20

// sqQuery matches every tool of sqCatalog, so a complete page chain lists exactly the
// authorised set (SPEC DISC-5).
const sqQuery = "inventory"

// sqPrincipals are the callers: alice lacks tools:admin, bob holds it.
var sqPrincipals = []grants.Principal{
	{ID: "alice", Scopes: []string{"tools:read"}},
	{ID: "bob", Scopes: []string{"tools:admin", "tools:read"}},
}

// sqScopeChoices are the scope lists the writers put on rows.
var sqScopeChoices = [][]string{nil, {"tools:read"}, {"tools:admin"}, {"tools:read", "tools:admin"}}

func sqToolName(i int) string { return fmt.Sprintf("inventory_tool_%02d", i) }

// sqCatalog is sqTools tools whose descriptions all hold sqQuery.
func sqCatalog(t testing.TB) *discovery.Catalog {
	t.Helper()
	tools := make([]json.RawMessage, sqTools)
	for i := range tools {
		b, err := json.Marshal(map[string]any{
			"name":        sqToolName(i),
			"description": fmt.Sprintf("Inventory tool %d: counts the stock of warehouse %d.", i, i),
			"inputSchema": map[string]any{"type": "object"},
		})
		if err != nil {
			t.Fatal(err)
		}
		tools[i] = b
	}
	c, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return c
}

// sqBackend opens a fresh database of one dialect.
type sqBackend struct {
	name    string
	dialect sqlstore.Dialect
	open    func(t testing.TB) *sql.DB
}

var sqBackends = []sqBackend{
	{"sqlite", sqlstore.SQLite, dbtest.SQLite},
	{"postgres", sqlstore.Postgres, dbtest.Postgres},
}

// sqFixture is one database with its store, the model of its rows and their history.
type sqFixture struct {
	store *sqlstore.Store
	hist  *sqHistory

	mu     sync.Mutex // serialises writers so the model follows the revisions
	model  sqModel
	rev    int64 // the control revision
	writes atomic.Int64
}

// sqCompat are the migration's compatibility rows: the host's public tools.
func sqCompat() []grants.Row {
	var rows []grants.Row
	for i := 0; i < sqTools; i += 3 {
		rows = append(rows, grants.Row{Principal: grants.AnyPrincipal, Tool: sqToolName(i), Effect: grants.Allow, Revision: 1})
	}
	rows = append(rows, grants.Row{Principal: grants.AnyPrincipal, Tool: sqToolName(1), Scopes: []string{"tools:admin"}, Effect: grants.Allow, Revision: 1})
	return rows
}

func newSQFixture(t testing.TB, b sqBackend) *sqFixture {
	t.Helper()
	db := b.open(t)
	ctx := context.Background()
	compat := sqCompat()
	if err := sqlstore.Migrate(ctx, db, b.dialect, compat); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	f := &sqFixture{store: sqlstore.New(db, b.dialect), model: sqModel{}}
	snap, err := f.store.ReadGrants(ctx, "nobody")
	if err != nil {
		t.Fatalf("ReadGrants after Migrate: %v", err)
	}
	if len(snap.Rows) != len(compat) {
		t.Fatalf("after Migrate: %d rows, want the %d compat rows", len(snap.Rows), len(compat))
	}
	for _, r := range snap.Rows {
		f.model[sqKey{r.Principal, r.Tool}] = r
	}
	f.rev = snap.Revision
	f.hist = newSQHistory(f.rev, f.model)
	return f
}

// write applies one change, put or delete, to the store, the model and the history.
func (f *sqFixture) write(ctx context.Context, r grants.Row, del bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := sqKey{r.Principal, r.Tool}
	if del {
		if _, ok := f.model[k]; !ok {
			// No row: nothing changes, the control revision included.
			return f.store.Delete(ctx, r.Principal, r.Tool)
		}
		delete(f.model, k)
	} else {
		r.Revision = f.rev + 1
		f.model[k] = r
	}
	f.rev++
	if err := f.hist.record(f.rev, f.model); err != nil {
		return err
	}
	if del {
		if err := f.store.Delete(ctx, r.Principal, r.Tool); err != nil {
			return fmt.Errorf("Delete: %w", err)
		}
	} else {
		got, err := f.store.Put(ctx, r)
		if err != nil {
			return fmt.Errorf("Put: %w", err)
		}
		// SPEC GRANT-4: the change takes the next control revision as its revision.
		if got.Revision != f.rev {
			return fmt.Errorf("GRANT-4: Put answered revision %d, want %d", got.Revision, f.rev)
		}
	}
	f.hist.committed.Store(f.rev)
	f.writes.Add(1)
	return nil
}

// randomChange picks a grant, deny or revoke of a random tool for alice, bob or "*".
func sqRandomChange(rng *mrand.Rand) (grants.Row, bool) {
	principal := []string{"alice", "bob", grants.AnyPrincipal}[rng.IntN(3)]
	r := grants.Row{Principal: principal, Tool: sqToolName(rng.IntN(sqTools)), Effect: grants.Allow, Revision: 1}
	switch n := rng.IntN(10); {
	case n < 4:
		return r, true // revoke: delete the row
	case n < 6:
		r.Effect = grants.Deny
	default:
		r.Scopes = sqScopeChoices[rng.IntN(len(sqScopeChoices))]
	}
	return r, false
}

// sqStats counts what the readers saw.
type sqStats struct {
	pages, chains, complete, invalidCursor, changed, lists, calls atomic.Int64
}

// sqReader pages through discovery, lists tools and authorises calls until stop,
// checking every answer against the history; it reports the first violation to errorf
// and returns.
func sqReader(errorf func(format string, args ...any), d *discovery.Discoverer, f *sqFixture, stats *sqStats, seed uint64, stop func() bool, revisionSync bool) {
	ctx := context.Background()
	rng := mrand.New(mrand.NewPCG(seed, 7))
	// accept reports whether err is an answer the SPEC allows under concurrent writes.
	accept := func(what string, err error, allowed ...discovery.Code) bool {
		var e *discovery.Error
		if errors.As(err, &e) {
			switch {
			case slices.Contains(allowed, e.Code):
				switch e.Code {
				case discovery.CodeInvalidCursor:
					stats.invalidCursor.Add(1)
				case discovery.CodeGrantsChanged:
					stats.changed.Add(1)
				}
				return true
			}
		}
		errorf("%s: unexpected error %v (cause: %s)", what, err, sqCause(err))
		return false
	}
	for !stop() {
		pi := rng.IntN(len(sqPrincipals))
		p := sqPrincipals[pi]
		switch rng.IntN(8) {
		case 0:
			lo := f.hist.window()
			res, err := d.ListTools(ctx, p)
			hi := f.hist.end()
			if err != nil {
				if !accept("ListTools", err) {
					return
				}
				continue
			}
			stats.lists.Add(1)
			set, err := sqSet(res.Tools)
			if err != nil {
				errorf("ListTools(%s): %v", p.ID, err)
				return
			}
			if f.hist.find(pi, lo, hi, func(g uint32) bool { return g == set }) < 0 {
				errorf("GRANT-4: ListTools(%s) = %032b matches no grant state of revisions %d..%d", p.ID, set, lo, hi)
				return
			}
			continue
		case 1:
			i := rng.IntN(sqTools)
			lo := f.hist.window()
			err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: sqToolName(i)})
			hi := f.hist.end()
			var e *discovery.Error
			switch {
			case err == nil:
				if f.hist.find(pi, lo, hi, func(g uint32) bool { return g&(1<<i) != 0 }) < 0 {
					errorf("CALL-1: AuthorizeCall(%s, %s) allowed, but no revision of %d..%d grants it", p.ID, sqToolName(i), lo, hi)
					return
				}
			case errors.As(err, &e) && e.Code == discovery.CodeToolNotGranted:
				if f.hist.find(pi, lo, hi, func(g uint32) bool { return g&(1<<i) == 0 }) < 0 {
					errorf("CALL-1: AuthorizeCall(%s, %s) refused, but every revision of %d..%d grants it", p.ID, sqToolName(i), lo, hi)
					return
				}
			default:
				if !accept("AuthorizeCall", err) {
					return
				}
			}
			stats.calls.Add(1)
			continue
		}

		// A page chain: the first page, then cursor pages while they last.
		stats.chains.Add(1)
		req := discovery.Request{Query: sqQuery, Limit: 2 + rng.IntN(4)}
		var union uint32
		first := f.hist.window()
		for n := 1; ; n++ {
			lo := f.hist.window()
			res, err := d.Discover(ctx, p, req)
			hi := f.hist.end()
			what := fmt.Sprintf("%s page %d", p.ID, n)
			if err != nil {
				// SPEC CURSOR-4: a change seen while the page was prepared answers 409;
				// CURSOR-2: a cursor bound to other grants answers 400.
				allowed := []discovery.Code{discovery.CodeGrantsChanged}
				if n > 1 {
					allowed = append(allowed, discovery.CodeInvalidCursor)
				}
				if !accept(what, err, allowed...) {
					return
				}
				break
			}
			stats.pages.Add(1)
			set, err := sqSet(res.Tools)
			if err != nil {
				errorf("%s: %v", what, err)
				return
			}
			// Every tool matches the query: only a first page with nothing granted is
			// empty.
			if len(res.Tools) > req.Limit || len(res.Tools) == 0 && (n > 1 || res.NextCursor != "") {
				errorf("%s: %d tools for limit %d, cursor %v", what, len(res.Tools), req.Limit, res.NextCursor != "")
				return
			}
			// SPEC GRANT-4, DISC-5: the page is cut from one grant state the request
			// could have observed.
			if f.hist.find(pi, lo, hi, func(g uint32) bool { return set&^g == 0 }) < 0 {
				errorf("%s: tools %032b granted at no revision of %d..%d (a tool never granted then)", what, set, lo, hi)
				return
			}
			if union&set != 0 {
				errorf("%s: repeats tools of earlier pages (%032b)", what, union&set)
				return
			}
			union |= set
			if res.NextCursor == "" {
				// SPEC CURSOR-2, DISC-5: a chain that ran to its end lists exactly the
				// authorised set of one revision, none twice.
				if f.hist.find(pi, first, hi, func(g uint32) bool { return g == union }) < 0 {
					errorf("%s: the chain's tools %032b are the granted set of no revision of %d..%d", what, union, first, hi)
					return
				}
				stats.complete.Add(1)
				break
			}
			req.Cursor = res.NextCursor
		}
	}
}

// sqSet returns the tool set of a page, refusing a tool outside the catalog or listed
// twice.
func sqSet(tools []json.RawMessage) (uint32, error) {
	var set uint32
	for _, raw := range tools {
		var v struct{ Name string }
		if err := json.Unmarshal(raw, &v); err != nil {
			return 0, err
		}
		var i int
		if _, err := fmt.Sscanf(v.Name, "inventory_tool_%02d", &i); err != nil || i < 0 || i >= sqTools || sqToolName(i) != v.Name {
			return 0, fmt.Errorf("tool %q is not in the catalog", v.Name)
		}
		if set&(1<<i) != 0 {
			return 0, fmt.Errorf("tool %q listed twice", v.Name)
		}
		set |= 1 << i
	}
	return set, nil
}

// sqRun runs writers and readers on f for at most d, the readers asking a Discoverer
// over r (f.store or a wrapper), and reports the first violation to errorf.
func sqRun(t *testing.T, f *sqFixture, r grants.Reader, revisionSync bool, d time.Duration, errorf func(string, ...any)) *sqStats {
	const writers, readers = 2, 4
	disc := discovery.New(&discovery.Options{Enabled: true, Catalog: sqCatalog(t), Grants: r, RevisionSync: revisionSync})
	var (
		stats  sqStats
		failed atomic.Bool
		wg     sync.WaitGroup
	)
	// The run lasts d, and longer (up to 10 s more) until it has proved something: a
	// loaded machine may schedule too few writes or chains in d alone.
	deadline, hard := time.Now().Add(d), time.Now().Add(d+10*time.Second)
	enough := func() bool {
		return f.writes.Load() >= 3 && stats.complete.Load() > 0 && stats.invalidCursor.Load()+stats.changed.Load() > 0
	}
	stop := func() bool {
		now := time.Now()
		return failed.Load() || now.After(deadline) && (enough() || now.After(hard))
	}
	report := func(format string, args ...any) {
		if !failed.Swap(true) {
			errorf(format, args...)
		}
	}
	for w := range writers {
		wg.Go(func() {
			rng := mrand.New(mrand.NewPCG(uint64(w), 11))
			for !stop() {
				r, del := sqRandomChange(rng)
				if err := f.write(context.Background(), r, del); err != nil {
					report("writer: %v", err)
					return
				}
			}
		})
	}
	for i := range readers {
		wg.Go(func() { sqReader(report, disc, f, &stats, uint64(i), stop, revisionSync) })
	}
	wg.Wait()
	t.Logf("%d writes; %d chains (%d complete), %d pages, %d ListTools, %d AuthorizeCall; refused: %d invalid_cursor, %d tool_grants_changed",
		f.writes.Load(), stats.chains.Load(), stats.complete.Load(), stats.pages.Load(), stats.lists.Load(), stats.calls.Load(),
		stats.invalidCursor.Load(), stats.changed.Load())
	return &stats
}

// sqCause names which known cause err carries, for a failure's report: the error's
// own text is content-free (grants_unavailable says nothing of why).
func sqCause(err error) string {
	for _, c := range []struct {
		name string
		err  error
	}{
		{"revision unavailable or stale (RevisionSync)", discovery.ErrRevisionUnavailable},
		{"the grant read timed out (GrantTimeout)", context.DeadlineExceeded},
		{"sqlstore.ErrStale", sqlstore.ErrStale},
		{"sqlstore.ErrUncounted", sqlstore.ErrUncounted},
		{"sqlstore.ErrClosed", sqlstore.ErrClosed},
		{"grants.ErrUnavailable (storage)", grants.ErrUnavailable},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "unknown"
}

// sqSkip skips t when b's database is not configured.
func sqSkip(t *testing.T, b sqBackend) {
	if b.dialect == sqlstore.Postgres && os.Getenv(dbtest.PostgresEnv) == "" {
		t.Skipf("PostgreSQL skipped: set %s to a connection string (bash .ci/postgres.sh prints one)", dbtest.PostgresEnv)
	}
}

// SPEC GRANT-4, CURSOR-4, CURSOR-2, DISC-5, CURSOR-5: writers grant, deny and revoke
// (sqlstore Put and Delete) while readers page through discovery (first and cursor
// pages), list tools and authorise calls through one Discoverer over the SQL store.
// Every page is cut from the grant state of one revision the request could have
// observed, a complete page chain is exactly one revision's authorised set, and
// every refusal is 409 tool_grants_changed or 400 invalid_cursor: never a tool the
// principal was not granted. Run with -race; under a second per case.
func TestSQLStoreConcurrentDiscovery(t *testing.T) {
	for _, b := range sqBackends {
		for _, revisionSync := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/RevisionSync=%v", b.name, revisionSync), func(t *testing.T) {
				sqSkip(t, b)
				f := newSQFixture(t, b)
				stats := sqRun(t, f, f.store, revisionSync, 800*time.Millisecond, t.Errorf)
				if t.Failed() {
					return
				}
				// The run proved something only if grants changed under the readers,
				// pages were served, chains completed and some were refused.
				if f.writes.Load() < 3 {
					t.Errorf("only %d writes: the readers saw no churn", f.writes.Load())
				}
				if stats.pages.Load() == 0 || stats.complete.Load() == 0 {
					t.Errorf("%d pages, %d complete chains: the readers proved nothing", stats.pages.Load(), stats.complete.Load())
				}
				if stats.invalidCursor.Load()+stats.changed.Load() == 0 {
					t.Errorf("no page was refused with 400 or 409 while grants changed")
				}
			})
		}
	}
}

// sqFrozenReader answers, for each principal, the first Snapshot base gave it: a store
// serving cached permissions, which GRANT-6 forbids.
type sqFrozenReader struct {
	base  grants.Reader
	mu    sync.Mutex
	snaps map[string]*grants.Snapshot
}

func (r *sqFrozenReader) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.snaps[id]; ok {
		return s, nil
	}
	s, err := r.base.ReadGrants(ctx, id)
	if err == nil {
		r.snaps[id] = s
	}
	return s, err
}

// The checker of TestSQLStoreConcurrentDiscovery is not vacuous: a Discoverer over a
// store that serves stale grants is caught serving tools outside the read window.
func TestSQLStoreConcurrentCheckerCatchesStaleGrants(t *testing.T) {
	f := newSQFixture(t, sqBackends[0])
	var caught atomic.Value
	sqRun(t, f, &sqFrozenReader{base: f.store, snaps: map[string]*grants.Snapshot{}}, false, 3*time.Second, func(format string, args ...any) {
		caught.Store(fmt.Sprintf(format, args...))
	})
	msg, _ := caught.Load().(string)
	if msg == "" {
		t.Fatalf("stale grants served for 3 s and the checker found nothing (%d writes)", f.writes.Load())
	}
	t.Logf("caught: %s", msg)
}

// SPEC CURSOR-4, CURSOR-2, CURSOR-5: over the SQL store, a grant or a revocation
// landing between the two grant reads of one page answers tool_grants_changed (409),
// and a cursor issued before a change answers invalid_cursor (400). A change to
// another principal's rows is no change for alice, unless revision sync binds pages to
// the control revision.
func TestSQLStoreGrantChangeMidPage(t *testing.T) {
	cat := sqCatalog(t)
	alice := sqPrincipals[0]
	ctx := context.Background()
	aliceTool := grants.Row{Principal: "alice", Tool: sqToolName(2), Effect: grants.Allow, Revision: 1}
	bobTool := grants.Row{Principal: "bob", Tool: sqToolName(2), Effect: grants.Allow, Revision: 1}
	for _, b := range sqBackends {
		t.Run(b.name, func(t *testing.T) {
			sqSkip(t, b)
			for _, tc := range []struct {
				name   string
				change func(s *sqlstore.Store) error
				sync   bool
				want   discovery.Code // "" means the page is served
			}{
				{"grant", func(s *sqlstore.Store) error { _, err := s.Put(ctx, aliceTool); return err }, false, discovery.CodeGrantsChanged},
				{"revoke compat row", func(s *sqlstore.Store) error { return s.Delete(ctx, grants.AnyPrincipal, sqToolName(3)) }, false, discovery.CodeGrantsChanged},
				{"same content again", func(s *sqlstore.Store) error { _, err := s.Put(ctx, sqCompat()[0]); return err }, false, discovery.CodeGrantsChanged},
				{"another principal", func(s *sqlstore.Store) error { _, err := s.Put(ctx, bobTool); return err }, false, ""},
				{"another principal with sync", func(s *sqlstore.Store) error { _, err := s.Put(ctx, bobTool); return err }, true, discovery.CodeGrantsChanged},
				{"missing row deleted", func(s *sqlstore.Store) error { return s.Delete(ctx, "alice", "no_such_tool") }, true, ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					f := newSQFixture(t, b)
					var changeAt atomic.Int64
					hook := &grantstest.HookReader{Base: f.store, Before: func(ctx context.Context, n int64) error {
						if n == changeAt.Load() {
							return tc.change(f.store)
						}
						return nil
					}}
					d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: hook, RevisionSync: tc.sync})
					page1, err := d.Discover(ctx, alice, discovery.Request{Query: sqQuery, Limit: 2})
					if err != nil || page1.NextCursor == "" {
						t.Fatalf("page 1: %v, cursor %q", err, page1.NextCursor)
					}
					// Change between the two reads of page 2.
					changeAt.Store(2 + 2)
					page2, err := d.Discover(ctx, alice, discovery.Request{Query: sqQuery, Limit: 2, Cursor: page1.NextCursor})
					sqWant(t, "page 2 with a change mid-page", page2, err, tc.want)
					// The cursor of page 1 was bound to the grants before the change.
					page2, err = d.Discover(ctx, alice, discovery.Request{Query: sqQuery, Limit: 2, Cursor: page1.NextCursor})
					want := tc.want
					if want != "" {
						want = discovery.CodeInvalidCursor
					}
					sqWant(t, "page 2 again after the change", page2, err, want)
					// A new first page is served from the new grants.
					if _, err := d.Discover(ctx, alice, discovery.Request{Query: sqQuery, Limit: 2}); err != nil {
						t.Errorf("new page 1: %v", err)
					}
				})
			}
		})
	}
}

func sqWant(t *testing.T, what string, res *discovery.Result, err error, code discovery.Code) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Errorf("%s: %v, want a page", what, err)
		}
		return
	}
	var e *discovery.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Errorf("%s: %v, want %s", what, err, code)
		return
	}
	if res != nil {
		t.Errorf("%s: a page came with %s", what, code)
	}
	if e.Code.Status() != map[discovery.Code]int{discovery.CodeGrantsChanged: 409, discovery.CodeInvalidCursor: 400}[code] {
		t.Errorf("%s: status %d", what, e.Code.Status())
	}
}
