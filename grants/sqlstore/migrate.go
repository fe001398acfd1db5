package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"strings"

	"github.com/deferredtools/deferredtools/grants"
)

//go:embed migrations
var migrations embed.FS

// migrationLock is the PostgreSQL advisory lock key that serialises Migrate across
// processes starting at once ("grants18" in ASCII).
const migrationLock = 0x6772616e74733138

// statements returns the dialect's 0018_tool_grants.sql split into statements.
func statements(d Dialect) ([]string, error) {
	if queriesFor(d) == nil {
		return nil, errSetup
	}
	src, err := migrations.ReadFile("migrations/" + d.String() + "/0018_tool_grants.sql")
	if err != nil {
		return nil, errSetup
	}
	var lines []string
	for line := range strings.Lines(string(src)) {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			lines = append(lines, line)
		}
	}
	var stmts []string
	for stmt := range strings.SplitSeq(strings.Join(lines, ""), ";") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			stmts = append(stmts, stmt)
		}
	}
	return stmts, nil
}

// Migrate applies the embedded migration 0018_tool_grants.sql for dialect to db in one
// transaction: it creates tool_grants and control_revisions with the control row
// "model_grants" where absent, then inserts each compat row (principal "*": the host's
// public tools and their required scopes, SPEC GRANT-3) whose key has no row yet.
// Existing rows, edited or not, are kept as they are, so running Migrate again changes
// nothing. When rows are inserted, the control revision is incremented once and the
// inserted rows take its new value as their revision (SPEC GRANT-4).
//
// A compat row that fails grants.CheckRow (Revision aside), names another principal
// than "*" or repeats a tool is refused with a *grants.MalformedError before db is
// touched. Storage failures match grants.ErrUnavailable and carry no storage text.
// On PostgreSQL an advisory lock serialises processes migrating at once.
func Migrate(ctx context.Context, db *sql.DB, dialect Dialect, compat []grants.Row) error {
	stmts, err := statements(dialect)
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
	q := queriesFor(dialect)
	insert := strings.Replace(q.upsert, "DO UPDATE\nSET scopes = excluded.scopes, effect = excluded.effect, revision = excluded.revision", "DO NOTHING", 1)
	selectControl := "SELECT revision FROM control_revisions WHERE name = 'model_grants'"
	setControl := "UPDATE control_revisions SET revision = ? WHERE name = 'model_grants'"
	if dialect == Postgres {
		selectControl += " FOR UPDATE"
		setControl = strings.Replace(setControl, "?", "$1", 1)
	}

	err = inTx(ctx, db, dialect, func(tx execer) (bool, error) {
		if dialect == Postgres {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", int64(migrationLock))); err != nil {
				return false, err
			}
		}
		for _, stmt := range stmts {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return false, err
			}
		}
		var control int64
		if err := tx.QueryRowContext(ctx, selectControl).Scan(&control); err != nil {
			return false, err
		}
		inserted := int64(0)
		for _, r := range compat {
			res, err := tx.ExecContext(ctx, insert, r.Principal, r.Tool, encodeScopes(r.Scopes), string(r.Effect), control+1)
			if err != nil {
				return false, err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return false, err
			}
			inserted += n
		}
		if inserted > 0 {
			if _, err := tx.ExecContext(ctx, setControl, control+1); err != nil {
				return false, err
			}
		}
		return true, nil // the tables may be new even when no row was inserted
	})
	if err != nil {
		return fail(ctx, "migrate", err)
	}
	return nil
}
