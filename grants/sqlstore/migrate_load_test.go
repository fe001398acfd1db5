package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// freshDSN returns the driver and DSN of a fresh, empty database of b's dialect, for a
// test that opens it several times, as several processes would.
func freshDSN(t *testing.T, b backend) (driver, dsn string) {
	t.Helper()
	if b.dialect == Postgres {
		return "pgx", dbtest.PostgresDSN(t)
	}
	return "sqlite", dbtest.SQLiteDSN(t, dbtest.SQLitePragmas)
}

// loadWriters, loadReaders and loadOps shape the load under which Migrate runs: each
// writer, a Store of its own over a *sql.DB of its own, owns one principal's keys and
// makes loadOps writes before Migrate starts and loadOps more after it returns.
const (
	loadWriters = 3
	loadReaders = 2
	loadOps     = 6
	loadTools   = 4
)

// A loadWriter keeps what its acknowledged writes left: tool → scopes|effect.
type loadWriter struct {
	principal string
	model     map[string]string
	changes   int // acknowledged writes that changed a row
	during    int // writes started while Migrate ran
	err       error
}

// run writes until it has written loadOps times after migrated is set. Over a database
// at 0018 (no triggers) a write started before that may fail with errSchema, changing
// nothing (the Store rolls it back); any other failure is the writer's error.
func (w *loadWriter) run(ctx context.Context, s *Store, seed uint64, warm chan<- struct{}, migrating, migrated *atomic.Bool) {
	rng := rand.New(rand.NewPCG(seed, 1))
	warmed := false
	defer func() {
		if !warmed {
			close(warm) // failed before warming up: let Migrate run anyway
		}
	}()
	after := 0
	for n := 0; after < loadOps; n++ {
		if n == loadOps {
			close(warm)
			warmed = true
		}
		early := !migrated.Load()
		if !early {
			after++
		} else if migrating.Load() {
			w.during++
		}
		uncounted := func(err error) bool { return early && errors.Is(err, errSchema) }
		tool := fmt.Sprintf("t%d", rng.IntN(loadTools))
		if rng.IntN(3) == 0 {
			rev, err := s.delete(ctx, w.principal, tool)
			if uncounted(err) {
				continue
			}
			if err != nil {
				w.err = fmt.Errorf("Delete %s/%s: %w", w.principal, tool, err)
				break
			}
			if _, ok := w.model[tool]; ok != (rev > 0) {
				w.err = fmt.Errorf("Delete %s/%s answered revision %d with the row present=%v", w.principal, tool, rev, ok)
				break
			}
			if rev > 0 {
				w.changes++
			}
			delete(w.model, tool)
			continue
		}
		scopes := []string{"read", "write"}[:rng.IntN(3)]
		effect := []grants.Effect{grants.Allow, grants.Deny}[rng.IntN(2)]
		_, err := s.Put(ctx, grants.Row{Principal: w.principal, Tool: tool, Scopes: scopes, Effect: effect})
		if uncounted(err) {
			continue
		}
		if err != nil {
			w.err = fmt.Errorf("Put %s/%s: %w", w.principal, tool, err)
			break
		}
		w.changes++
		w.model[tool] = strings.Join(scopes, " ") + "|" + string(effect)
	}
}

// roundsEnv names the variable setting how many rounds TestMigrateUnderLoad runs per
// level and dialect (1 without it; the commit adding it quotes a run of 10 with -race).
const roundsEnv = "DEFERRED_TOOLS_MIGRATE_ROUNDS"

// SPEC GRANT-4, GRANT-6: Migrate applying the migrations a database does not record yet
// (a host upgrading from a database at 0018, 0019, 0020, 0021 or 0022) while other processes
// write grants through Store.Put and Delete and read them through cached Stores, with
// two hosts migrating at once: no writer or reader fails (no deadlock, no lock or
// serialisation failure), no write is lost or counted twice (the control revision is
// the count of changes, each principal's rows are what its writer's acknowledged writes
// left), the schema is whole (Migrate again finds the triggers intact, and the triggers
// and indexes are those of a database migrated directly), and every Store that cached
// Snapshots during the upgrade answers what a Store reading in full answers.
func TestMigrateUnderLoad(t *testing.T) {
	rounds := 1 // the package's other tests fill most of go test's 10 minutes under -race
	if n, err := strconv.Atoi(os.Getenv(roundsEnv)); err == nil && n > 0 {
		rounds = n
	}
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			want := migratedSchema(t, b)
			during := 0
			defer func() {
				if !t.Failed() && during == 0 {
					t.Error("no write started while Migrate ran: the test exercised nothing")
				}
				t.Logf("%d writes started while Migrate ran", during)
			}()
			for _, from := range []int{versionTables, versionRules, versionCounted, versionDeleted, versionReplaced} {
				for round := range rounds {
					t.Run(fmt.Sprintf("from%04d/%d", from, round), func(t *testing.T) {
						during += migrateUnderLoad(t, b, from, uint64(from*100+round), want)
					})
				}
			}
		})
	}
}

