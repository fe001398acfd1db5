package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/deferredtools/deferredtools/internal/dbtest"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// SPEC GRANT-1, GRANT-2, GRANT-4, GRANT-5: the Store passes the conformance kit on
// both databases.
func TestConformance(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			b.open(t) // skips here, once, when PostgreSQL is not configured
			grantstest.Run(t, func(t *testing.T) grants.Store {
				s, _ := newStore(t, b)
				return s
			})
		})
	}
}

func readAll(t *testing.T, db *sql.DB) (control int64, rows []string) {
	t.Helper()
	if err := db.QueryRow("SELECT revision FROM control_revisions WHERE name = 'model_grants'").Scan(&control); err != nil {
		t.Fatal(err)
	}
	rs, err := db.Query("SELECT principal_id, tool_name, scopes, effect, revision FROM tool_grants ORDER BY principal_id, tool_name")
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for rs.Next() {
		var p, tool, sc, e string
		var rev int64
		if err := rs.Scan(&p, &tool, &sc, &e, &rev); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, fmt.Sprintf("%s|%s|%s|%s|%d", p, tool, sc, e, rev))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return control, rows
}

// SPEC GRANT-3: the migration creates the tables and the compatibility rows once;
// running Migrate again, or after edits, changes nothing and keeps every row, and a
// deleted compatibility row stays deleted after a restart.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	compat := []grants.Row{
		{Principal: "*", Tool: "models.search", Scopes: []string{"models:read"}, Effect: grants.Allow},
		{Principal: "*", Tool: "datasets.list", Scopes: []string{"datasets:read", "tools:read"}, Effect: grants.Allow},
		{Principal: "*", Tool: "status", Effect: grants.Allow},
	}
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b, compat...)
			c1, rows1 := readAll(t, db)
			want := []string{
				"*|datasets.list|datasets:read tools:read|allow|2",
				"*|models.search|models:read|allow|2",
				"*|status||allow|2",
			}
			if c1 != 2 || !slices.Equal(rows1, want) {
				t.Fatalf("after the first Migrate: control %d, rows %q; want 2, %q", c1, rows1, want)
			}
			snap, err := s.ReadGrants(ctx, "alice")
			if err != nil || len(snap.Rows) != 3 {
				t.Fatalf("ReadGrants after Migrate = (%v, %v), want the 3 compatibility rows", snap, err)
			}

			if err := Migrate(ctx, db, b.dialect, compat); err != nil {
				t.Fatal(err)
			}
			if c, rows := readAll(t, db); c != c1 || !slices.Equal(rows, rows1) {
				t.Errorf("GRANT-3: a second Migrate changed the store: control %d→%d, rows %q→%q", c1, c, rows1, rows)
			}

			// Edits since the migration survive it.
			if _, err := s.Put(ctx, grants.Row{Principal: "*", Tool: "models.search", Effect: grants.Deny}); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, "*", "status"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "models.search", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			c2, rows2 := readAll(t, db)
			// Without "status" in the list, nothing is re-inserted.
			if err := Migrate(ctx, db, b.dialect, compat[:2]); err != nil {
				t.Fatal(err)
			}
			if c, rows := readAll(t, db); c != c2 || !slices.Equal(rows, rows2) {
				t.Errorf("GRANT-3: Migrate after edits changed the store: control %d→%d, rows %q→%q", c2, c, rows2, rows)
			}
			// 0018 ran once: a compat row added to the list later is not inserted, and
			// the deleted "status" row stays deleted, in this process and the next.
			more := append(slices.Clone(compat), grants.Row{Principal: "*", Tool: "billing.quote", Effect: grants.Allow, Scopes: []string{"billing:read"}})
			if err := Migrate(ctx, db, b.dialect, more); err != nil {
				t.Fatal(err)
			}
			if c, rows := readAll(t, db); c != c2 || !slices.Equal(rows, rows2) {
				t.Errorf("GRANT-3: Migrate with new compatibility rows changed the store: control %d→%d, rows %q→%q", c2, c, rows2, rows)
			}
			restarted := New(db, b.dialect)
			snap, err = restarted.ReadGrants(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := grants.Deciding(snap, "alice", "status"); ok {
				t.Error("GRANT-3: the deleted compatibility row came back after Migrate and a restart")
			}
		})
	}
}

