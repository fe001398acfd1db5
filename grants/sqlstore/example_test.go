package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"

	_ "modernc.org/sqlite"
)

// The host opens the database with its driver, migrates it with the compatibility rows
// of its public tools, and reads grants through the Store.
func Example() {
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
	public := []grants.Row{
		{Principal: grants.AnyPrincipal, Tool: "models.search", Scopes: []string{"models:read"}, Effect: grants.Allow},
		{Principal: grants.AnyPrincipal, Tool: "status", Effect: grants.Allow},
	}
	if err := sqlstore.Migrate(ctx, db, sqlstore.SQLite, public); err != nil {
		panic(err)
	}
	store := sqlstore.New(db, sqlstore.SQLite)
	if _, err := store.Put(ctx, grants.Row{Principal: "alice", Tool: "models.deploy", Scopes: []string{"models:write"}, Effect: grants.Allow}); err != nil {
		panic(err)
	}

	alice := grants.Principal{ID: "alice", Scopes: []string{"models:read", "models:write"}}
	snap, err := store.ReadGrants(ctx, alice.ID)
	if err != nil {
		panic(err) // fail closed: 503
	}
	d, err := grants.Resolve(snap, alice)
	if err != nil {
		panic(err) // fail closed: 503
	}
	fmt.Println("revision", snap.Revision)
	for _, tool := range []string{"models.search", "models.deploy", "status", "billing.refund"} {
		fmt.Println(tool, d.Allows(tool))
	}
	// Output:
	// revision 3
	// models.search true
	// models.deploy true
	// status true
	// billing.refund false
}
