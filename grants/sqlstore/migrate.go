package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/deferredtools/deferredtools/grants"
)

//go:embed migrations
var migrations embed.FS

// migrationLock is the PostgreSQL advisory lock key that serialises Migrate across
// processes starting at once ("grants18" in ASCII).
const migrationLock = 0x6772616e74733138

// The migrations whose application Migrate treats specially.
const (
	versionTables = 18 // 0018_tool_grants: the tables and the compatibility rows
	versionRules  = 19 // 0019_grant_rules: CHECK constraints and revision triggers
	// 0020_revision_once: triggers counting each change exactly once, which the
	// Store's cache relies on
	versionCounted = 20
	// 0021_deleted_rows: tombstones of the rows that leave a key, which the Store's
	// delta reads rely on
	versionDeleted = 21
	// 0022_replaced_rows: tombstones, on SQLite, of the rows an OR REPLACE removes by
	// rowid, without which a delta read could keep such a row
	versionReplaced = 22
)

// ErrMigrationChanged reports that a migration recorded as applied differs (by checksum)
// from the embedded one of the same version: the database was migrated by another
// build. Migrate changes nothing.
var ErrMigrationChanged = errors.New("sqlstore: an applied migration differs from this build's")

// A BadRowsError reports that migration 0019 was refused because Count rows of
// tool_grants break the grant row model (grants.CheckRow): constraints cannot be added
// over them, and Migrate never deletes rows. Fix or delete them, then migrate again. It
// matches grants.ErrMalformed.
type BadRowsError struct {
	Count int
}

func (e *BadRowsError) Error() string {
	return fmt.Sprintf("sqlstore: migration 0019 refused: %d rows break the grant row model; fix or delete them first", e.Count)
}

func (e *BadRowsError) Unwrap() error { return grants.ErrMalformed }

// A Migration is one embedded migration file.
type Migration struct {
	Version  int    // 18 for 0018_tool_grants.sql
	Name     string // the file name without ".sql", e.g. "0018_tool_grants"
	Checksum string // hex SHA-256 of the file
	src      string
}

// Migrations returns the dialect's embedded migrations in version order.
func Migrations(dialect Dialect) ([]Migration, error) {
	if queriesFor(dialect) == nil {
		return nil, errSetup
	}
	dir := "migrations/" + dialect.String()
	entries, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return nil, errSetup
	}
	var ms []Migration
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".sql")
		num, _, ok2 := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || !ok2 || err != nil {
			return nil, errSetup
		}
		src, err := migrations.ReadFile(dir + "/" + e.Name())
		if err != nil {
			return nil, errSetup
		}
		sum := sha256.Sum256(src)
		ms = append(ms, Migration{Version: v, Name: name, Checksum: hex.EncodeToString(sum[:]), src: string(src)})
	}
	slices.SortFunc(ms, func(a, b Migration) int { return a.Version - b.Version })
	return ms, nil
}