// SPEC GRANT-3: compatibility rows are checked before the database is touched.
func TestMigrateRefusesBadCompat(t *testing.T) {
	for _, tc := range []struct {
		reason string
		rows   []grants.Row
	}{
		{"principal", []grants.Row{{Principal: "alice", Tool: "t", Effect: grants.Allow}}},
		{"duplicate", []grants.Row{{Principal: "*", Tool: "t", Effect: grants.Allow}, {Principal: "*", Tool: "t", Effect: grants.Deny}}},
		{"scope", []grants.Row{{Principal: "*", Tool: "t", Effect: grants.Allow, Scopes: []string{"a b"}}}},
		{"effect", []grants.Row{{Principal: "*", Tool: "t"}}},
	} {
		db := dbtest.SQLite(t)
		err := Migrate(context.Background(), db, SQLite, tc.rows)
		var me *grants.MalformedError
		if !errors.As(err, &me) || me.Reason != tc.reason {
			t.Errorf("Migrate(%+v) = %v, want a MalformedError %q", tc.rows, err, tc.reason)
		}
		if _, err := New(db, SQLite).ReadGrants(context.Background(), "alice"); !errors.Is(err, grants.ErrUnavailable) {
			t.Errorf("Migrate refused its rows but created tables: ReadGrants error = %v", err)
		}
	}
	if err := Migrate(context.Background(), dbtest.SQLite(t), Dialect(0), nil); !errors.Is(err, grants.ErrUnavailable) {
		t.Errorf("Migrate with an unknown dialect = %v, want ErrUnavailable", err)
	}
	if err := Migrate(context.Background(), nil, SQLite, nil); !errors.Is(err, grants.ErrUnavailable) {
		t.Errorf("Migrate with no database = %v, want ErrUnavailable", err)
	}
}

// SPEC FLAG-3, GRANT-5, ERR-2: storage missing or broken answers an unavailable error,
// never an empty grant set, and no storage text.
func TestMissingStorage(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			db := b.open(t)
			s := New(db, b.dialect)
			snap, err := s.ReadGrants(ctx, "alice")
			checkClosed(t, "FLAG-3: read before Migrate", err, grants.ErrUnavailable)
			if snap != nil {
				t.Error("FLAG-3: a read with no table answered a Snapshot")
			}
			_, err = s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
			checkClosed(t, "FLAG-3: Put before Migrate", err, grants.ErrUnavailable)

			if err := Migrate(ctx, db, b.dialect, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("DELETE FROM control_revisions"); err != nil {
				t.Fatal(err)
			}
			_, err = s.ReadGrants(ctx, "alice")
			checkClosed(t, "CURSOR-5: read with the control row missing", err, grants.ErrUnavailable)
			_, err = s.Put(ctx, grants.Row{Principal: "alice", Tool: "u", Effect: grants.Allow})
			checkClosed(t, "GRANT-4: Put with the control row missing", err, grants.ErrUnavailable)
			if err := Migrate(ctx, db, b.dialect, nil); err != nil { // restores the control row
				t.Fatal(err)
			}
			if _, err := New(db, b.dialect).ReadGrants(ctx, "alice"); err != nil {
				t.Fatalf("read after the control row was restored: %v", err)
			}

			if _, err := db.Exec("DROP TABLE tool_grants"); err != nil {
				t.Fatal(err)
			}
			snap, err = s.ReadGrants(ctx, "alice")
			checkClosed(t, "FLAG-3: read after the table was dropped", err, grants.ErrUnavailable)
			if snap != nil {
				t.Error("FLAG-3: a read with the table dropped answered a Snapshot")
			}
			checkClosed(t, "FLAG-3: Delete after the table was dropped", s.Delete(ctx, "alice", "t"), grants.ErrUnavailable)
		})
	}
	var nilStore = New(nil, SQLite)
	_, err := nilStore.ReadGrants(ctx, "alice")
	checkClosed(t, "ERR-5: a Store without a database", err, grants.ErrUnavailable)
	_, err = New(dbtest.SQLite(t), Dialect(9)).ReadGrants(ctx, "alice")
	checkClosed(t, "ERR-5: a Store with an unknown dialect", err, grants.ErrUnavailable)
}

