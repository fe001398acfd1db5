package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// SPEC GRANT-4: whatever SQL writes a change, the control revision moves exactly once
// for it (and not at all when nothing changed), so an unchanged control revision means
// unchanged rows. Each step names the SQL and the increment it must make.
func TestTriggersCountEachChangeOnce(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			_, db := newStore(t, b)
			steps := []struct {
				what, sql string
				n         int64
			}{
				{"INSERT", "INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 't', 'allow')", 1},
				{"upsert without revision = excluded.revision",
					"INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 't', 'deny') ON CONFLICT (principal_id, tool_name) DO UPDATE SET effect = excluded.effect", 1},
				{"upsert of a new key", "INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 'u', 'deny') ON CONFLICT (principal_id, tool_name) DO UPDATE SET effect = excluded.effect", 1},
				{"ON CONFLICT DO NOTHING that conflicts", "INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 't', 'allow') ON CONFLICT DO NOTHING", 0},
				{"ON CONFLICT DO NOTHING that inserts", "INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 'v', 'allow') ON CONFLICT DO NOTHING", 1},
				{"UPDATE of the effect stamping the control revision",
					"UPDATE tool_grants SET effect = 'allow', revision = (SELECT revision FROM control_revisions WHERE name = 'model_grants') WHERE tool_name = 't'", 1},
				{"UPDATE of the effect stamping the next control revision",
					"UPDATE tool_grants SET effect = 'deny', revision = (SELECT revision + 1 FROM control_revisions WHERE name = 'model_grants') WHERE tool_name = 't'", 1},
				{"INSERT of three rows", "INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('bob', 'a', 'allow'), ('bob', 'b', 'allow'), ('bob', 'c', 'deny')", 3},
				{"DELETE of three rows", "DELETE FROM tool_grants WHERE principal_id = 'bob'", 3},
				{"UPDATE of nothing", "UPDATE tool_grants SET effect = 'deny' WHERE tool_name = 'missing'", 0},
			}
			if b.dialect == SQLite {
				steps = append(steps, struct {
					what, sql string
					n         int64
				}{"INSERT OR REPLACE of an existing key", "INSERT OR REPLACE INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 't', 'allow')", 1})
			} else {
				steps = append(steps, struct {
					what, sql string
					n         int64
				}{"TRUNCATE", "TRUNCATE tool_grants", 1})
			}
			for _, st := range steps {
				c := control(t, db)
				if _, err := db.Exec(st.sql); err != nil {
					t.Fatalf("%s: %v", st.what, err)
				}
				if got := control(t, db); got != c+st.n {
					t.Errorf("GRANT-4: %s: control revision %d→%d, want +%d", st.what, c, got, st.n)
				}
				var bad int
				if err := db.QueryRow("SELECT count(*) FROM tool_grants WHERE revision > (SELECT revision FROM control_revisions WHERE name = 'model_grants')").Scan(&bad); err != nil || bad != 0 {
					t.Errorf("GRANT-4: %s: %d rows (%v) have a revision above the control revision", st.what, bad, err)
				}
			}
		})
	}
}

// rowsOf is a Snapshot's rows as comparable text.
func rowsOf(snap *grants.Snapshot) []string {
	var out []string
	for _, r := range snap.Rows {
		out = append(out, fmt.Sprintf("%s/%s/%s/%q/%d", r.Principal, r.Tool, r.Effect, r.Scopes, r.Revision))
	}
	slices.Sort(out)
	return out
}

