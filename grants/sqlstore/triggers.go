package sqlstore

import (
	"fmt"
	"slices"
	"strings"
)

// A reliedTrigger is a trigger a Store's reads rely on, and the table it is on.
type reliedTrigger struct{ table, name string }

// reliedTriggers are a dialect's triggers that reads rely on: counting, those that count
// every write to tool_grants exactly once (0020), on which a cached Snapshot's answer
// rests; tombstones, those that keep the tombstones and their floor exact (0021, 0022),
// on which a delta read rests.
type reliedTriggers struct {
	counting, tombstones []reliedTrigger
}

var (
	sqliteTriggers = reliedTriggers{
		counting: []reliedTrigger{
			{"tool_grants", "tool_grants_insert"}, {"tool_grants", "tool_grants_update"}, {"tool_grants", "tool_grants_delete"},
		},
		tombstones: []reliedTrigger{
			{"tool_grants", "tool_grants_insert_replaced"}, {"tool_grants", "tool_grants_update_replaced"},
			{"tool_grants_deleted", "tool_grants_deleted_forget"}, {"tool_grants_deleted", "tool_grants_deleted_rewrite"},
			{"tool_grants_deleted_floor", "tool_grants_deleted_floor_keep"},
		},
	}
	postgresTriggers = reliedTriggers{
		counting: []reliedTrigger{{"tool_grants", "tool_grants_revise"}, {"tool_grants", "tool_grants_truncate"}},
		tombstones: []reliedTrigger{
			{"tool_grants_deleted", "tool_grants_deleted_forget"}, {"tool_grants_deleted", "tool_grants_deleted_truncate"},
			{"tool_grants_deleted_floor", "tool_grants_deleted_floor_keep"},
		},
	}
)

// triggersFor answers d's relied-upon triggers.
func triggersFor(d Dialect) *reliedTriggers {
	if d == Postgres {
		return &postgresTriggers
	}
	return &sqliteTriggers
}

// triggerCheck is a subquery answering one row (counting, tombstones, schema): how many
// of d's relied-upon triggers of each kind are present (and, on PostgreSQL, enabled:
// tgenabled 'O' or 'A', those an ordinary session fires), and their mark (see
// markQuery). It reads the catalog only (sqlite_master; pg_trigger by table and name,
// the tables found with to_regclass, NULL for one missing, so that it serves at every
// migration level), in the statement that reads the control revision: no round trip
// of its own.
func triggerCheck(d Dialect) string {
	rel := triggersFor(d)
	if d == Postgres {
		return pgTriggerCheck(func(table string) string { return fmt.Sprintf("to_regclass('%s')::oid", table) })
	}
	count := func(ts []reliedTrigger) string {
		var or []string
		for _, t := range ts {
			or = append(or, fmt.Sprintf("(tbl_name = '%s' AND name = '%s')", t.table, t.name))
		}
		return fmt.Sprintf("(SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND (%s))", strings.Join(or, " OR "))
	}
	return fmt.Sprintf(`SELECT %s AS counting, %s AS tombstones, schema_version AS schema FROM pragma_schema_version`,
		count(rel.counting), count(rel.tombstones))
}

// pgMark is the PostgreSQL triggers' mark over the rows t (pg_trigger) and p (pg_proc,
// t's function) of the relied-upon triggers present and enabled: one expression, so
// that triggerCheck and knownTriggerCheck answer the same mark for the same triggers.
const pgMark = `hashtextextended(coalesce(string_agg(t.oid::text || '.' || t.xmin::text || '.' || p.xmin::text, ' ' ORDER BY t.oid), ''), 0)`

