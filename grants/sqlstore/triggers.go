package sqlstore

import (
	"fmt"
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
// markQuery). It reads the catalog only (sqlite_master; pg_trigger by table and name),
// in the statement that reads the control revision: no round trip of its own.
func triggerCheck(d Dialect) string {
	rel := triggersFor(d)
	if d == Postgres {
		var want []string
		for kind, ts := range [][]reliedTrigger{rel.counting, rel.tombstones} {
			for _, t := range ts {
				want = append(want, fmt.Sprintf("('%s', '%s'::name, %d)", t.table, t.name, kind))
			}
		}
		return fmt.Sprintf(`SELECT count(*) FILTER (WHERE w.kind = 0) AS counting, count(*) FILTER (WHERE w.kind = 1) AS tombstones,
    hashtextextended(coalesce(string_agg(t.oid::text || '.' || t.xmin::text || '.' || p.xmin::text, ' ' ORDER BY t.oid), ''), 0) AS schema
FROM (VALUES %s) w (tbl, name, kind)
JOIN pg_trigger t ON t.tgrelid = to_regclass(w.tbl)::oid AND t.tgname = w.name
JOIN pg_proc p ON p.oid = t.tgfoid
WHERE t.tgenabled IN ('O', 'A')`, strings.Join(want, ", "))
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