// SPEC GRANT-5: rows that break the model fail the read closed. The table here is a
// host's older one without the CHECK constraints, migrated to 0018 only (0019 adds
// them), so storage can hold anything.
func TestMalformedRows(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			for _, tc := range []struct {
				reason                  string
				principal, tool, scopes any
				effect                  any
				revision                any
			}{
				{"effect", "alice", "t", "", "ALLOW", 1},
				{"effect", "alice", "t", "", "", 1},
				{"revision", "alice", "t", "", "allow", 0},
				{"revision", "*", "t", "", "deny", -5},
				{"tool", "alice", "", "", "allow", 1},
				{"scope", "alice", "t", "a  b", "allow", 1},
				{"scope", "alice", "t", " a", "allow", 1},
				{"scope", "alice", "t", "a ", "allow", 1},
				{"scope", "alice", "t", " ", "allow", 1},
				{"scope", "alice", "t", "a\tb", "allow", 1},
				{"scope", "alice", "t", "a,b é", "allow", 1},
				{"scope", "alice", "t", "a a", "allow", 1},
				{"scope", "alice", "t", nil, "allow", 1},
				{"effect", "*", "t", "", nil, 1},
				{"revision", "*", "t", "", "allow", nil},
				{"tool", "*", nil, "", "allow", 1},
			} {
				db := b.open(t)
				if _, err := db.Exec(`CREATE TABLE tool_grants (principal_id TEXT, tool_name TEXT, scopes TEXT, effect TEXT, revision BIGINT)`); err != nil {
					t.Fatal(err)
				}
				// Migrated to 0018 only: 0019's constraints would refuse these rows.
				if err := migrate(ctx, db, b.dialect, nil, versionTables); err != nil {
					t.Fatal(err)
				}
				s := New(db, b.dialect)
				ins := "INSERT INTO tool_grants VALUES (?, ?, ?, ?, ?)"
				if b.dialect == Postgres {
					ins = "INSERT INTO tool_grants VALUES ($1, $2, $3, $4, $5)"
				}
				if _, err := db.Exec(ins, "*", "good", "x", "allow", 1); err != nil {
					t.Fatal(err)
				}
				if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 1 {
					t.Fatalf("ReadGrants of one good row = (%v, %v)", snap, err)
				}
				if _, err := db.Exec(ins, tc.principal, tc.tool, tc.scopes, tc.effect, tc.revision); err != nil {
					t.Fatal(err)
				}
				snap, err := s.ReadGrants(ctx, "alice")
				var me *grants.MalformedError
				if snap != nil || !errors.As(err, &me) || me.Reason != tc.reason {
					t.Errorf("GRANT-5: row (%v, %v, %q, %v, %v): ReadGrants = (%v, %v), want no Snapshot and a MalformedError %q",
						tc.principal, tc.tool, tc.scopes, tc.effect, tc.revision, snap, err, tc.reason)
				}
				// Another principal's bad row does not concern alice.
				if _, err := db.Exec("UPDATE tool_grants SET principal_id = 'bob' WHERE tool_name IS NULL OR tool_name <> 'good'"); err != nil {
					t.Fatal(err)
				}
				if _, err := s.ReadGrants(ctx, "alice"); err != nil {
					t.Errorf("GRANT-5: bob's malformed row failed alice's read: %v", err)
				}
			}
		})
	}
}

// SPEC CURSOR-5: a control revision older than one the Store confirmed is stale: the
// read fails closed.
func TestStaleRevision(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			for range 3 {
				if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}); err != nil {
					t.Fatal(err)
				}
			}
			snap, err := s.ReadGrants(ctx, "alice")
			if err != nil || snap.Revision != 4 {
				t.Fatalf("ReadGrants = (%v, %v), want revision 4", snap, err)
			}
			// The database goes back in time (a restore, a lagging replica).
			if _, err := db.Exec("UPDATE control_revisions SET revision = 2"); err != nil {
				t.Fatal(err)
			}
			snap, err = s.ReadGrants(ctx, "alice")
			checkClosed(t, "CURSOR-5: read of an older revision", err, ErrStale)
			if !errors.Is(err, grants.ErrUnavailable) || snap != nil {
				t.Errorf("CURSOR-5: stale read = (%v, %v), want no Snapshot and an error matching ErrUnavailable", snap, err)
			}
			// A process that never saw revision 4 has nothing to compare with.
			if snap, err := New(db, b.dialect).ReadGrants(ctx, "alice"); err != nil || snap.Revision != 2 {
				t.Errorf("a new Store reads (%v, %v), want revision 2", snap, err)
			}
			// Once the database moves past what the Store confirmed, reads succeed again.
			if _, err := db.Exec("UPDATE control_revisions SET revision = 9"); err != nil {
				t.Fatal(err)
			}
			if snap, err := s.ReadGrants(ctx, "alice"); err != nil || snap.Revision != 9 {
				t.Errorf("read at revision 9 = (%v, %v), want it confirmed", snap, err)
			}
		})
	}
}

