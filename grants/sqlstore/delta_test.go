package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// readCounts is how many reads s made in full and from the changes since its cached
// Snapshot.
func readCounts(s *Store) (full, delta int64) { return s.reads.full.Load(), s.reads.delta.Load() }

// sameAsFull fails t unless s's read of principal equals a full read by a Store that
// caches nothing, and answers the Snapshot.
func sameAsFull(t *testing.T, what string, s *Store, db *sql.DB, d Dialect, principal string) *grants.Snapshot {
	t.Helper()
	ctx := context.Background()
	got, err := s.ReadGrants(ctx, principal)
	want, err2 := NewWithOptions(db, d, &Options{CacheBytes: -1}).ReadGrants(ctx, principal)
	if err != nil || err2 != nil || got.Revision != want.Revision || !slices.Equal(rowsOf(got), rowsOf(want)) {
		t.Errorf("GRANT-6: after %s: cached read = (%v, %v), full read = (%v, %v)", what, got, err, want, err2)
	}
	return got
}

// dropTombstone deletes the tombstones of key by hand.
func dropTombstone(db *sql.DB, d Dialect, principal, tool string) error {
	_, err := db.Exec(ph(d, "DELETE FROM tool_grants_deleted WHERE principal_id = ? AND tool_name = ?"), principal, tool)
	return err
}