// SPEC GRANT-4, GRANT-6: a Store answering from its cache sees every change committed
// before the read starts, plain SQL included: after each write, its read equals a full
// read by a Store that caches nothing.
func TestCachedReadSeesEveryWrite(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			full := NewWithOptions(db, b.dialect, &Options{CacheBytes: -1})
			other := New(db, b.dialect)
			writes := []struct {
				what  string
				write func() error
			}{
				{"Put by another Store", func() error {
					_, err := other.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Scopes: []string{"a"}, Effect: grants.Allow})
					return err
				}},
				{"Put of a * row by another Store", func() error {
					_, err := other.Put(ctx, grants.Row{Principal: "*", Tool: "u", Effect: grants.Allow})
					return err
				}},
				{"plain UPDATE of scopes", func() error {
					_, err := db.Exec("UPDATE tool_grants SET scopes = 'b' WHERE tool_name = 't'")
					return err
				}},
				{"plain UPDATE stamping the control revision", func() error {
					_, err := db.Exec("UPDATE tool_grants SET effect = 'deny', revision = (SELECT revision FROM control_revisions WHERE name = 'model_grants') WHERE tool_name = 't'")
					return err
				}},
				{"plain upsert", func() error {
					_, err := db.Exec("INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 't', 'allow') ON CONFLICT (principal_id, tool_name) DO UPDATE SET effect = excluded.effect")
					return err
				}},
				{"another principal's row", func() error {
					_, err := other.Put(ctx, grants.Row{Principal: "bob", Tool: "t", Effect: grants.Allow})
					return err
				}},
				{"plain DELETE (a revocation)", func() error {
					_, err := db.Exec("DELETE FROM tool_grants WHERE principal_id = 'alice'")
					return err
				}},
				{"Delete by another Store", func() error { return other.Delete(ctx, "*", "u") }},
			}
			for _, w := range writes {
				if _, err := s.ReadGrants(ctx, "alice"); err != nil { // cache the state before
					t.Fatalf("before %s: %v", w.what, err)
				}
				if err := w.write(); err != nil {
					t.Fatalf("%s: %v", w.what, err)
				}
				got, err := s.ReadGrants(ctx, "alice")
				want, err2 := full.ReadGrants(ctx, "alice")
				if err != nil || err2 != nil || got.Revision != want.Revision || !slices.Equal(rowsOf(got), rowsOf(want)) {
					t.Errorf("GRANT-6: after %s: cached read = (%v, %v), full read = (%v, %v)", w.what, got, err, want, err2)
				}
			}
		})
	}
}

// The cache answers from memory while the control revision stands (no read of the
// rows, the same Snapshot); a higher control revision means reading the rows again
// (those changed since, see TestDeltaReadFollowsEveryChange), a lower or missing one the
// full read's rules (SPEC CURSOR-5, ERR-5).
func TestCacheFollowsControlRevision(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			first, err := s.ReadGrants(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			f0, d0 := readCounts(s)
			for i := range 3 {
				if again, err := s.ReadGrants(ctx, "alice"); err != nil || again != first {
					t.Errorf("read %d = (%p, %v), want the cached Snapshot %p", i+2, again, err, first)
				}
			}
			if f, d := readCounts(s); f != f0 || d != d0 {
				t.Errorf("reads at an unchanged control revision read rows: %d full, %d delta, want none", f-f0, d-d0)
			}
			c := control(t, db)
			if _, err := db.Exec("UPDATE tool_grants SET effect = 'deny'"); err != nil {
				t.Fatal(err)
			}
			got, err := s.ReadGrants(ctx, "alice")
			if err != nil || got.Revision != c+1 || len(got.Rows) != 1 || got.Rows[0].Effect != grants.Deny {
				t.Errorf("read at a higher control revision = (%v, %v), want the rows read again at %d", got, err, c+1)
			}
			if _, err := db.Exec(ph(b.dialect, "UPDATE control_revisions SET revision = ?"), c); err != nil {
				t.Fatal(err)
			}
			_, err = s.ReadGrants(ctx, "alice")
			checkClosed(t, "CURSOR-5: read at a lower control revision", err, ErrStale)
			if _, err := db.Exec("DELETE FROM control_revisions"); err != nil {
				t.Fatal(err)
			}
			_, err = s.ReadGrants(ctx, "alice")
			checkClosed(t, "ERR-5: read without the control row", err, grants.ErrUnavailable)
			if _, err := db.Exec(ph(b.dialect, "INSERT INTO control_revisions (name, revision) VALUES ('model_grants', ?)"), c+2); err != nil {
				t.Fatal(err)
			}
			if got, err := s.ReadGrants(ctx, "alice"); err != nil || got.Revision != c+2 {
				t.Errorf("read once the control row is back = (%v, %v), want revision %d", got, err, c+2)
			}
		})
	}
}