// A Store answers the previous Snapshot pointer when nothing changed, so consumers can
// cache decisions by pointer, and a new one after any change.
func TestSnapshotReuse(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t, backend{SQLite, dbtest.SQLite})
	if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Scopes: []string{"a", "b"}, Effect: grants.Allow}); err != nil {
		t.Fatal(err)
	}
	s1, _ := s.ReadGrants(ctx, "alice")
	s2, _ := s.ReadGrants(ctx, "alice")
	if s1 != s2 {
		t.Error("two reads with no change answered different Snapshots")
	}
	if err := s.Delete(ctx, "alice", "missing"); err != nil {
		t.Fatal(err)
	}
	if s3, _ := s.ReadGrants(ctx, "alice"); s3 != s1 {
		t.Error("deleting a missing row changed the Snapshot")
	}
	if _, err := s.Put(ctx, grants.Row{Principal: "bob", Tool: "t", Effect: grants.Allow}); err != nil {
		t.Fatal(err)
	}
	s4, _ := s.ReadGrants(ctx, "alice")
	if s4 == s1 || s4.Revision != s1.Revision+1 {
		t.Errorf("after bob's change alice reads revision %d (same pointer %v), want %d and a new Snapshot", s4.Revision, s4 == s1, s1.Revision+1)
	}
}

// An entry of the write history of TestConsistentSnapshots.
type change struct {
	rev int64
	row grants.Row // Effect "" for a delete
}

// SPEC CURSOR-5, GRANT-4: while writers grant and revoke concurrently, every read is
// exactly the state at the revision it reports: rows and revision come from one
// snapshot, and no increment is lost.
func TestConsistentSnapshots(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			ctx := context.Background()
			s, _ := newStore(t, b)
			c0, err := s.ReadGrants(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			const writers, each, readers = 4, 40, 2
			var (
				mu      sync.Mutex
				history []change
				snaps   []*grants.Snapshot
				errs    []error
				wg      sync.WaitGroup
				done    = make(chan struct{})
			)
			record := func(c *change, snap *grants.Snapshot, err error) {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					errs = append(errs, err)
				case c != nil:
					history = append(history, *c)
				case snap != nil:
					snaps = append(snaps, snap)
				}
			}
			for w := range writers {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(w), 5))
					for range each {
						p := []string{"alice", "*", "bob"}[rng.IntN(3)]
						tool := fmt.Sprintf("t%d", rng.IntN(6))
						if rng.IntN(3) == 0 {
							rev, err := s.delete(ctx, p, tool)
							if err == nil && rev > 0 {
								record(&change{rev: rev, row: grants.Row{Principal: p, Tool: tool}}, nil, nil)
							} else if err != nil {
								record(nil, nil, err)
							}
							continue
						}
						r := grants.Row{Principal: p, Tool: tool, Effect: []grants.Effect{grants.Allow, grants.Deny}[rng.IntN(2)]}
						if rng.IntN(2) == 0 {
							r.Scopes = []string{"s" + tool, "x:y"}
						}
						got, err := s.Put(ctx, r)
						if err != nil {
							record(nil, nil, err)
							continue
						}
						record(&change{rev: got.Revision, row: got}, nil, nil)
					}
				})
			}
			var rg sync.WaitGroup
			for range readers {
				rg.Go(func() {
					for {
						select {
						case <-done:
							return
						default:
						}
						snap, err := s.ReadGrants(ctx, "alice")
						record(nil, snap, err)
						if err == nil {
							if _, err := grants.Resolve(snap, grants.Principal{ID: "alice"}); err != nil {
								record(nil, nil, err)
							}
						}
					}
				})
			}
			wg.Wait()
			close(done)
			rg.Wait()
			for _, err := range errs {
				t.Errorf("concurrent read or write failed: %v", err)
			}
			sort.Slice(history, func(i, j int) bool { return history[i].rev < history[j].rev })
			for i, c := range history {
				if want := c0.Revision + int64(i) + 1; c.rev != want {
					t.Fatalf("GRANT-4: change %d has revision %d, want %d: an increment was lost or reused", i, c.rev, want)
				}
			}
			// Replay the history, checking each read against the state at its revision.
			sort.Slice(snaps, func(i, j int) bool { return snaps[i].Revision < snaps[j].Revision })
			state := map[[2]string]grants.Row{}
			h := 0
			for _, snap := range snaps {
				for h < len(history) && history[h].rev <= snap.Revision {
					c := history[h]
					if c.row.Effect == "" {
						delete(state, [2]string{c.row.Principal, c.row.Tool})
					} else {
						state[[2]string{c.row.Principal, c.row.Tool}] = c.row
					}
					h++
				}
				var want, got []string
				for k, r := range state {
					if k[0] == "alice" || k[0] == "*" {
						want = append(want, fmt.Sprintf("%s/%s %s %q r%d", k[0], k[1], r.Effect, r.Scopes, r.Revision))
					}
				}
				for _, r := range snap.Rows {
					got = append(got, fmt.Sprintf("%s/%s %s %q r%d", r.Principal, r.Tool, r.Effect, r.Scopes, r.Revision))
				}
				sort.Strings(want)
				sort.Strings(got)
				if !slices.Equal(got, want) {
					t.Fatalf("CURSOR-5: read at revision %d holds %q, want the state at that revision %q", snap.Revision, got, want)
				}
			}
			if len(snaps) < 10 {
				t.Errorf("only %d reads ran during the writes; the test proves little", len(snaps))
			}
			t.Logf("%d changes, %d reads checked", len(history), len(snaps))
		})
	}
}