// splitStatements splits a migration file into statements: comment lines are dropped, and
// a statement ends with a line ending in ';', except inside a trigger body (from a line
// ending in BEGIN to "END;") or a dollar-quoted function body (to a line starting "$$").
func splitStatements(src string) []string {
	var (
		stmts []string
		cur   strings.Builder
		block string // "BEGIN" or "$$" inside a body, else ""
	)
	for line := range strings.Lines(src) {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		cur.WriteString(line)
		end := false
		switch {
		case block == "" && strings.HasSuffix(trimmed, "BEGIN"):
			block = "BEGIN"
		case block == "" && strings.HasSuffix(trimmed, "$$"):
			block = "$$"
		case block == "BEGIN" && trimmed == "END;",
			block == "$$" && strings.HasPrefix(trimmed, "$$") && strings.HasSuffix(trimmed, ";"):
			block, end = "", true
		case block == "" && strings.HasSuffix(trimmed, ";"):
			end = true
		}
		if end {
			stmt := strings.TrimSpace(cur.String())
			if !strings.HasSuffix(stmt, "END;") {
				stmt = strings.TrimSuffix(stmt, ";")
			}
			stmts = append(stmts, stmt)
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		stmts = append(stmts, s)
	}
	return stmts
}

// Migrate brings db's grant schema up to date, in one transaction, applying each embedded
// migration not yet recorded in the table sqlstore_migrations (version, name, checksum)
// and recording it; a recorded migration never runs again.
//
//   - 0018_tool_grants creates tool_grants and control_revisions (row "model_grants")
//     and inserts the compat rows (principal "*": the host's public tools and their
//     required scopes, SPEC GRANT-3), incrementing the control revision once and giving
//     them its new value. It runs once: a compat row deleted or edited since stays so.
//     A database whose tool_grants table exists without a record (made by an older
//     build) is adopted: the tables are kept and no compat row is inserted.
//   - 0019_grant_rules adds CHECK constraints enforcing the row model and triggers that
//     increment the revisions on every write, plain SQL included (GRANT-4). It is
//     refused with a *BadRowsError, changing nothing, while rows break the model.
//   - 0020_revision_once replaces those triggers with ones that count each change
//     exactly once whatever SQL writes it (an upsert, ON CONFLICT DO NOTHING, an UPDATE
//     that sets the revision, TRUNCATE on PostgreSQL). A Store answers from its cache
//     only over a database that records 0020.
//   - 0021_deleted_rows adds tombstones: the triggers record each row deleted or moved
//     to another key, at the revision of the change, in tool_grants_deleted (pruned to
//     the last 65,536 revisions), above the revision in tool_grants_deleted_floor. A
//     Store brings a cached Snapshot up to date from what changed since its revision
//     only over a database that records 0021.
//   - 0022_replaced_rows (SQLite) also tombstones a row that INSERT OR REPLACE or
//     UPDATE OR REPLACE removes because the write takes its rowid (no delete trigger
//     fires for it); on PostgreSQL it changes nothing. Delta reads need it too.
//   - 0023_trigger_search_path (PostgreSQL) sets each trigger function's search_path
//     to the schema holding tool_grants, so that a write from a session whose
//     search_path lists another schema holding these tables first is counted here, not
//     there; on SQLite it changes nothing.
//
// Every run also restores the control row at revision 1 if it was deleted, and the
// tombstone floor row, at the control revision, if it was deleted, and then compares
// the triggers on the store's tables with those the recorded migrations define:
// missing, disabled, renamed or changed ones answer ErrTriggersChanged (the
// migrations applied stay recorded; RepairTriggers restores the triggers). A recorded
// migration whose checksum differs from the embedded one answers ErrMigrationChanged.
// Compat rows failing grants.CheckRow (Revision aside), naming another principal than
// "*" or repeating a tool are refused with a *grants.MalformedError before db is
// touched. Storage failures match grants.ErrUnavailable and carry no storage text. On
// PostgreSQL an advisory lock serialises processes migrating at once.
func Migrate(ctx context.Context, db *sql.DB, dialect Dialect, compat []grants.Row) error {
	return migrate(ctx, db, dialect, compat, 1<<30)
}

// Applied returns the migrations recorded in db, in version order; none when the
// migrations table does not exist yet.
func Applied(ctx context.Context, db *sql.DB, dialect Dialect) ([]Migration, error) {
	if db == nil || queriesFor(dialect) == nil {
		return nil, errSetup
	}
	var ms []Migration
	err := func() error {
		exists, err := tableExists(ctx, db, dialect, "sqlstore_migrations")
		if err != nil || !exists {
			return err
		}
		rows, err := db.QueryContext(ctx, "SELECT version, name, checksum FROM sqlstore_migrations ORDER BY version")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m Migration
			if err := rows.Scan(&m.Version, &m.Name, &m.Checksum); err != nil {
				return err
			}
			ms = append(ms, m)
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, fail(ctx, "migrate", err)
	}
	return ms, nil
}

// A querier runs statements: a *sql.DB or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func tableExists(ctx context.Context, q querier, d Dialect, table string) (bool, error) {
	query := "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?"
	if d == Postgres {
		query = "SELECT to_regclass($1) IS NOT NULL"
	}
	var ok bool
	err := q.QueryRowContext(ctx, query, table).Scan(&ok)
	return ok, err
}