// SPEC GRANT-4, GRANT-6: after a change, a Store holding a principal's Snapshot reads
// only what changed since (rows written, keys left), whatever SQL made the change, and
// answers exactly what a full read answers; where the tombstones it would need may be
// missing (deleted by hand, a TRUNCATE, too many changes) it reads the rows in full.
// Each step names the path it must take.
func TestDeltaReadFollowsEveryChange(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			other := New(db, b.dialect)
			put := func(p, tool, effect string, scopes ...string) func() error {
				return func() error {
					_, err := other.Put(ctx, grants.Row{Principal: p, Tool: tool, Scopes: scopes, Effect: grants.Effect(effect)})
					return err
				}
			}
			exec := func(queries ...string) func() error {
				return func() error {
					for _, q := range queries {
						if _, err := db.Exec(q); err != nil {
							return err
						}
					}
					return nil
				}
			}
			for _, w := range []func() error{
				put("alice", "a1", "allow", "read"), put("alice", "a2", "allow"), put("alice", "a3", "deny"),
				put("alice", "s1", "deny"), put("*", "s1", "allow"), put("*", "s2", "allow", "read"),
				put("bob", "b1", "allow"), put("bob", "b2", "allow", "write"),
			} {
				if err := w(); err != nil {
					t.Fatal(err)
				}
			}
			const delta, full = true, false
			steps := []struct {
				what  string
				write func() error
				delta bool
			}{
				{"Put of a new row", put("alice", "a4", "allow"), delta},
				{"Put changing a row's scopes", put("alice", "a1", "allow", "read", "write"), delta},
				{"Put of a * row", put("*", "s3", "allow"), delta},
				{"Delete (a revocation)", func() error { return other.Delete(ctx, "alice", "a2") }, delta},
				{"re-grant of the deleted key", put("alice", "a2", "allow", "admin"), delta},
				{"plain DELETE", exec("DELETE FROM tool_grants WHERE principal_id = 'alice' AND tool_name = 'a2'"), delta},
				{"plain INSERT re-granting it", exec("INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 'a2', 'allow')"), delta},
				{"plain UPDATE of scopes", exec("UPDATE tool_grants SET scopes = 'x y' WHERE principal_id = 'alice' AND tool_name = 'a1'"), delta},
				{"plain UPDATE of the effect", exec("UPDATE tool_grants SET effect = 'deny' WHERE principal_id = 'alice' AND tool_name = 'a4'"), delta},
				{"plain UPDATE moving a row to another tool", exec("UPDATE tool_grants SET tool_name = 'a9' WHERE principal_id = 'alice' AND tool_name = 'a3'"), delta},
				{"plain UPDATE moving a row to another principal", exec("UPDATE tool_grants SET principal_id = 'bob' WHERE principal_id = 'alice' AND tool_name = 'a9'"), delta},
				{"plain UPDATE moving another principal's row in", exec("UPDATE tool_grants SET principal_id = 'alice' WHERE principal_id = 'bob' AND tool_name = 'b1'"), delta},
				{"plain UPDATE moving a * row to the principal", exec("UPDATE tool_grants SET principal_id = 'alice' WHERE principal_id = '*' AND tool_name = 's3'"), delta},
				{"deleting the deny row that overrode a * row", func() error { return other.Delete(ctx, "alice", "s1") }, delta},
				{"another principal's change", put("bob", "b3", "allow"), delta},
				{"delete and re-insert in one transaction", func() error {
					tx, err := db.Begin()
					if err != nil {
						return err
					}
					defer tx.Rollback()
					for _, q := range []string{
						"DELETE FROM tool_grants WHERE principal_id = 'alice' AND tool_name = 'a1'",
						"INSERT INTO tool_grants (principal_id, tool_name, scopes, effect) VALUES ('alice', 'a1', 'z', 'deny')",
					} {
						if _, err := tx.Exec(q); err != nil {
							return err
						}
					}
					return tx.Commit()
				}, delta},
				{"plain upsert", exec("INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 'a1', 'allow') ON CONFLICT (principal_id, tool_name) DO UPDATE SET effect = excluded.effect"), delta},
				{"DELETE of several rows", exec("DELETE FROM tool_grants WHERE principal_id IN ('alice', '*') AND tool_name IN ('a2', 'a4', 's2')"), delta},
				// More than 8 keys changed at once: applyDelta looks them up in a set.
				{"INSERT of ten rows", exec("INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 'm0', 'allow'), ('alice', 'm1', 'allow'), ('alice', 'm2', 'allow'), ('alice', 'm3', 'allow'), ('alice', 'm4', 'allow'), ('alice', 'm5', 'allow'), ('alice', 'm6', 'allow'), ('alice', 'm7', 'allow'), ('alice', 'm8', 'allow'), ('alice', 'm9', 'allow')"), delta},
				{"UPDATE of the ten rows", exec("UPDATE tool_grants SET scopes = 'read' WHERE tool_name LIKE 'm%'"), delta},
				{"DELETE of nine of them", exec("DELETE FROM tool_grants WHERE tool_name LIKE 'm%' AND tool_name <> 'm0'"), delta},
				{"a stray tombstone written by hand for a row that exists", exec(
					"INSERT INTO tool_grants_deleted (principal_id, tool_name, revision) VALUES ('alice', 'a1', 1000000)",
					"DELETE FROM tool_grants WHERE principal_id = 'bob' AND tool_name = 'b2'"), delta},
				{"a tombstone deleted by hand (the floor rises)", func() error {
					if err := other.Delete(ctx, "alice", "b1"); err != nil {
						return err
					}
					return dropTombstone(db, b.dialect, "alice", "b1")
				}, full},
				{"more changes than one delta read applies", func() error {
					gen := fmt.Sprintf("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < %d) SELECT 'alice', 'bulk' || x, 'allow' FROM n", maxDelta+1)
					if b.dialect == Postgres {
						gen = fmt.Sprintf("SELECT 'alice', 'bulk' || x, 'allow' FROM generate_series(1, %d) x", maxDelta+1)
					}
					_, err := db.Exec("INSERT INTO tool_grants (principal_id, tool_name, effect) " + gen)
					return err
				}, full},
				{"as many deletions", exec("DELETE FROM tool_grants WHERE tool_name LIKE 'bulk%'"), full},
			}
			if b.dialect == SQLite {
				steps = append(steps, struct {
					what  string
					write func() error
					delta bool
				}{"INSERT OR REPLACE", exec("INSERT OR REPLACE INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 'a1', 'deny')"), delta},
					// REPLACE on a rowid conflict deletes another key's row without firing the
					// delete trigger (recursive_triggers is off): no tombstone is written.
					struct {
						what  string
						write func() error
						delta bool
					}{"plain INSERT of a row", exec("INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 'r1', 'allow')"), delta},
					struct {
						what  string
						write func() error
						delta bool
					}{"INSERT OR REPLACE taking another key's rowid", exec(
						"INSERT OR REPLACE INTO tool_grants (rowid, principal_id, tool_name, effect) SELECT rowid, 'alice', 'r2', 'allow' FROM tool_grants WHERE principal_id = 'alice' AND tool_name = 'r1'"), delta},
					struct {
						what  string
						write func() error
						delta bool
					}{"UPDATE OR REPLACE taking another key's rowid", exec(
						"UPDATE OR REPLACE tool_grants SET rowid = (SELECT rowid FROM tool_grants WHERE principal_id = 'alice' AND tool_name = 'r2') WHERE principal_id = 'alice' AND tool_name = 'a1'"), delta})
			} else {
				steps = append(steps, struct {
					what  string
					write func() error
					delta bool
				}{"TRUNCATE (no tombstones: the floor rises)", exec("TRUNCATE tool_grants"), full},
					struct {
						what  string
						write func() error
						delta bool
					}{"TRUNCATE of the tombstones (the floor rises)", exec("INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 'a1', 'allow')", "TRUNCATE tool_grants_deleted"), full})
			}
			for _, st := range steps {
				before := sameAsFull(t, "the step before "+st.what, s, db, b.dialect, "alice")
				f0, d0 := readCounts(s)
				if err := st.write(); err != nil {
					t.Fatalf("%s: %v", st.what, err)
				}
				after := sameAsFull(t, st.what, s, db, b.dialect, "alice")
				f1, d1 := readCounts(s)
				switch {
				case after == before:
					t.Errorf("%s: the read answered the Snapshot from before", st.what)
				case st.delta && (d1 != d0+1 || f1 != f0):
					t.Errorf("%s: %d full and %d delta reads, want one delta read", st.what, f1-f0, d1-d0)
				case !st.delta && (f1 != f0+1 || d1 != d0):
					t.Errorf("%s: %d full and %d delta reads, want one full read", st.what, f1-f0, d1-d0)
				}
			}
		})
	}
}

