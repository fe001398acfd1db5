package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/cputime"
)

// seed inserts, in one transaction, n rows applicable to alice (half hers, half "*")
// and 2,000 rows of other principals, which the read must skip.
func seed(b *testing.B, s *Store, n int) {
	b.Helper()
	err := inTx(context.Background(), s.db, s.dialect, func(tx execer) (bool, error) {
		for i := range n + 2000 {
			p := "alice"
			switch {
			case i >= n:
				p = fmt.Sprintf("user-%04d", i)
			case i%2 == 1:
				p = grants.AnyPrincipal
			}
			_, err := tx.ExecContext(context.Background(), s.q.upsert, p, fmt.Sprintf("service%02d.operation_%04d", i%40, i), "tools:read svc:call", "allow", 1)
			if err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReadGrants reads alice's applicable rows, 50 or MaxRows of them, from a
// table that also holds 2,000 rows of other principals: after the first read, the
// cached read. Besides wall time it reports the client process's CPU (cpu-ns/op) and,
// on PostgreSQL running on this machine, the CPU of the server process serving the
// Store's one connection (srv-cpu-ns/op), which a shared machine's load does not blur
// as it blurs wall time.
func BenchmarkReadGrants(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.dialect.String(), func(b *testing.B) {
			for _, n := range []int{50, grants.MaxRows} {
				b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
					s, db := newStore(b, be)
					seed(b, s, n)
					ctx := context.Background()
					snap, err := s.ReadGrants(ctx, "alice")
					if err != nil || len(snap.Rows) != n {
						b.Fatalf("ReadGrants = (%d rows, %v), want %d", len(snap.Rows), err, n)
					}
					loopReads(b, s, db, be.dialect)
				})
			}
		})
	}
}

// BenchmarkReadGrantsCrowded is BenchmarkReadGrants' cached read of 50 rows on
// PostgreSQL in a database that also holds 40 other stores (each in its own schema, with
// its own triggers), as one database serving many tenants or test runs does: the trigger
// check must find the Store's own triggers without visiting the others'.
func BenchmarkReadGrantsCrowded(b *testing.B) {
	be := backends()[1]
	for range 40 {
		newStore(b, be)
	}
	s, db := newStore(b, be)
	seed(b, s, 50)
	if _, err := db.Exec("ANALYZE pg_catalog.pg_trigger"); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.ReadGrants(ctx, "alice"); err != nil {
		b.Fatal(err)
	}
	loopReads(b, s, db, be.dialect)
}

// loopReads times alice's read from s in b's loop, reporting allocations, the client's
// CPU (cpu-ns/op) and, on PostgreSQL, the serving backend's CPU (srv-cpu-ns/op).
func loopReads(b *testing.B, s *Store, db *sql.DB, d Dialect) {
	b.Helper()
	ctx := context.Background()
	server := func() (time.Duration, bool) { return 0, false }
	if d == Postgres {
		server = backendCPU(b, db)
	}
	b.ReportAllocs()
	srv0, ok := server()
	stop := cputime.Report(b)
	for b.Loop() {
		if _, err := s.ReadGrants(ctx, "alice"); err != nil {
			b.Fatal(err)
		}
	}
	stop()
	if srv1, _ := server(); ok {
		b.ReportMetric(float64(srv1-srv0)/float64(b.N), "srv-cpu-ns/op")
	}
}

// backendCPU limits db to one connection and answers a function reading the CPU time
// the PostgreSQL server process serving it has used (/proc/PID/schedstat), ok false
// where that cannot be read (a server on another machine).
func backendCPU(b *testing.B, db *sql.DB) func() (time.Duration, bool) {
	b.Helper()
	db.SetMaxOpenConns(1)
	var pid int
	if err := db.QueryRow("SELECT pg_backend_pid()").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	return func() (time.Duration, bool) {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
		if err != nil {
			return 0, false
		}
		f := strings.Fields(string(raw))
		if len(f) == 0 {
			return 0, false
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		return time.Duration(ns), err == nil
	}
}

// BenchmarkPut (client process CPU in cpu-ns/op: wall time on a shared machine also
// counts waiting for a core) measures one grant change: a transaction incrementing the control
// revision and upserting the row, replacing an existing row or inserting a new one,
// under the triggers of 0019, 0020, 0021 and 0022 (the current schema) side by side.
func BenchmarkPut(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.dialect.String(), func(b *testing.B) {
			for _, schema := range []int{versionRules, versionCounted, versionDeleted, versionReplaced} {
				for _, op := range []string{"replace", "insert"} {
					b.Run(fmt.Sprintf("schema=%04d/%s", schema, op), func(b *testing.B) {
						db := be.open(b)
						if err := migrate(context.Background(), db, be.dialect, nil, schema); err != nil {
							b.Fatal(err)
						}
						s := New(db, be.dialect)
						ctx := context.Background()
						r := grants.Row{Principal: "alice", Tool: "t", Scopes: []string{"a"}, Effect: grants.Allow}
						i := 0
						b.ReportAllocs()
						stop := cputime.Report(b)
						for b.Loop() {
							if op == "insert" {
								i++
								r.Tool = "t" + strconv.Itoa(i)
							}
							if _, err := s.Put(ctx, r); err != nil {
								b.Fatal(err)
							}
						}
						stop()
					})
				}
			}
		})
	}
}