// SPEC GRANT-5, ERR-2: a context that ends fails the read and the write closed, with
// the context's error matchable and no storage text.
func TestContextDeadline(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, _ := newStore(t, b)
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			defer cancel()
			snap, err := s.ReadGrants(ctx, "alice")
			checkClosed(t, "read past its deadline", err, grants.ErrUnavailable)
			if !errors.Is(err, context.DeadlineExceeded) || snap != nil {
				t.Errorf("read past its deadline = (%v, %v), want no Snapshot and DeadlineExceeded", snap, err)
			}
			_, err = s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
			checkClosed(t, "Put past its deadline", err, context.DeadlineExceeded)
		})
	}
}

// SPEC GRANT-5, ERR-2: a SQLite database locked by another connection fails closed
// within the caller's deadline.
func TestLockedSQLite(t *testing.T) {
	ctx := context.Background()
	// Rollback-journal mode, where an exclusive lock keeps readers out too.
	dsn := dbtest.SQLiteDSN(t, "_pragma=journal_mode(DELETE)")
	db := dbtest.Open(t, "sqlite", dsn)
	if err := Migrate(ctx, db, SQLite, []grants.Row{{Principal: "*", Tool: "t", Effect: grants.Allow}}); err != nil {
		t.Fatal(err)
	}
	s := New(db, SQLite)
	if _, err := s.ReadGrants(ctx, "alice"); err != nil {
		t.Fatal(err)
	}

	locker := dbtest.Open(t, "sqlite", dsn)
	conn, err := locker.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}

	rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	snap, err := s.ReadGrants(rctx, "alice")
	checkClosed(t, "read of a locked database", err, grants.ErrUnavailable)
	if snap != nil {
		t.Error("read of a locked database answered a Snapshot")
	}
	start := time.Now()
	_, err = s.Put(rctx, grants.Row{Principal: "alice", Tool: "u", Effect: grants.Allow})
	checkClosed(t, "Put to a locked database", err, grants.ErrUnavailable)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Put to a locked database took %v, want it bounded by the context's deadline", d)
	}

	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "u", Effect: grants.Allow}); err != nil {
		t.Errorf("Put once the lock is released: %v", err)
	}
}

