// Package sqlstore keeps grant rows in a SQL database through database/sql: SQLite for
// one process, PostgreSQL for many processes sharing grants.
//
// The host opens the *sql.DB with the driver it chooses (this package imports none),
// applies the embedded migrations with Migrate (0018_tool_grants to
// 0023_trigger_search_path; each runs once and is recorded in sqlstore_migrations; it
// answers ErrTriggersChanged over a database whose triggers are not the migrations',
// which RepairTriggers restores: see "Repair" below), and hands New's Store to the
// Discoverer as its grants.Reader.
//
// Decisions where the SPEC is silent:
//
//   - Tables: tool_grants (principal_id, tool_name, scopes, effect, revision; primary
//     key principal_id + tool_name) and control_revisions (name, revision), whose row
//     "model_grants" is the control revision.
//   - Scopes are stored as their scope tokens joined by single spaces ("" for none).
//     Scope tokens hold no space, so the encoding is unambiguous; any other text (two
//     spaces, a leading space, a character outside the token grammar) is a malformed
//     row and fails the read closed.
//   - A read is one statement: the principal's rows, the "*" rows and the control
//     revision, joined, bounded by LIMIT 4097. One statement sees one snapshot on both
//     databases, so the revision is the one the rows were read at (SPEC CURSOR-5).
//   - Cached reads: a Store keeps the Snapshot of each principal's last successful
//     read, bounded by Options.CacheBytes (DefaultCacheBytes, 32 MiB; least recently
//     used out first). A read of a principal it holds first reads the control revision
//     alone (one row by primary key, in a statement that also names tool_grants, so
//     that it fails once the table is gone: DROP TABLE fires no trigger, and that reads
//     the triggers' mark, below): equal to the Snapshot's revision, it answers the
//     Snapshot; higher, it reads what changed since (below); lower but not stale, it
//     reads the rows in full; stale, missing or unreadable, it fails closed as a full
//     read would. The cache is never a fallback (SPEC GRANT-6): every read confirms the
//     revision with the database. It is used only over a database recording migration
//     0020, whose triggers bump the control revision exactly once in the transaction of
//     every write to tool_grants, plain SQL included, so an unchanged revision means
//     unchanged rows and a read that starts after a write commits sees it. Setting
//     control_revisions by hand back to a value a Store has cached defeats this:
//     restart the processes after such surgery. Dropping any table of the store fails
//     the next read closed or leaves the cache exact (TestDroppedTablesNoStaleRead).
//   - Relied-upon triggers: over 0020 a Store relies on the triggers counting writes
//     to tool_grants (SQLite's tool_grants_insert, _update and _delete; PostgreSQL's
//     tool_grants_revise and tool_grants_truncate), over 0021 and 0022 also on those
//     keeping the tombstones (SQLite's tool_grants_insert_replaced,
//     tool_grants_update_replaced, tool_grants_deleted_forget,
//     tool_grants_deleted_rewrite and tool_grants_deleted_floor_keep; PostgreSQL's
//     tool_grants_deleted_forget, tool_grants_deleted_truncate and
//     tool_grants_deleted_floor_keep). A full read checks, in its one statement
//     (sqlite_master; pg_trigger by table and name), that they are all present and, on
//     PostgreSQL, enabled (tgenabled O or A: those an ordinary session fires). With one
//     missing or disabled (tool_grants dropped and recreated, DROP TRIGGER, ALTER TABLE
//     ... DISABLE TRIGGER) writes may go uncounted, and the read fails closed with
//     ErrUncounted (which matches grants.ErrUnavailable: 503), for every principal and
//     in new Stores alike, until the triggers are back (RepairTriggers, below). Every
//     statement that reads the control revision also reads the triggers' mark
//     (SQLite: the schema version, which every schema change moves; PostgreSQL: a
//     64-bit hash of the OIDs and row versions of those triggers present and enabled
//     and of their functions' row versions), and a Snapshot is cached with the mark
//     of the checked read that answered it: a cached or delta read that finds another
//     mark reads in full instead, checking the triggers again. So triggers dropped (or, on
//     PostgreSQL, their functions replaced: CREATE OR REPLACE FUNCTION), rows edited
//     uncounted and the triggers put back between two reads leave no stale Snapshot
//     (TestMissingTriggersFailClosed, TestTriggersChangedBetweenReads,
//     TestTriggerFunctionReplacedBetweenReads). Not seen by reads: a trigger, or on
//     PostgreSQL its function, left replaced by one of the same name that counts
//     nothing (Migrate sees it, below), and PostgreSQL writes in a session with
//     session_replication_role = replica, which fires no ordinary trigger. A Store
//     that caches nothing (Options.CacheBytes < 0), or over a database without 0020,
//     relies on no trigger and checks none. On PostgreSQL the check searches
//     pg_trigger by its index on (tgrelid, tgname), with the lists of the tables and
//     names, keeps the exact (table, name) pairs and probes pg_proc for those only,
//     so its cost does not grow with the triggers of other schemas. The tables are
//     found with to_regclass, which serves at every level (a missing table is NULL);
//     once a Store knows the database records 0021 and 0022 (after its first full
//     read), its full, cached and delta reads name them as regclass constants,
//     resolved when the statement is planned and again when a table is replaced: the
//     same counts and mark (TestKnownTriggerCheckSameMark), and a tombstone table
//     dropped then fails the read as a storage failure rather than ErrUncounted (both
//     503). The check still costs a PostgreSQL server about as much as the rest of
//     the cached read: server CPU per cached read 63 µs at 50 rows (76 with the
//     check's earlier form), 91 µs with 40 other stores' schemas in the database
//     (115); medians of 16 runs alternating both builds, `go test -run '^$' -bench
//     'ReadGrants' ./grants/sqlstore` (its srv-cpu-ns/op).
//   - Repair: Migrate, after applying the migrations, compares the triggers on the
//     store's tables with those the recorded migrations define (read from the
//     embedded files: the last CREATE TRIGGER and CREATE FUNCTION of each name): on
//     SQLite each trigger's SQL; on PostgreSQL each trigger present under its name on
//     its table, enabled, with the statement's timing, events and level and no WHEN
//     condition or column list, running its function of that table's schema with the
//     migrations' body and 0023's search_path, and no copy under another name running
//     one of those functions (it would count twice). Any difference answers
//     ErrTriggersChanged, the migrations still recorded (TestMigrateSeesMissingTriggers).
//     RepairTriggers (deferredtools migrate -repair) then, in one transaction under
//     Migrate's advisory lock and then the control row's, where writers queue (so a
//     writer mid-change commits first: TestRepairQueuesBehindWriter; PostgreSQL
//     reads wait for the repair to commit, SQLite reads see the state before it),
//     drops and recreates each of those triggers, replaces the functions and runs
//     0023 again, drops renamed copies, recreates the indexes (IF NOT EXISTS), and
//     raises the control revision above itself and every row's revision and the
//     tombstone floor to it: rows written while the triggers were
//     gone were not counted and left no tombstone, so every Snapshot cached before, in
//     any process, is below the floor and is read again in full (also its triggers'
//     mark changed), and a Store never sees a row older than the table
//     (TestRepairTriggers: revoked by plain SQL with the triggers dropped, repaired,
//     seen by the cached read, a principal never read and a new Store; a dropped and
//     recreated tool_grants, rows restored by hand, included; CHECK constraints such
//     a table lacks are not added). Repair is explicit, not part of Migrate, because
//     hosts run Migrate at every start: a trigger gone means the schema was changed
//     behind the store (a restore, a hand-made table, an operator's maintenance with
//     triggers disabled on purpose) and writes went uncounted, which an operator
//     should learn of, and a process starting mid-maintenance must not re-enable the
//     triggers under it; so Migrate fails loudly, as reads do, and the operator runs
//     the one repair when the schema is theirs again. A database recording a
//     migration this build lacks (a newer build's) is not checked by Migrate and
//     not repaired (ErrMigrationChanged).
//   - Delta reads: over a database recording migrations 0021 and 0022, a principal
//     whose cached Snapshot is older than the control revision is brought up to date
//     by one statement reading the control revision, the tombstone floor, the principal's
//     and "*" rows whose revision is above the Snapshot's (the triggers stamp every
//     insert and update, and an index on (principal_id, revision) finds them), and the
//     tombstones above it of keys that hold no row now (the triggers write one, at the
//     change's revision, for every row deleted, moved to another key, or, on SQLite,
//     removed by an OR REPLACE taking its rowid). The result
//     equals a full read at that revision. A full read is made instead when the
//     Snapshot is below the floor (its tombstones were pruned, deleted by hand or never
//     written: TRUNCATE on PostgreSQL, changes before 0021), when more than 1,024
//     changes apply, or when the delta read fails or would break a rule (too many
//     rows), so that the full read reports it. Tombstones are pruned by the triggers:
//     each deletion removes those 65,536 revisions or more older than its own, so the
//     table holds at most 65,536 rows (each change takes a revision of its own), and
//     the floor rises to the newest pruned.
//   - Migrating while other processes write and read: Migrate applies every pending
//     migration in one transaction (BEGIN IMMEDIATE on SQLite; on PostgreSQL under an
//     advisory lock, taking the tables' locks without first holding the control row,
//     where writers queue), so writers and readers meet the schema before or after
//     it, never between: a Migrate failing part-way changes nothing
//     (TestMigrateFailsWhole), and one upgrading a database at 0018 to 0022 while
//     Stores in other connections Put, Delete and read, with two hosts migrating at
//     once, fails no writer or reader, loses or double-counts no write and leaves the
//     schema of a database migrated directly (TestMigrateUnderLoad, -race). Writers
//     may wait for it to commit (on SQLite always: it holds the write lock).
//   - Operator rule, PostgreSQL: a session with session_replication_role = replica
//     (a superuser's, or a role granted SET on that parameter; logical replication's
//     apply workers run so) fires no ordinary trigger, so its writes to tool_grants
//     are not counted and leave no tombstone. Nothing a read does sees them (the
//     control revision and the triggers' mark are unchanged): a Store that cached a
//     principal's Snapshot keeps answering it, while a Store reading in full sees the
//     rows. Do not write grants so, or replicate tool_grants into a database whose
//     Stores cache; after such writes run deferredtools migrate -repair
//     (RepairTriggers), which raises the control revision and the tombstone floor above
//     every row, so every Store reads in full again
//     (cmd/deferredtools TestReplicaRoleWritesNeedRepair).
//   - Stale: each Store remembers the highest control revision it has confirmed (read
//     or written). A read that started after that and answers a lower revision is
//     stale (a lagging replica, a database restored from a backup) and fails with
//     ErrStale, which wraps grants.ErrUnavailable: 503, never old rows. A database moved
//     back in time on purpose needs the processes restarted.
//   - The schema (0019) refuses with CHECK constraints what a read would refuse (an
//     empty principal or tool, an effect other than allow/deny, a revision below 1, a
//     scopes text outside the encoding above; SQLite refuses a repeated scope with a
//     trigger), so plain SQL cannot store a row that fails reads closed; a session
//     past them (SQLite's PRAGMA ignore_check_constraints, PostgreSQL constraints
//     dropped) can, and every read of the principals it applies to then fails closed
//     (cmd/deferredtools TestMalformedRowsFromOutside).
//   - Triggers (0019, replaced by 0020) count every write, plain SQL included (SPEC
//     GRANT-4), on PostgreSQL whatever the writing session's search_path (0023: their
//     functions resolve tables in their own schema, TestWriterSearchPathCounted): each
//     row inserted, updated or deleted increments the control revision exactly once,
//     and an inserted or updated row takes the new value as its revision. An upsert
//     counts once whether it inserts or updates, however its DO UPDATE is written; ON
//     CONFLICT DO NOTHING that conflicts counts nothing; TRUNCATE (PostgreSQL) counts
//     once. On SQLite one UPDATE goes uncounted: one that changes nothing but the
//     revision, to the current control revision (how the triggers stamp a row); no read
//     decides differently after it.
//   - A write is one transaction. On SQLite it reads the control revision first (with
//     an UPDATE that changes nothing, which takes the write lock), then changes the
//     row, which the triggers count. On PostgreSQL a Put is one upsert
//     whose BEFORE trigger locks the control row (writers queue there), counts the
//     change and stamps the row, answering the revision with RETURNING; a Delete locks
//     the control row first. A write that no trigger counted (a database without 0019)
//     is rolled back and fails closed. Every Put counts as a change, even one that
//     stores the same content; a Delete of a missing row changes nothing.
//   - SQLite writes run on one connection, in a transaction whose first statement takes
//     the write lock (as BEGIN IMMEDIATE would), with a busy timeout of 5 s (or the
//     context's deadline, when sooner), set back to the database's own (its DSN's)
//     before the connection returns to the pool; a write that still meets a busy
//     database is rolled back and retried until the context's deadline (30 s without
//     one), so concurrent writers, in many processes too, wait their turn instead of
//     failing with SQLITE_BUSY. Within one Store the writes queue first, one at a
//     time, within the same deadline: writers of one process racing for the lock
//     starved each other. Reads use the pool as it is: open SQLite in
//     WAL mode, where readers never wait for writers, with a busy timeout set before
//     the journal mode so that connections opening at once wait for each other (for
//     modernc.org/sqlite: "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)").
//   - PostgreSQL writes run at READ COMMITTED whatever the database's default, so
//     writers queue on the control row instead of failing serialisation.
//   - Prepared statements: on SQLite a Store prepares its write statements and the
//     control revision read once, at their first use, and database/sql keeps them
//     prepared on each connection that ran them (SQLite would otherwise compile a write
//     and its triggers at every call). Close releases them; it does not close the
//     *sql.DB. On PostgreSQL it prepares none: pgx keeps each query's statement per
//     connection by itself, and re-prepares it after a schema change.
//   - Errors never carry storage text (SPEC ERR-2): every storage failure, a missing
//     table or control row included, is an error matching grants.ErrUnavailable (and
//     the context's error when ctx ended) whose text names only the operation.
package sqlstore
