package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrTriggersChanged reports, from Migrate, a database whose triggers on the store's
// tables are not those its recorded migrations made: one missing, disabled or renamed,
// a copy under another name, or on PostgreSQL one running a function whose body or
// search_path differs. Writes may have gone uncounted and every read of a caching Store
// fails (ErrUncounted) until RepairTriggers restores them. The migrations are applied
// and recorded all the same.
var ErrTriggersChanged = errors.New("sqlstore: revision triggers missing, disabled or changed; every read fails until RepairTriggers restores them")

// versionSearchPath is 0023_trigger_search_path, which pins the PostgreSQL trigger
// functions' search_path: RepairTriggers runs it again after replacing them.
const versionSearchPath = 23

// A triggerDef is a trigger as the last migration creating it defines it.
type triggerDef struct {
	name, table string
	function    string // PostgreSQL: the function it executes
	tgtype      int64  // PostgreSQL: its pg_trigger.tgtype (timing, events, level)
	stmt        string // the CREATE TRIGGER statement
}

// pgTriggerType answers the pg_trigger.tgtype of a CREATE TRIGGER statement's fields:
// FOR EACH ROW (1), BEFORE (2), INSTEAD OF (64), and its events INSERT (4), DELETE (8),
// UPDATE (16), TRUNCATE (32), read up to its ON.
func pgTriggerType(f []string) int64 {
	var t int64
	for i, w := range f {
		switch {
		case w == "ON":
			if slices.Contains(f[i:], "ROW") {
				t |= 1
			}
			return t
		case w == "BEFORE":
			t |= 2
		case w == "INSTEAD":
			t |= 64
		case w == "INSERT":
			t |= 4
		case w == "DELETE":
			t |= 8
		case w == "UPDATE":
			t |= 16
		case w == "TRUNCATE":
			t |= 32
		}
	}
	return t
}

// A functionDef is a PostgreSQL trigger function as the last migration creating it
// defines it: the statement, made CREATE OR REPLACE, and the body between its $$.
type functionDef struct {
	name, stmt, body string
}

// migrationObjects are the objects a list of migrations leaves on the store's tables, in
// creation order, each as the last of them defining it has it.
type migrationObjects struct {
	triggers   []triggerDef
	functions  []functionDef
	indexes    []string // CREATE INDEX IF NOT EXISTS statements
	searchPath []string // PostgreSQL: 0023's statements, when among them
}

// definitions reads the objects that ms, applied in order, leave on the store's tables,
// from their CREATE TRIGGER, DROP TRIGGER, CREATE [OR REPLACE] FUNCTION and CREATE
// INDEX statements.
func definitions(d Dialect, ms []Migration) *migrationObjects {
	defs := &migrationObjects{}
	for _, m := range ms {
		if d == Postgres && m.Version == versionSearchPath {
			defs.searchPath = splitStatements(m.src)
			continue
		}
		for _, stmt := range splitStatements(m.src) {
			f := strings.Fields(stmt)
			if len(f) < 3 {
				continue
			}
			switch {
			case f[0] == "CREATE" && f[1] == "TRIGGER":
				tr := triggerDef{name: f[2], stmt: stmt, tgtype: pgTriggerType(f[3:])}
				if i := slices.Index(f, "ON"); i > 0 && i+1 < len(f) {
					tr.table = f[i+1]
				}
				if i := slices.Index(f, "FUNCTION"); i > 0 && i+1 < len(f) {
					tr.function, _, _ = strings.Cut(f[i+1], "(")
				}
				defs.triggers = slices.DeleteFunc(defs.triggers, func(t triggerDef) bool { return t.name == tr.name })
				defs.triggers = append(defs.triggers, tr)
			case f[0] == "DROP" && f[1] == "TRIGGER":
				defs.triggers = slices.DeleteFunc(defs.triggers, func(t triggerDef) bool { return t.name == f[2] })
			case f[0] == "CREATE" && (f[1] == "FUNCTION" || len(f) > 3 && f[1] == "OR" && f[3] == "FUNCTION"):
				rest := stmt[strings.Index(stmt, "FUNCTION")+len("FUNCTION"):]
				name, _, _ := strings.Cut(strings.TrimSpace(rest), "(")
				fn := functionDef{name: name, stmt: "CREATE OR REPLACE FUNCTION" + rest}
				if i, j := strings.Index(stmt, "$$"), strings.LastIndex(stmt, "$$"); i >= 0 && j > i {
					fn.body = stmt[i+2 : j]
				}
				defs.functions = slices.DeleteFunc(defs.functions, func(g functionDef) bool { return g.name == name })
				defs.functions = append(defs.functions, fn)
			case f[0] == "CREATE" && f[1] == "INDEX":
				defs.indexes = append(defs.indexes, "CREATE INDEX IF NOT EXISTS"+strings.TrimPrefix(stmt, "CREATE INDEX"))
			}
		}
	}
	return defs
}