// A Store over a database without migration 0020 (its triggers may count a change
// twice or not at all) never answers from its cache.
func TestNoCacheWithout0020(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			db := b.open(t)
			if err := migrate(ctx, db, b.dialect, nil, versionRules); err != nil {
				t.Fatal(err)
			}
			s := New(db, b.dialect)
			first, err := s.ReadGrants(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			// 0019 lets this change a row uncounted.
			if _, err := db.Exec("INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 't', 'allow')"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("UPDATE tool_grants SET effect = 'deny', revision = (SELECT revision FROM control_revisions WHERE name = 'model_grants')"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ReadGrants(ctx, "alice"); err != nil {
				t.Fatal(err)
			}
			got, err := s.ReadGrants(ctx, "alice")
			if err != nil || len(got.Rows) != 1 || got.Rows[0].Effect != grants.Deny || got == first {
				t.Errorf("read over 0019 = (%v, %v), want the row as stored, read again", got, err)
			}
		})
	}
}

// cached is c's Snapshot of principal, or nil.
func cached(c *snapshotCache, principal string) *grants.Snapshot {
	snap, _ := c.get(principal)
	return snap
}

// snapshotCache keeps what it holds within its byte bound, least recently used out
// first; a Snapshot larger than the bound or older than the cached one is not kept.
func TestSnapshotCacheBound(t *testing.T) {
	snap := func(rev int64, tools ...string) *grants.Snapshot {
		s := &grants.Snapshot{Revision: rev}
		for _, tool := range tools {
			s.Rows = append(s.Rows, grants.Row{Principal: "*", Tool: tool, Effect: grants.Allow, Revision: 1})
		}
		return s
	}
	one := snapshotSize("p0", snap(1, "t"))
	c := newSnapshotCache(3 * one)
	for i := range 3 {
		c.put(fmt.Sprintf("p%d", i), snap(1, "t"), 0)
	}
	cached(c, "p0") // p1 is now the least recently used
	c.put("p3", snap(1, "t"), 0)
	if c.bytes > c.max || len(c.byKey) != 3 {
		t.Errorf("cache holds %d bytes in %d entries, want at most %d in 3", c.bytes, len(c.byKey), c.max)
	}
	if cached(c, "p1") != nil || cached(c, "p0") == nil || cached(c, "p3") == nil {
		t.Error("the least recently used entry (p1) was not the one evicted")
	}
	var many []string
	for i := range 64 {
		many = append(many, fmt.Sprintf("tool-%d", i))
	}
	if got := c.put("big", snap(1, many...), 0); got == nil || cached(c, "big") != nil {
		t.Error("a Snapshot larger than the bound was kept")
	}
	newer := snap(5, "t")
	c.put("p0", newer, 0)
	c.put("p0", snap(4, "t"), 0)
	if cached(c, "p0") != newer {
		t.Error("an older Snapshot replaced a newer one")
	}
	if same := snap(5, "t"); c.put("p0", same, 0) != newer {
		t.Error("a Snapshot equal to the cached one did not answer the cached pointer")
	}
	none := newSnapshotCache(-1)
	none.put("p", snap(1, "t"), 0)
	if cached(none, "p") != nil {
		t.Error("a cache bounded at -1 bytes kept a Snapshot")
	}
}