// SPEC GRANT-4, GRANT-6: random writes of every kind (through a Store, plain SQL
// inserts, updates of every column, key moves, deletes), by principal alice, bob and
// "*": after each, the caching Store's reads of alice and bob equal full reads, and
// most came from the changes alone.
func TestDeltaReadRandomWrites(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			other := New(db, b.dialect)
			r := rand.New(rand.NewPCG(21, uint64(b.dialect)))
			principals := []string{"alice", "bob", "*"}
			pick := func() (string, string) {
				return principals[r.IntN(3)], fmt.Sprintf("t%d", r.IntN(8))
			}
			steps := 300
			if b.dialect == Postgres {
				steps = 150
			}
			for i := range steps {
				p, tool := pick()
				var err error
				switch r.IntN(7) {
				case 0, 1:
					scopes := []string{"read", "write", "admin"}[:r.IntN(3)]
					_, err = other.Put(ctx, grants.Row{Principal: p, Tool: tool, Scopes: scopes, Effect: []grants.Effect{grants.Allow, grants.Deny}[r.IntN(2)]})
				case 2:
					err = other.Delete(ctx, p, tool)
				case 3:
					_, err = db.Exec(ph(b.dialect, "DELETE FROM tool_grants WHERE principal_id = ? AND tool_name = ?"), p, tool)
				case 4:
					_, err = db.Exec(ph(b.dialect, "UPDATE tool_grants SET scopes = ?, effect = ? WHERE principal_id = ?"),
						[]string{"", "read", "read write"}[r.IntN(3)], []string{"allow", "deny"}[r.IntN(2)], p)
				case 5: // a key move; one onto a key that holds a row fails, changing nothing
					p2, tool2 := pick()
					_, _ = db.Exec(ph(b.dialect, "UPDATE tool_grants SET principal_id = ?, tool_name = ? WHERE principal_id = ? AND tool_name = ?"), p2, tool2, p, tool)
				case 6:
					_, err = db.Exec(ph(b.dialect, "INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES (?, ?, 'allow') ON CONFLICT DO NOTHING"), p, tool)
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				for _, who := range []string{"alice", "bob"} {
					sameAsFull(t, fmt.Sprintf("step %d", i), s, db, b.dialect, who)
				}
			}
			full, delta := readCounts(s)
			if delta < full*4 {
				t.Errorf("%d delta reads and %d full reads: the changes were seldom read alone", delta, full)
			}
			t.Logf("%d full reads, %d delta reads", full, delta)
		})
	}
}