// benchCatalog is 256 tools named like the first rows seed writes, so alice is granted
// them, all matching the query "stock".
func benchCatalog(b *testing.B) *discovery.Catalog {
	b.Helper()
	tools := make([]json.RawMessage, 256)
	for i := range tools {
		raw, err := json.Marshal(map[string]any{
			"name":        fmt.Sprintf("service%02d.operation_%04d", i%40, i),
			"description": fmt.Sprintf("Counts the stock of warehouse %d.", i),
			"inputSchema": map[string]any{"type": "object"},
		})
		if err != nil {
			b.Fatal(err)
		}
		tools[i] = raw
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cat
}

// BenchmarkDiscover measures a discover request end to end (discovery.Discoverer over a
// Store) with grants.MaxRows applicable rows that do not change, reading the rows every
// time (read=full: the Store as it was before the cache, answering the previous
// Snapshot's pointer when the rows read equal it) or answering them from the cache after
// reading the control revision (read=cached).
func BenchmarkDiscover(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.dialect.String(), func(b *testing.B) {
			for _, mode := range []struct {
				name    string
				counted int32
			}{{"full", countedNo}, {"cached", countedYes}} {
				b.Run("read="+mode.name, func(b *testing.B) {
					s, _ := newStore(b, be)
					seed(b, s, grants.MaxRows)
					s.counted.Store(mode.counted)
					d := discovery.New(&discovery.Options{Enabled: true, Catalog: benchCatalog(b), Grants: s})
					ctx := context.Background()
					alice := grants.Principal{ID: "alice", Scopes: []string{"tools:read", "svc:call"}}
					req := discovery.Request{Query: "stock", Limit: 10}
					res, err := d.Discover(ctx, alice, req)
					if err != nil || len(res.Tools) != 10 {
						b.Fatalf("Discover = (%v, %v), want 10 tools", res, err)
					}
					b.ReportAllocs()
					stop := cputime.Report(b)
					for b.Loop() {
						if _, err := d.Discover(ctx, alice, req); err != nil {
							b.Fatal(err)
						}
					}
					stop()
				})
			}
		})
	}
}

// BenchmarkReadAfterChange measures the first ReadGrants after a grant change: alice
// has grants.MaxRows applicable rows (and 2,000 rows of other principals are in the
// table); before each read (outside the timer) one of her rows is rewritten through
// the Store. read=full reads all her rows again (a Store over 0020, as before 0021);
// read=delta reads only what changed since its cached Snapshot. read-cpu-ns/op is this
// process's CPU time inside ReadGrants alone (the database server's, for PostgreSQL,
// is not counted).
func BenchmarkReadAfterChange(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.dialect.String(), func(b *testing.B) {
			for _, mode := range []struct {
				name    string
				counted int32
			}{{"full", countedYes}, {"delta", countedDelta}} {
				b.Run("read="+mode.name, func(b *testing.B) {
					s, _ := newStore(b, be)
					seed(b, s, grants.MaxRows)
					ctx := context.Background()
					if _, err := s.ReadGrants(ctx, "alice"); err != nil {
						b.Fatal(err)
					}
					s.counted.Store(mode.counted)
					row := grants.Row{Principal: "alice", Tool: "service00.operation_0000", Effect: grants.Allow}
					var cpu time.Duration
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						b.StopTimer()
						row.Scopes = [][]string{{"tools:read"}, nil}[i%2]
						if _, err := s.Put(ctx, row); err != nil {
							b.Fatal(err)
						}
						i++
						b.StartTimer()
						c0, _ := cputime.Process()
						snap, err := s.ReadGrants(ctx, "alice")
						c1, _ := cputime.Process()
						cpu += c1 - c0
						if err != nil || len(snap.Rows) != grants.MaxRows {
							b.Fatalf("ReadGrants = (%v, %v), want %d rows", snap, err, grants.MaxRows)
						}
					}
					b.ReportMetric(float64(cpu)/float64(b.N), "read-cpu-ns/op")
					full, delta := readCounts(s)
					if mode.counted == countedDelta && delta < int64(b.N) {
						b.Fatalf("%d delta reads and %d full for %d reads: not the path measured", delta, full, b.N)
					}
				})
			}
		})
	}
}