// recordedDefs answers the definitions of the migrations tx records: ErrMigrationChanged
// when one differs from this build's or is unknown to it (a newer build's), whose
// triggers this build does not know.
func recordedDefs(ctx context.Context, tx execer, d Dialect) (*migrationObjects, error) {
	ms, err := Migrations(d)
	if err != nil {
		return nil, err
	}
	applied, err := appliedIn(ctx, tx)
	if err != nil {
		return nil, err
	}
	var recorded []Migration
	for _, m := range ms {
		if sum, ok := applied[m.Version]; ok {
			if sum != m.Checksum {
				return nil, ErrMigrationChanged
			}
			recorded = append(recorded, m)
			delete(applied, m.Version)
		}
	}
	if len(applied) > 0 {
		return nil, ErrMigrationChanged
	}
	return definitions(d, recorded), nil
}

// triggersIntact reports whether the triggers on the store's tables are those defs
// define: each present on its table under its name and, on PostgreSQL, enabled (O or
// A), firing at the statement's timing, events and level with no WHEN or column list,
// executing its function of the table's schema with the migrations' body and
// search_path, and no other trigger there executing one of those functions. On SQLite
// each trigger's SQL must be the migration's statement.
func triggersIntact(ctx context.Context, tx execer, d Dialect, defs *migrationObjects) (bool, error) {
	found, err := triggersOn(ctx, tx, d)
	if err != nil {
		return false, err
	}
	bodies := make(map[string]string, len(defs.functions))
	for _, fn := range defs.functions {
		bodies[fn.name] = fn.body
	}
	for _, def := range defs.triggers {
		i := slices.IndexFunc(found, func(t foundTrigger) bool { return t.name == def.name && t.table == def.table })
		if i < 0 {
			return false, nil
		}
		t := found[i]
		if d == SQLite {
			if strings.TrimSuffix(strings.TrimSpace(t.sql), ";") != strings.TrimSuffix(def.stmt, ";") {
				return false, nil
			}
			continue
		}
		config := ""
		if defs.searchPath != nil {
			config = t.wantConfig
		}
		if !t.enabled || !t.plain || t.tgtype != def.tgtype || !t.home || t.function != def.function ||
			t.sql != bodies[def.function] || t.config != config {
			return false, nil
		}
	}
	// A copy of a trigger under another name (PostgreSQL's ALTER TRIGGER ... RENAME)
	// would count writes twice.
	for _, t := range found {
		if _, ours := bodies[t.function]; ours && t.home && !slices.ContainsFunc(defs.triggers, func(def triggerDef) bool {
			return def.name == t.name && def.table == t.table
		}) {
			return false, nil
		}
	}
	return true, nil
}

// A foundTrigger is a trigger on one of the store's tables as the catalog holds it.
type foundTrigger struct {
	name, table string
	sql         string // SQLite: its SQL; PostgreSQL: its function's body
	// PostgreSQL: whether it is enabled, its function's name, whether that function
	// is in the table's schema, its configuration (one setting a line) and the
	// configuration 0023 gives it; drop is the statement dropping the trigger.
	enabled, plain, home               bool // plain: no WHEN condition, no UPDATE OF columns
	tgtype                             int64
	function, config, wantConfig, drop string
}