// SPEC GRANT-5, GRANT-6: a change that takes a principal over grants.MaxRows fails its
// reads closed with no Snapshot, although the change alone is small; the Snapshot kept
// from before is brought up to date again once the rows are back within the bound.
func TestDeltaReadTooManyRows(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			gen := fmt.Sprintf("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < %d) SELECT 'alice', 'bulk' || x, 'allow' FROM n", grants.MaxRows)
			if b.dialect == Postgres {
				gen = fmt.Sprintf("SELECT 'alice', 'bulk' || x, 'allow' FROM generate_series(1, %d) x", grants.MaxRows)
			}
			if _, err := db.Exec("INSERT INTO tool_grants (principal_id, tool_name, effect) " + gen); err != nil {
				t.Fatal(err)
			}
			sameAsFull(t, "4,096 rows", s, db, b.dialect, "alice")
			if _, err := s.Put(ctx, grants.Row{Principal: "*", Tool: "one-more", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				snap, err := s.ReadGrants(ctx, "alice")
				checkClosed(t, fmt.Sprintf("GRANT-5: read %d over 4,097 rows", i+1), err, grants.ErrTooManyRows)
				if snap != nil {
					t.Errorf("GRANT-6: read %d over 4,097 rows answered a Snapshot of %d rows", i+1, len(snap.Rows))
				}
			}
			if err := s.Delete(ctx, "alice", "bulk7"); err != nil {
				t.Fatal(err)
			}
			_, d0 := readCounts(s)
			if snap := sameAsFull(t, "a row deleted", s, db, b.dialect, "alice"); len(snap.Rows) != grants.MaxRows {
				t.Errorf("read = %d rows, want %d", len(snap.Rows), grants.MaxRows)
			}
			if _, d1 := readCounts(s); d1 != d0+1 {
				t.Errorf("%d delta reads, want the Snapshot of 4,096 rows brought up to date", d1-d0)
			}
		})
	}
}

// tombstones answers the tombstone revisions, in order, and the floor.
func tombstones(t *testing.T, db *sql.DB) (revs []int64, floor int64) {
	t.Helper()
	rows, err := db.Query("SELECT revision FROM tool_grants_deleted ORDER BY revision")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		revs = append(revs, r)
	}
	if err := db.QueryRow("SELECT revision FROM tool_grants_deleted_floor").Scan(&floor); err != nil {
		t.Fatal(err)
	}
	return revs, floor
}