// SPEC GRANT-5, ERR-2: a database closed under the Store fails closed.
func TestClosedDatabase(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			db.Close()
			_, err := s.ReadGrants(context.Background(), "alice")
			checkClosed(t, "read of a closed database", err, grants.ErrUnavailable)
			_, err = s.Put(context.Background(), grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
			checkClosed(t, "Put to a closed database", err, grants.ErrUnavailable)
		})
	}
}

// SPEC GRANT-5, ERR-2: the PostgreSQL server ending the connection between and during
// reads fails them closed.
func TestPostgresConnectionKilled(t *testing.T) {
	ctx := context.Background()
	s, db := newStore(t, backend{Postgres, dbtest.Postgres})
	for i := range 50 {
		if _, err := s.Put(ctx, grants.Row{Principal: "*", Tool: fmt.Sprintf("t%d", i), Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	db.SetMaxOpenConns(1)
	var pid int
	if err := db.QueryRow("SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	admin := dbtest.Postgres(t)
	if _, err := admin.Exec("SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	_, err := s.ReadGrants(ctx, "alice")
	checkClosed(t, "read on a terminated connection", err, grants.ErrUnavailable)

	// During a read: the query sleeps in the server while it is terminated.
	if err := db.QueryRow("SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	slow := New(db, Postgres)
	slow.q = &queries{read: "SELECT c.revision, 2, 3, 0, g.principal_id, g.tool_name, g.scopes, g.effect, g.revision FROM control_revisions c LEFT JOIN tool_grants g ON g.principal_id IN ($1, '*') CROSS JOIN (SELECT pg_sleep(1)) z WHERE c.name = 'model_grants'"}
	go func() {
		time.Sleep(200 * time.Millisecond)
		admin.Exec("SELECT pg_terminate_backend($1)", pid)
	}()
	snap, err := slow.ReadGrants(ctx, "alice")
	checkClosed(t, "read whose connection is terminated mid-query", err, grants.ErrUnavailable)
	if snap != nil {
		t.Error("a read whose connection died answered a Snapshot")
	}
}

// SPEC GRANT-4: SQLite writers never fail with SQLITE_BUSY nor lose an increment, even
// on a database opened without a busy timeout: each write sets its own and takes the
// write lock with BEGIN IMMEDIATE.
func TestSQLiteWritersWithoutBusyTimeout(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t, "sqlite", dbtest.SQLiteDSN(t, "_pragma=journal_mode(WAL)"))
	if err := Migrate(ctx, db, SQLite, nil); err != nil {
		t.Fatal(err)
	}
	s := New(db, SQLite)
	const writers, each = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				var err error
				if i%4 == 3 {
					err = s.Delete(ctx, "alice", fmt.Sprintf("t%d-%d", w, i-1))
				} else {
					_, err = s.Put(ctx, grants.Row{Principal: "alice", Tool: fmt.Sprintf("t%d-%d", w, i), Effect: grants.Allow})
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("GRANT-4: concurrent SQLite write failed: %v", err)
	}
	snap, err := s.ReadGrants(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1 + writers*each); snap.Revision != want {
		t.Errorf("GRANT-4: control revision %d after %d changes, want %d", snap.Revision, writers*each, want)
	}
	if want := writers * (each - 2*(each/4)); len(snap.Rows) != want { // puts less deletes
		t.Errorf("%d rows after the writes, want %d", len(snap.Rows), want)
	}
}

// SPEC GRANT-3: processes starting at once may all migrate: one of them creates the
// tables and inserts the compatibility rows, the others change nothing.
func TestConcurrentMigrate(t *testing.T) {
	compat := []grants.Row{
		{Principal: "*", Tool: "a", Effect: grants.Allow},
		{Principal: "*", Tool: "b", Scopes: []string{"s"}, Effect: grants.Allow},
	}
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			db := b.open(t)
			var wg sync.WaitGroup
			errs := make(chan error, 6)
			for range 6 {
				wg.Go(func() { errs <- Migrate(context.Background(), db, b.dialect, compat) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("GRANT-3: concurrent Migrate failed: %v", err)
				}
			}
			control, rows := readAll(t, db)
			want := []string{"*|a||allow|2", "*|b|s|allow|2"}
			if control != 2 || !slices.Equal(rows, want) {
				t.Errorf("GRANT-3: after 6 concurrent Migrates: control %d, rows %q; want 2, %q", control, rows, want)
			}
		})
	}
}