// SPEC GRANT-5, GRANT-6: a full read that fails is not cached, and the Snapshot cached
// before it is never answered instead: while the principal has too many rows, every
// read fails closed; once they are gone, reads answer the rows again.
func TestFailedReadsAnswerNoCachedSnapshot(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ReadGrants(ctx, "alice"); err != nil {
				t.Fatal(err)
			}
			gen := "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 4096) SELECT 'alice', 'bulk' || x, 'allow' FROM n"
			if b.dialect == Postgres {
				gen = "SELECT 'alice', 'bulk' || x, 'allow' FROM generate_series(1, 4096) x"
			}
			if _, err := db.Exec("INSERT INTO tool_grants (principal_id, tool_name, effect) " + gen); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				snap, err := s.ReadGrants(ctx, "alice")
				checkClosed(t, fmt.Sprintf("GRANT-5: read %d over 4,097 rows", i+1), err, grants.ErrTooManyRows)
				if snap != nil {
					t.Errorf("GRANT-6: read %d over 4,097 rows answered a Snapshot of %d rows", i+1, len(snap.Rows))
				}
			}
			if _, err := db.Exec("DELETE FROM tool_grants WHERE tool_name <> 't'"); err != nil {
				t.Fatal(err)
			}
			if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 1 || snap.Revision != control(t, db) {
				t.Errorf("read once the rows are gone = (%v, %v), want 1 row at revision %d", snap, err, control(t, db))
			}
		})
	}
}

// SPEC FLAG-3, GRANT-6: a table dropped under a Store (DROP TABLE counts no change:
// no trigger fires) fails the next read closed even for a principal whose Snapshot is
// cached at the current control revision: the cheap revision read must not answer
// cached permissions for grants that no longer exist. It answered the cached Snapshot,
// so examples/mcpserver -db kept running granted calls after DROP TABLE tool_grants.
func TestDroppedTableFailsCachedRead(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b, grants.Row{Principal: grants.AnyPrincipal, Tool: "t", Effect: grants.Allow})
			for i := range 2 { // the second read answers from the cache
				if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 1 {
					t.Fatalf("read %d = (%v, %v), want the compat row", i+1, snap, err)
				}
			}
			if _, err := db.Exec("DROP TABLE tool_grants"); err != nil {
				t.Fatal(err)
			}
			snap, err := s.ReadGrants(ctx, "alice")
			checkClosed(t, "FLAG-3: cached read after the table was dropped", err, grants.ErrUnavailable)
			if snap != nil {
				t.Errorf("GRANT-6: a read with the table dropped answered a Snapshot of %d rows", len(snap.Rows))
			}
		})
	}
}

// SPEC FLAG-3, GRANT-6: dropping any other table of the store under a Store whose
// Snapshot is cached (the control revisions, the tombstones, their floor, the
// migration record) never lets the cache answer rows the grant table no longer holds:
// a write that would change them fails (its trigger needs the table) or is counted,
// and the next read fails closed or answers the rows as they are. (Dropping and
// recreating tool_grants drops its triggers: TestMissingTriggersFailClosed.)
func TestDroppedTablesNoStaleRead(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		for _, table := range []string{"control_revisions", "tool_grants_deleted", "tool_grants_deleted_floor", "sqlstore_migrations"} {
			t.Run(b.dialect.String()+"/"+table, func(t *testing.T) {
				s, db := newStore(t, b, grants.Row{Principal: grants.AnyPrincipal, Tool: "t", Effect: grants.Allow})
				for i := range 2 { // the second read answers from the cache
					if snap, err := s.ReadGrants(ctx, "alice"); err != nil || len(snap.Rows) != 1 {
						t.Fatalf("read %d = (%v, %v), want the compat row", i+1, snap, err)
					}
				}
				if _, err := db.Exec("DROP TABLE " + table); err != nil {
					t.Fatal(err)
				}
				db.Exec("DELETE FROM tool_grants") // may fail: a trigger writes to the dropped table
				var held int
				if err := db.QueryRow("SELECT count(*) FROM tool_grants").Scan(&held); err != nil {
					t.Fatal(err)
				}
				snap, err := s.ReadGrants(ctx, "alice")
				if err != nil {
					checkClosed(t, "read after dropping "+table, err, grants.ErrUnavailable)
				} else if len(snap.Rows) != held {
					t.Errorf("GRANT-6: after dropping %s the read answered %d rows; tool_grants holds %d", table, len(snap.Rows), held)
				}
			})
		}
	}
}