// knownTriggerCheck is triggerCheck for a Store that knows the database records
// migrations 0021 and 0022 (countedDelta), so that every table holding a relied-upon
// trigger exists. On PostgreSQL it names those tables as regclass constants, resolved
// when the statement is planned (again after a table is replaced) instead of by a
// to_regclass call at each execution. The form fails when one of those tables is
// missing (at 0020 they do not exist yet, so triggerCheck serves until the level is
// known), and the read then fails closed. On SQLite it is triggerCheck.
func knownTriggerCheck(d Dialect) string {
	if d != Postgres {
		return triggerCheck(d)
	}
	return pgTriggerCheck(func(table string) string { return fmt.Sprintf("'%s'::regclass", table) })
}

// pgTriggerCheck is PostgreSQL's trigger check, each table's OID written by oid. The
// lists of tables and names let pg_trigger be searched by its index on (tgrelid,
// tgname), and pg_proc probed for the triggers found only, whatever else the database
// holds (a join with a VALUES list of names scanned every trigger of every schema);
// the pairs then keep exactly the relied-upon triggers.
func pgTriggerCheck(oid func(table string) string) string {
	rel := triggersFor(Postgres)
	var tables, names []string
	match := func(ts []reliedTrigger) string {
		var or []string
		for _, t := range ts {
			or = append(or, fmt.Sprintf("(t.tgrelid = %s AND t.tgname = '%s')", oid(t.table), t.name))
			if !slices.Contains(tables, oid(t.table)) {
				tables = append(tables, oid(t.table))
			}
			names = append(names, "'"+t.name+"'")
		}
		return "(" + strings.Join(or, " OR ") + ")"
	}
	counting, tombstones := match(rel.counting), match(rel.tombstones)
	return fmt.Sprintf(`SELECT count(*) FILTER (WHERE %[1]s) AS counting, count(*) FILTER (WHERE %[2]s) AS tombstones,
    %[3]s AS schema
FROM pg_trigger t
JOIN pg_proc p ON p.oid = t.tgfoid
WHERE t.tgrelid IN (%[4]s) AND t.tgname IN (%[5]s) AND t.tgenabled IN ('O', 'A') AND (%[1]s OR %[2]s)`,
		counting, tombstones, pgMark, strings.Join(tables, ", "), strings.Join(names, ", "))
}

// markQuery is a subquery answering one row (schema): a mark that changes whenever any
// of d's relied-upon triggers is created, dropped, enabled or disabled. On SQLite it
// is the schema version, which every schema change moves, and which pins the whole
// schema; on PostgreSQL a 64-bit hash of the OIDs and row versions (xmin) of those
// triggers that are present and enabled (triggerCheck's) and of their functions' row
// versions, which CREATE OR REPLACE FUNCTION moves. A Snapshot is cached only
// from a read whose check found every trigger the Store relies on, with the mark of
// that read: the same mark later means the same triggers, still there and enabled,
// and so lets a cached read skip counting them (on SQLite, scanning sqlite_master
// would double the cost of a cached read).
func markQuery(d Dialect) string {
	if d == Postgres {
		return triggerCheck(d)
	}
	return `SELECT schema_version AS schema FROM pragma_schema_version`
}

// knownMarkQuery is markQuery for a Store that knows the database records 0021 and
// 0022 (see knownTriggerCheck): the same mark, found by the cheaper form.
func knownMarkQuery(d Dialect) string {
	if d == Postgres {
		return knownTriggerCheck(d)
	}
	return markQuery(d)
}

// A triggerState is what a trigger check found: how many relied-upon triggers of each
// kind were present and enabled, and their mark.
type triggerState struct {
	counting, tombstones, schema int64
}

// trusts reports whether a Store at level counted (see Store.counted) may rely on a
// database whose check found trig: over 0020 all the counting triggers present and
// enabled, over 0021 and 0022 the tombstone ones too.
// A Store that does not cache relies on none.
func (s *Store) trusts(counted int32, trig triggerState) bool {
	rel := triggersFor(s.dialect)
	switch counted {
	case countedYes:
		return trig.counting == int64(len(rel.counting))
	case countedDelta:
		return trig.counting == int64(len(rel.counting)) && trig.tombstones == int64(len(rel.tombstones))
	}
	return true
}