// migrate is Migrate applying the migrations up to version upto only (tests keep a
// database at 0018 to store what the constraints now refuse).
func migrate(ctx context.Context, db *sql.DB, dialect Dialect, compat []grants.Row, upto int) error {
	ms, err := Migrations(dialect)
	if err != nil || db == nil {
		return errSetup
	}
	seen := make(map[string]bool, len(compat))
	for _, r := range compat {
		r.Revision = 1
		if err := grants.CheckRow(r); err != nil {
			return err
		}
		if r.Principal != grants.AnyPrincipal {
			return &grants.MalformedError{Reason: "principal"}
		}
		if seen[r.Tool] {
			return &grants.MalformedError{Reason: "duplicate"}
		}
		seen[r.Tool] = true
	}
	arg := func(i int) string { return "?" }
	if dialect == Postgres {
		arg = func(i int) string { return fmt.Sprintf("$%d", i) }
	}
	record := fmt.Sprintf("INSERT INTO sqlstore_migrations (version, name, checksum) VALUES (%s, %s, %s)", arg(1), arg(2), arg(3))
	changed := false // the triggers differ from the migrations'

	err = inTx(ctx, db, dialect, func(tx execer) (bool, error) {
		if dialect == Postgres {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", int64(migrationLock))); err != nil {
				return false, err
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS sqlstore_migrations (
    version  INTEGER NOT NULL PRIMARY KEY,
    name     TEXT    NOT NULL,
    checksum TEXT    NOT NULL
)`); err != nil {
			return false, err
		}
		applied, err := appliedIn(ctx, tx)
		if err != nil {
			return false, err
		}
		for _, m := range ms {
			if m.Version > upto {
				break
			}
			if sum, ok := applied[m.Version]; ok {
				if sum != m.Checksum {
					return false, ErrMigrationChanged
				}
				continue
			}
			if err := apply(ctx, tx, dialect, m, compat); err != nil {
				return false, err
			}
			if _, err := tx.ExecContext(ctx, record, m.Version, m.Name, m.Checksum); err != nil {
				return false, err
			}
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO control_revisions (name, revision) VALUES ('model_grants', 1) ON CONFLICT (name) DO NOTHING"); err != nil {
			return false, err
		}
		if exists, err := tableExists(ctx, tx, dialect, "tool_grants_deleted_floor"); err != nil {
			return false, err
		} else if exists {
			// Tombstones deleted while the floor row was missing raised nothing: the
			// control revision is a floor above every one of them.
			if _, err := tx.ExecContext(ctx, `INSERT INTO tool_grants_deleted_floor (revision)
SELECT revision FROM control_revisions WHERE name = 'model_grants'
    AND NOT EXISTS (SELECT 1 FROM tool_grants_deleted_floor)`); err != nil {
				return false, err
			}
		}
		// The triggers the recorded migrations made, as they made them; a database
		// recording a newer build's migrations is that build's to check.
		defs, err := recordedDefs(ctx, tx, dialect)
		if errors.Is(err, ErrMigrationChanged) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		intact, err := triggersIntact(ctx, tx, dialect, defs)
		changed = !intact
		return err == nil, err
	})
	var bad *BadRowsError
	switch {
	case err == nil && changed:
		return ErrTriggersChanged
	case err == nil:
		return nil
	case errors.As(err, &bad), errors.Is(err, ErrMigrationChanged):
		return err
	}
	return fail(ctx, "migrate", err)
}

// appliedIn reads the recorded migrations: version → checksum.
func appliedIn(ctx context.Context, tx execer) (map[int]string, error) {
	rows, err := tx.(interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}).QueryContext(ctx, "SELECT version, checksum FROM sqlstore_migrations")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	applied := make(map[int]string)
	for rows.Next() {
		var (
			v   int
			sum string
		)
		if err := rows.Scan(&v, &sum); err != nil {
			return nil, err
		}
		applied[v] = sum
	}
	return applied, rows.Err()
}

// apply runs one migration's statements, with what its version needs around them.
func apply(ctx context.Context, tx execer, d Dialect, m Migration, compat []grants.Row) error {
	adopted := false
	switch m.Version {
	case versionTables:
		exists, err := tableExists(ctx, tx, d, "tool_grants")
		if err != nil {
			return err
		}
		adopted = exists
	case versionRules:
		n, err := countBadRows(ctx, tx)
		if err != nil {
			return err
		}
		if n > 0 {
			return &BadRowsError{Count: n}
		}
	}
	for _, stmt := range splitStatements(m.src) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if m.Version == versionTables && !adopted {
		return insertCompat(ctx, tx, d, compat)
	}
	return nil
}

// insertCompat inserts the compat rows where no row has their key, with one increment
// of the control revision for them all.
func insertCompat(ctx context.Context, tx execer, d Dialect, compat []grants.Row) error {
	q := queriesFor(d)
	insert := strings.Replace(q.upsert, "DO UPDATE\nSET scopes = excluded.scopes, effect = excluded.effect, revision = excluded.revision", "DO NOTHING", 1)
	setControl := "UPDATE control_revisions SET revision = ? WHERE name = 'model_grants'"
	if d == Postgres {
		setControl = strings.Replace(setControl, "?", "$1", 1)
	}
	var control int64
	if err := tx.QueryRowContext(ctx, q.lock).Scan(&control); err != nil {
		return err
	}
	inserted := int64(0)
	for _, r := range compat {
		res, err := tx.ExecContext(ctx, insert, r.Principal, r.Tool, encodeScopes(r.Scopes), string(r.Effect), control+1)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		inserted += n
	}
	if inserted > 0 {
		_, err := tx.ExecContext(ctx, setControl, control+1)
		return err
	}
	return nil
}

// countBadRows counts the rows of tool_grants that a read would refuse: any NULL, a
// revision that is not an integer, or a row failing grants.CheckRow.
func countBadRows(ctx context.Context, tx execer) (int, error) {
	rows, err := tx.(interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}).QueryContext(ctx, "SELECT principal_id, tool_name, scopes, effect, revision FROM tool_grants")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	bad := 0
	for rows.Next() {
		var (
			principal, tool, scopes, effect sql.NullString
			rev                             any
		)
		if err := rows.Scan(&principal, &tool, &scopes, &effect, &rev); err != nil {
			return 0, err
		}
		r, ok := rev.(int64)
		if !ok || !principal.Valid || !tool.Valid || !scopes.Valid || !effect.Valid ||
			grants.CheckRow(grants.Row{Principal: principal.String, Tool: tool.String,
				Scopes: decodeScopes(scopes.String), Effect: grants.Effect(effect.String), Revision: r}) != nil {
			bad++
		}
	}
	return bad, rows.Err()
}
