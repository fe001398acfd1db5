package sqlstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"

	_ "modernc.org/sqlite"
)

// A Discoverer over grants in SQLite (PostgreSQL is the same with sqlstore.Postgres and
// the "pgx" driver): RevisionSync binds cursors to the database's control revision, so
// a grant change, by any process, makes an outstanding cursor stale.
func Example_discoverer() {
	dir, err := os.MkdirTemp("", "grants-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "grants.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		panic(err)
	}
	defer db.Close()

	ctx := context.Background()
	var tools []json.RawMessage
	var public []grants.Row
	for _, name := range []string{"deploy_model", "deploy_status", "deploy_rollback", "deploy_delete"} {
		tools = append(tools, json.RawMessage(`{"name":"`+name+`","description":"Model deployment: `+name+`.","inputSchema":{"type":"object"}}`))
		public = append(public, grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow})
	}
	if err := sqlstore.Migrate(ctx, db, sqlstore.SQLite, public); err != nil {
		panic(err)
	}
	store := sqlstore.New(db, sqlstore.SQLite)
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		panic(err)
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, RevisionSync: true})

	alice := grants.Principal{ID: "alice"}
	first, err := d.Discover(ctx, alice, discovery.Request{Query: "model deployment", Limit: 2})
	if err != nil {
		panic(err)
	}
	fmt.Println("page 1:", len(first.Tools), "tools, more:", first.NextCursor != "")

	// An administrator denies alice a tool (here through the store; SQL or the
	// deferredtools command do the same).
	if _, err := store.Put(ctx, grants.Row{Principal: "alice", Tool: "deploy_delete", Effect: grants.Deny}); err != nil {
		panic(err)
	}
	_, err = d.Discover(ctx, alice, discovery.Request{Query: "model deployment", Limit: 2, Cursor: first.NextCursor})
	fmt.Println("page 2 with the old cursor:", errors.Is(err, discovery.CodeInvalidCursor))
	list, err := d.ListTools(ctx, alice)
	if err != nil {
		panic(err)
	}
	fmt.Println("alice now sees", len(list.Tools), "tools")
	// Output:
	// page 1: 2 tools, more: true
	// page 2 with the old cursor: true
	// alice now sees 3 tools
}