// migratedSchema is schemaDefs of a database migrated directly, its schema's name
// replaced (see schemaOf).
func migratedSchema(t *testing.T, b backend) []string {
	t.Helper()
	_, db := newStore(t, b)
	return schemaOf(t, db, b.dialect)
}

// schemaOf is schemaDefs with the PostgreSQL schema's name (in the functions'
// search_path) replaced by "S", so that two test schemas compare.
func schemaOf(t *testing.T, db *sql.DB, d Dialect) []string {
	t.Helper()
	defs := schemaDefs(t, db, d)
	if d != Postgres {
		return defs
	}
	var schema string
	if err := db.QueryRow("SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	for i := range defs {
		defs[i] = strings.ReplaceAll(defs[i], schema, "S")
	}
	return defs
}

// migrateUnderLoad runs one round and answers the number of writes started while
// Migrate ran.
func migrateUnderLoad(t *testing.T, b backend, from int, seed uint64, want []string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // liveness only
	defer cancel()
	driver, dsn := freshDSN(t, b)
	compat := []grants.Row{{Principal: "*", Tool: "status", Effect: grants.Allow}}
	admin := dbtest.Open(t, driver, dsn)
	if err := migrate(ctx, admin, b.dialect, compat, from); err != nil {
		t.Fatalf("migrating to %04d: %v", from, err)
	}

	var (
		wg        sync.WaitGroup
		migrating atomic.Bool
		migrated  atomic.Bool
		stop      = make(chan struct{})
		writers   = make([]*loadWriter, loadWriters)
		warm      = make([]chan struct{}, loadWriters)
		readers   = make([]*Store, loadReaders)
		readErrs  = make(chan error, loadReaders)
	)
	for i := range writers {
		writers[i] = &loadWriter{principal: fmt.Sprintf("p%d", i), model: map[string]string{}}
		warm[i] = make(chan struct{})
		s := New(dbtest.Open(t, driver, dsn), b.dialect)
		defer s.Close()
		wg.Go(func() { writers[i].run(ctx, s, seed+uint64(i), warm[i], &migrating, &migrated) })
	}
	var rg sync.WaitGroup
	for i := range readers {
		readers[i] = New(dbtest.Open(t, driver, dsn), b.dialect)
		defer readers[i].Close()
		rg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					readErrs <- nil
					return
				default:
				}
				p := fmt.Sprintf("p%d", n%loadWriters)
				if _, err := readers[i].ReadGrants(ctx, p); err != nil {
					readErrs <- fmt.Errorf("ReadGrants(%s): %w", p, err)
					return
				}
			}
		})
	}
	for _, c := range warm {
		<-c
	}
	migrating.Store(true)
	migErrs := make(chan error, 2)
	var mg sync.WaitGroup
	for range 2 {
		db := dbtest.Open(t, driver, dsn)
		mg.Go(func() { migErrs <- Migrate(ctx, db, b.dialect, compat) })
	}
	mg.Wait()
	migrated.Store(true)
	wg.Wait()
	close(stop)
	rg.Wait()
	close(migErrs)
	close(readErrs)

	for err := range migErrs {
		if err != nil {
			t.Errorf("Migrate from %04d under load: %v", from, err)
		}
	}
	changes, during := 0, 0
	for _, w := range writers {
		if w.err != nil {
			t.Errorf("writer during Migrate from %04d: %v", from, w.err)
		}
		changes += w.changes
		during += w.during
	}
	for err := range readErrs {
		if err != nil {
			t.Errorf("reader during Migrate from %04d: %v", from, err)
		}
	}
	if t.Failed() {
		return during
	}

	if err := Migrate(ctx, admin, b.dialect, compat); err != nil {
		t.Errorf("Migrate after the upgrade: %v (the schema is not whole)", err)
	}
	if got := schemaOf(t, admin, b.dialect); !slices.Equal(got, want) {
		t.Errorf("schema after Migrate from %04d under load:\n%q\nwant, as migrated directly:\n%q", from, got, want)
	}
	control, rows := readAll(t, admin)
	if want := int64(2 + changes); control != want { // 0018's compat row counted once
		t.Errorf("GRANT-4: control revision %d after %d changes, want %d (a write lost or counted twice)", control, changes, want)
	}
	got := map[string]map[string]string{}
	for _, r := range rows {
		f := strings.Split(r, "|")
		if got[f[0]] == nil {
			got[f[0]] = map[string]string{}
		}
		got[f[0]][f[1]] = f[2] + "|" + f[3]
	}
	full := NewWithOptions(admin, b.dialect, &Options{CacheBytes: -1})
	defer full.Close()
	for _, w := range writers {
		if !maps.Equal(got[w.principal], w.model) {
			t.Errorf("%s's rows after the upgrade: %v; its acknowledged writes left %v", w.principal, got[w.principal], w.model)
		}
		fresh, err := full.ReadGrants(ctx, w.principal)
		if err != nil {
			t.Fatalf("full read of %s: %v", w.principal, err)
		}
		for i, r := range readers {
			snap, err := r.ReadGrants(ctx, w.principal)
			if err != nil {
				t.Errorf("reader %d, %s, after the upgrade: %v", i, w.principal, err)
				continue
			}
			if snap.Revision != fresh.Revision || !slices.Equal(rowsOf(snap), rowsOf(fresh)) {
				t.Errorf("GRANT-6: reader %d's %s after the upgrade: revision %d %q; a full read: %d %q",
					i, w.principal, snap.Revision, rowsOf(snap), fresh.Revision, rowsOf(fresh))
			}
		}
	}
	return during
}

