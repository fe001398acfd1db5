package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// SPEC GRANT-3: -db seeds the compatibility rows on the database's first start only: a
// "*" row deleted since stays deleted when the server starts again.
func TestDBSeedsOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "grants.db")
	compat := []grants.Row{
		{Principal: grants.AnyPrincipal, Tool: "kept", Effect: grants.Allow},
		{Principal: grants.AnyPrincipal, Tool: "deleted", Effect: grants.Allow},
	}
	tools := func() map[string]bool {
		t.Helper()
		r, err := openDB(ctx, "sqlite:"+path, compat)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := r.ReadGrants(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, row := range snap.Rows {
			got[row.Tool] = true
		}
		return got
	}
	if got := tools(); !got["kept"] || !got["deleted"] {
		t.Fatalf("first start seeded %v, want both compatibility rows", got)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("DELETE FROM tool_grants WHERE tool_name = 'deleted'"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got := tools(); !got["kept"] || got["deleted"] {
			t.Errorf("GRANT-3: after a restart the rows are %v, want the deleted one still gone", got)
		}
	}
}