// Tombstones are pruned as they age: a deletion removes those 65,536 revisions or more
// older than its own, so each change taking a revision of its own, the table never holds
// more than 65,536; the floor rises to the newest pruned, and a Snapshot read below it
// is brought up to date by a full read, exactly.
func TestTombstonesPruned(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			for _, tool := range []string{"a", "b", "c", "d"} {
				if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: tool, Effect: grants.Allow}); err != nil {
					t.Fatal(err)
				}
			}
			sameAsFull(t, "four rows", s, db, b.dialect, "alice")
			for _, tool := range []string{"a", "b"} {
				if err := s.Delete(ctx, "alice", tool); err != nil {
					t.Fatal(err)
				}
			}
			old, floor0 := tombstones(t, db)
			if len(old) != 2 || old[0] == old[1] {
				t.Fatalf("tombstones at %v, want two deletions at revisions of their own", old)
			}
			// 65,536 changes, counted by hand, then one more deletion.
			if _, err := db.Exec("UPDATE control_revisions SET revision = revision + 65536 WHERE name = 'model_grants'"); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, "alice", "c"); err != nil {
				t.Fatal(err)
			}
			revs, floor := tombstones(t, db)
			c := control(t, db)
			if len(revs) != 1 || revs[0] != c {
				t.Errorf("tombstones at %v after the deletion at %d, want only its own", revs, c)
			}
			if floor != old[1] || floor <= floor0 {
				t.Errorf("floor %d (was %d), want the newest pruned tombstone's revision %d", floor, floor0, old[1])
			}
			f0, _ := readCounts(s)
			if snap := sameAsFull(t, "the pruning", s, db, b.dialect, "alice"); len(snap.Rows) != 1 {
				t.Errorf("read = %v, want the one row left", snap)
			}
			if f1, _ := readCounts(s); f1 != f0+1 {
				t.Errorf("a Snapshot read below the floor was not read again in full")
			}
		})
	}
}

// The floor never moves down (a trigger refuses it), since a lower one would vouch for
// tombstones that may be gone; without a floor row every read is a full one, and Migrate
// restores the row at the control revision.
func TestTombstoneFloorGuarded(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("UPDATE tool_grants_deleted_floor SET revision = 0"); err == nil {
				t.Error("the floor moved down")
			}
			if _, err := db.Exec("UPDATE tool_grants_deleted_floor SET revision = revision + 1"); err != nil {
				t.Errorf("the floor could not move up: %v", err)
			}
			if _, err := db.Exec("DELETE FROM tool_grants_deleted_floor"); err != nil {
				t.Fatal(err)
			}
			sameAsFull(t, "the floor row deleted", s, db, b.dialect, "alice")
			if err := s.Delete(ctx, "alice", "a"); err != nil {
				t.Fatal(err)
			}
			f0, d0 := readCounts(s)
			sameAsFull(t, "a deletion without a floor row", s, db, b.dialect, "alice")
			if f1, d1 := readCounts(s); f1 != f0+1 || d1 != d0 {
				t.Errorf("without a floor row: %d full and %d delta reads, want one full read", f1-f0, d1-d0)
			}
			if err := Migrate(ctx, db, b.dialect, nil); err != nil {
				t.Fatal(err)
			}
			if _, floor := tombstones(t, db); floor != control(t, db) {
				t.Errorf("Migrate restored the floor at %d, want the control revision %d", floor, control(t, db))
			}
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "b", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			_, d0 = readCounts(s)
			sameAsFull(t, "a Put once the floor is back", s, db, b.dialect, "alice")
			if _, d1 := readCounts(s); d1 != d0+1 {
				t.Error("with the floor back, a change was not read alone")
			}
		})
	}
}