// failingConnector opens connections of drv whose Exec of a statement fail chooses
// fails with canaryErr: a migration breaking part-way through.
type failingConnector struct {
	drv  driver.Driver
	dsn  string
	fail func(query string, args []driver.NamedValue) bool
}

func (c *failingConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &failingConn{Conn: conn, fail: c.fail}, nil
}

func (c *failingConnector) Driver() driver.Driver { return c.drv }

type failingConn struct {
	driver.Conn
	fail func(query string, args []driver.NamedValue) bool
}

func (fc *failingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if fc.fail(query, args) {
		return nil, canaryErr
	}
	return fc.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (fc *failingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return fc.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (fc *failingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return fc.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

// SPEC GRANT-3, GRANT-4: a Migrate that fails part-way (here: while recording each
// migration in turn, after its statements ran, over a new database and one at 0020)
// leaves nothing half-applied: the
// migrations recorded, the tables, triggers and indexes, the rows and the control
// revision are those before it, and a later Migrate applies them all.
func TestMigrateFailsWhole(t *testing.T) {
	ctx := context.Background()
	compat := []grants.Row{{Principal: "*", Tool: "status", Effect: grants.Allow}}
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			ms, err := Migrations(b.dialect)
			if err != nil {
				t.Fatal(err)
			}
			for _, from := range []int{0, versionCounted} {
				for _, m := range ms {
					if m.Version <= from {
						continue
					}
					t.Run(fmt.Sprintf("from%04d/failing%04d", from, m.Version), func(t *testing.T) {
						driverName, dsn := freshDSN(t, b)
						db := dbtest.Open(t, driverName, dsn)
						if from > 0 {
							if err := migrate(ctx, db, b.dialect, compat, from); err != nil {
								t.Fatal(err)
							}
							if _, err := db.ExecContext(ctx, `INSERT INTO tool_grants (principal_id, tool_name, scopes, effect, revision)
VALUES ('alice', 'a', '', 'allow', 1)`); err != nil {
								t.Fatal(err)
							}
						}
						before := dump(t, db, b.dialect)
						failing := sql.OpenDB(&failingConnector{drv: db.Driver(), dsn: dsn,
							fail: func(query string, args []driver.NamedValue) bool {
								return strings.HasPrefix(query, "INSERT INTO sqlstore_migrations") &&
									len(args) > 0 && args[0].Value == int64(m.Version)
							}})
						defer failing.Close()
						checkClosed(t, "Migrate failing part-way", Migrate(ctx, failing, b.dialect, compat), grants.ErrUnavailable)
						if after := dump(t, db, b.dialect); !slices.Equal(after, before) {
							t.Errorf("Migrate failing at %04d left a changed database:\n%q\nwant, as before:\n%q", m.Version, after, before)
						}
						if err := Migrate(ctx, db, b.dialect, compat); err != nil {
							t.Fatalf("Migrate after the failure: %v", err)
						}
						if applied, err := Applied(ctx, db, b.dialect); err != nil || len(applied) != len(ms) {
							t.Errorf("Applied after the failure and a Migrate = %d migrations, %v; want %d", len(applied), err, len(ms))
						}
					})
				}
			}
		})
	}
}

// dump lists the database as Migrate may change it: the migrations recorded, the
// tables, the triggers and indexes (schemaOf), the control revision and the rows.
func dump(t *testing.T, db *sql.DB, d Dialect) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	applied, err := Applied(ctx, db, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range applied {
		out = append(out, "migration "+m.Name)
	}
	for _, table := range []string{"sqlstore_migrations", "tool_grants", "control_revisions", "tool_grants_deleted", "tool_grants_deleted_floor"} {
		ok, err := tableExists(ctx, db, d, table)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("table %s %v", table, ok))
	}
	out = append(out, schemaOf(t, db, d)...)
	if ok, _ := tableExists(ctx, db, d, "tool_grants"); ok {
		control, rows := readAll(t, db)
		out = append(out, fmt.Sprintf("control %d", control))
		out = append(out, rows...)
	}
	return out
}
