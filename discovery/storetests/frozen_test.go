package storetests_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"
	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// SPEC GRANT-5, GRANT-6, ERR-5: a real SQLite grant database frozen by another connection's
// exclusive lock answers grants_unavailable within the GrantTimeout, though SQLite's
// own busy timeout would wait a minute; nothing read before is served instead.
func TestGrantTimeoutFrozenSQLite(t *testing.T) {
	ctx := t.Context()
	// The rollback journal, not WAL: an exclusive lock then blocks readers too.
	db := dbtest.Open(t, "sqlite", dbtest.SQLiteDSN(t, "_pragma=busy_timeout(60000)&_pragma=journal_mode(DELETE)"))
	if err := sqlstore.Migrate(ctx, db, sqlstore.SQLite, []grants.Row{{Principal: grants.AnyPrincipal, Tool: "model_search", Effect: grants.Allow, Revision: 1}}); err != nil {
		t.Fatal(err)
	}
	store := sqlstore.New(db, sqlstore.SQLite)
	cat, err := discovery.NewCatalog([]json.RawMessage{json.RawMessage(`{"name":"model_search","description":"Search the model registry.",` +
		`"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 300 * time.Millisecond
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, GrantTimeout: timeout})
	alice := grants.Principal{ID: "alice"}
	call := discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)}
	if err := d.AuthorizeCall(ctx, alice, call); err != nil {
		t.Fatalf("before the freeze: %v", err)
	}

	// A connection of its own holds the lock; the store reads through another.
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatalf("taking the exclusive lock: %v", err)
	}
	defer conn.Close()

	for i := range 3 {
		start := time.Now()
		err := d.AuthorizeCall(context.Background(), alice, call)
		took := time.Since(start)
		if !errors.Is(err, discovery.CodeGrantsUnavailable) {
			t.Errorf("frozen read %d: %v, want grants_unavailable", i, err)
		}
		if took > timeout+2*time.Second {
			t.Fatalf("frozen read %d answered after %v, want about %v", i, took, timeout)
		}
		t.Logf("frozen read %d answered after %v", i, took)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := d.AuthorizeCall(ctx, alice, call); err != nil {
		t.Errorf("after the freeze: %v", err)
	}
}