// A Store over a database that does not record 0021 (no tombstones), or 0021 without
// 0022 (no tombstones of rows an OR REPLACE removes by rowid), reads every changed
// principal in full.
func TestNoDeltaWithout0021(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		for _, schema := range []int{versionCounted, versionDeleted} {
			t.Run(fmt.Sprintf("%s/%04d", b.dialect, schema), func(t *testing.T) {
				db := b.open(t)
				if err := migrate(ctx, db, b.dialect, nil, schema); err != nil {
					t.Fatal(err)
				}
				s := New(db, b.dialect)
				for _, tool := range []string{"a", "b"} {
					if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: tool, Effect: grants.Allow}); err != nil {
						t.Fatal(err)
					}
					sameAsFull(t, "a Put", s, db, b.dialect, "alice")
				}
				if err := s.Delete(ctx, "alice", "a"); err != nil {
					t.Fatal(err)
				}
				sameAsFull(t, "a Delete", s, db, b.dialect, "alice")
				if full, delta := readCounts(s); full != 3 || delta != 0 {
					t.Errorf("over %04d: %d full and %d delta reads, want 3 full reads", schema, full, delta)
				}
			})
		}
	}
}

// SPEC GRANT-6, ERR-5: a delta read that fails (a column it reads renamed, the
// triggers left in place) is never answered by the cached Snapshot: the rows are read
// in full, and when that fails too the read fails closed with no Snapshot. (Dropping
// the floor table would drop a trigger the Store relies on: TestMissingTriggersFailClosed.)
func TestDeltaReadFailureReadsInFull(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("ALTER TABLE tool_grants_deleted_floor RENAME COLUMN revision TO moved"); err != nil {
				t.Fatal(err)
			}
			// Read after the schema change, which a SQLite Store reads in full.
			sameAsFull(t, "a Put", s, db, b.dialect, "alice")
			if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "b", Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
			f0, d0 := readCounts(s)
			sameAsFull(t, "a Put with the floor's column renamed", s, db, b.dialect, "alice")
			if f1, d1 := readCounts(s); f1 != f0+1 || d1 != d0 {
				t.Errorf("after a failed delta read: %d full and %d delta reads, want one full read", f1-f0, d1-d0)
			}
			// A change counted by hand, then the rows' table gone.
			for _, q := range []string{
				"UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants'",
				"DROP TABLE tool_grants",
			} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			snap, err := s.ReadGrants(ctx, "alice")
			checkClosed(t, "ERR-5: read with the delta and the full read failing", err, grants.ErrUnavailable)
			if snap != nil {
				t.Errorf("GRANT-6: a failed read answered a Snapshot of %d rows", len(snap.Rows))
			}
		})
	}
}

// SPEC GRANT-6: on SQLite an OR REPLACE taking another key's rowid leaves a tombstone at
// its change's revision (0022) and prunes like a deletion: the tombstones 65,536
// revisions or more older are gone and the floor rises to the newest pruned.
func TestReplacedRowTombstonePrunes(t *testing.T) {
	ctx := context.Background()
	b := backends()[0]
	if b.dialect != SQLite {
		t.Fatal("backends()[0] is not SQLite")
	}
	s, db := newStore(t, b)
	for _, tool := range []string{"a", "b", "c"} {
		if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: tool, Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	sameAsFull(t, "three rows", s, db, b.dialect, "alice")
	if err := s.Delete(ctx, "alice", "a"); err != nil {
		t.Fatal(err)
	}
	old, _ := tombstones(t, db)
	if _, err := db.Exec("UPDATE control_revisions SET revision = revision + 65536 WHERE name = 'model_grants'"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE OR REPLACE tool_grants SET rowid = (SELECT rowid FROM tool_grants WHERE principal_id = 'alice' AND tool_name = 'b') WHERE principal_id = 'alice' AND tool_name = 'c'"); err != nil {
		t.Fatal(err)
	}
	revs, floor := tombstones(t, db)
	if c := control(t, db); len(revs) != 1 || revs[0] != c {
		t.Errorf("tombstones at %v after the replace at %d, want only its own", revs, c)
	}
	if len(old) != 1 || floor != old[0] {
		t.Errorf("floor %d, want the pruned tombstone's revision %v", floor, old)
	}
	if snap := sameAsFull(t, "the replace", s, db, b.dialect, "alice"); len(snap.Rows) != 1 {
		t.Errorf("read = %v, want the one row left", snap)
	}
}