// triggersOn reads the triggers on the store's tables.
func triggersOn(ctx context.Context, tx execer, d Dialect) ([]foundTrigger, error) {
	q := `SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'
AND tbl_name IN ('tool_grants', 'tool_grants_deleted', 'tool_grants_deleted_floor', 'control_revisions')`
	if d == Postgres {
		q = `SELECT t.tgname, c.relname, p.prosrc, t.tgenabled IN ('O', 'A'),
    t.tgqual IS NULL AND cardinality(t.tgattr::int2[]) = 0, t.tgtype, p.pronamespace = c.relnamespace, p.proname,
    coalesce(array_to_string(p.proconfig, E'\n'), ''), 'search_path=' || quote_ident(n.nspname) || ', pg_temp',
    format('DROP TRIGGER %I ON %I.%I', t.tgname, n.nspname, c.relname)
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_proc p ON p.oid = t.tgfoid
WHERE NOT t.tgisinternal AND t.tgrelid IN (to_regclass('tool_grants'), to_regclass('tool_grants_deleted'),
    to_regclass('tool_grants_deleted_floor'), to_regclass('control_revisions'))`
	}
	rows, err := tx.(interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}).QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []foundTrigger
	for rows.Next() {
		var t foundTrigger
		dest := []any{&t.name, &t.table, &t.sql}
		if d == Postgres {
			dest = append(dest, &t.enabled, &t.plain, &t.tgtype, &t.home, &t.function, &t.config, &t.wantConfig, &t.drop)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// RepairTriggers recreates, in one transaction, the triggers on the store's tables
// (and on PostgreSQL their functions and search_path) and the indexes as the migrations
// db records define them, whatever their state: each trigger is dropped if present and
// created again (so enabled), each function replaced, a copy of a trigger under another
// name dropped; other triggers are left alone. Writes made while they were missing
// went uncounted, so it then raises the control revision above its value and every
// row's revision, and the tombstone floor to it: every Store's cached Snapshot, in
// every process, is older than the floor and is read again in full.
//
// The tables must exist (a dropped tool_grants recreated by hand, rows restored, is
// repaired; CHECK constraints it lacks are not added). A database recording no
// migration is left alone; one recording a migration that differs from this build's,
// or that this build lacks, answers ErrMigrationChanged and is not changed. Storage
// failures match grants.ErrUnavailable and carry no storage text. On PostgreSQL it
// takes Migrate's advisory lock, then the control row's, where writers queue, before
// any table's; until it commits, reads of the grants wait (DROP TRIGGER locks the
// tables) and then see the repaired database. On SQLite it is one BEGIN IMMEDIATE
// transaction.
func RepairTriggers(ctx context.Context, db *sql.DB, dialect Dialect) error {
	if db == nil || queriesFor(dialect) == nil {
		return errSetup
	}
	err := inTx(ctx, db, dialect, func(tx execer) (bool, error) {
		if dialect == Postgres {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", int64(migrationLock))); err != nil {
				return false, err
			}
			// The writers' lock, before any table's: a writer holding the control row
			// commits first, and later ones queue behind the repair (no deadlock).
			if exists, err := tableExists(ctx, tx, dialect, "control_revisions"); err != nil {
				return false, err
			} else if exists {
				if _, err := tx.ExecContext(ctx, postgresQueries.lock); err != nil {
					return false, err
				}
			}
		}
		if exists, err := tableExists(ctx, tx, dialect, "sqlstore_migrations"); err != nil || !exists {
			return false, err
		}
		defs, err := recordedDefs(ctx, tx, dialect)
		if err != nil {
			return false, err
		}
		return true, repair(ctx, tx, dialect, defs)
	})
	if err == nil || errors.Is(err, ErrMigrationChanged) {
		return err
	}
	return fail(ctx, "repair", err)
}

// repair is RepairTriggers' work in its transaction.
func repair(ctx context.Context, tx execer, d Dialect, defs *migrationObjects) error {
	var stmts []string
	for _, fn := range defs.functions {
		stmts = append(stmts, fn.stmt)
	}
	if d == Postgres {
		found, err := triggersOn(ctx, tx, d)
		if err != nil {
			return err
		}
		for _, t := range found {
			if t.home && slices.ContainsFunc(defs.functions, func(fn functionDef) bool { return fn.name == t.function }) &&
				!slices.ContainsFunc(defs.triggers, func(def triggerDef) bool { return def.name == t.name && def.table == t.table }) {
				stmts = append(stmts, t.drop)
			}
		}
	}
	for _, tr := range defs.triggers {
		drop := "DROP TRIGGER IF EXISTS " + tr.name
		if d == Postgres {
			drop += " ON " + tr.table
		}
		stmts = append(stmts, drop, tr.stmt)
	}
	stmts = append(stmts, defs.indexes...)
	stmts = append(stmts, defs.searchPath...)
	stmts = append(stmts,
		"INSERT INTO control_revisions (name, revision) VALUES ('model_grants', 1) ON CONFLICT (name) DO NOTHING",
		`UPDATE control_revisions SET revision = 1 + max(revision, (SELECT coalesce(max(revision), 0) FROM tool_grants))
WHERE name = 'model_grants'`)
	if d == Postgres {
		stmts[len(stmts)-1] = strings.Replace(stmts[len(stmts)-1], "1 + max(", "1 + greatest(", 1)
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if exists, err := tableExists(ctx, tx, d, "tool_grants_deleted_floor"); err != nil || !exists {
		return err
	}
	// The tombstones of writes made without the triggers were never written: no delta
	// read may span them.
	for _, stmt := range []string{
		`UPDATE tool_grants_deleted_floor SET revision = (SELECT revision FROM control_revisions WHERE name = 'model_grants')
WHERE revision < (SELECT revision FROM control_revisions WHERE name = 'model_grants')`,
		`INSERT INTO tool_grants_deleted_floor (revision)
SELECT revision FROM control_revisions WHERE name = 'model_grants' AND NOT EXISTS (SELECT 1 FROM tool_grants_deleted_floor)`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}
