package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// SPEC GRANT-3: -db seeds the compatibility rows on the database's first start only: a
// "*" row deleted since stays deleted when the server starts again.
func TestDBSeedsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.db")
	compat := []grants.Row{
		{Principal: grants.AnyPrincipal, Tool: "kept", Effect: grants.Allow},
		{Principal: grants.AnyPrincipal, Tool: "deleted", Effect: grants.Allow},
	}
	tools := func() map[string]bool {
		t.Helper()
		got := map[string]bool{}
		for _, row := range startAndRead(t, path, compat) {
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

// startAndRead opens the -db database at path as a server start does (migrating it
// with compat) and reads alice's applicable rows.
func startAndRead(t *testing.T, path string, compat []grants.Row) []grants.Row {
	t.Helper()
	r, err := openDB(context.Background(), "sqlite:"+path, compat)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := r.ReadGrants(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	return snap.Rows
}

// -db sqlite:PATH names a file path, as for cmd/deferredtools (the README's "Operating
// grants"): "#", "?", "%" and spaces are part of the name, so the server and the
// command given the same -db open the same file. (SQLite read "file:" + PATH as a URI:
// "g#1.db" opened "g", "g%41.db" opened "gA.db".)
func TestDBPathIsAFilePath(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"g#1.db", "g?x=1.db", "g%41.db", "g h.db", " g.db", "g%zz #?&mode=memory.db"} {
		dir := t.TempDir()
		r, err := openDB(ctx, "sqlite:"+filepath.Join(dir, name), nil)
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		if _, err := r.ReadGrants(ctx, "alice"); err != nil {
			t.Errorf("%q: read: %v", name, err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		got = slices.DeleteFunc(got, func(e string) bool { return e == name+"-wal" || e == name+"-shm" })
		if !slices.Equal(got, []string{name}) {
			t.Errorf("-db sqlite:DIR/%s created %q in DIR, want the file %q alone", name, got, name)
		}
	}
}

// SPEC GRANT-5, GRANT-6, CALL-1: a malformed row stored by plain SQL past the schema's
// CHECK constraints (PRAGMA ignore_check_constraints: an effect the model lacks, an
// empty tool name, a scopes text outside the encoding) while the -db server runs fails
// alice's requests closed: tools/list, discovery and a call of a tool she was granted
// answer an error, and nothing is listed or executed. Deleting the row restores them.
func TestDBMalformedRowFailsClosed(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []struct{ tool, scopes, effect string }{
		{"zz_bad", "", "ALLOW"},
		{"", "", "allow"},
		{"zz_bad", "a  b", "allow"},
	} {
		path := filepath.Join(t.TempDir(), "grants.db")
		cs := connect(t, command(t, true, "-db", "sqlite:"+path))
		args := map[string]any{"name": "prod"}
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deployments_get_logs", Arguments: args}); err != nil || res.IsError {
			t.Fatalf("granted call before = %+v, %v", res, err)
		}
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=ignore_check_constraints(1)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec("INSERT INTO tool_grants (principal_id, tool_name, scopes, effect, revision) VALUES ('*', ?, ?, ?, 1)",
			bad.tool, bad.scopes, bad.effect); err != nil {
			t.Fatal(err)
		}
		if list, err := cs.ListTools(ctx, nil); err == nil {
			t.Errorf("GRANT-5: tools/list with the malformed row %q listed %d tools, want an error", bad, len(list.Tools))
		}
		if res, err := mcp.CallCustomMethod[*discoverParams, *discoverResult](ctx, cs, discovery.DefaultMethod, &discoverParams{Query: "deployments logs"}); err == nil {
			t.Errorf("GRANT-5: discovery with the malformed row %q answered %d tools, want an error", bad, len(res.Tools))
		}
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deployments_get_logs", Arguments: args}); err == nil {
			t.Errorf("GRANT-5: the call with the malformed row %q answered %+v, want an error (nothing executed)", bad, res)
		}
		if _, err := db.Exec("DELETE FROM tool_grants WHERE principal_id = '*' AND tool_name = ?", bad.tool); err != nil {
			t.Fatal(err)
		}
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deployments_get_logs", Arguments: args}); err != nil || res.IsError {
			t.Errorf("granted call after the malformed row was deleted = %+v, %v", res, err)
		}
	}
}

// SPEC GRANT-3: a compatibility row edited by plain SQL (effect, scopes) keeps its edit
// across restarts, each of which runs the migrations again, and a restart by a build
// whose compatibility rows differ (one more, one changed) inserts and changes nothing.
func TestDBKeepsEditedRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.db")
	compat := []grants.Row{
		{Principal: grants.AnyPrincipal, Tool: "edited", Effect: grants.Allow},
		{Principal: grants.AnyPrincipal, Tool: "kept", Scopes: []string{"s"}, Effect: grants.Allow},
	}
	rows := func(compat []grants.Row) []string {
		t.Helper()
		var out []string
		for _, row := range startAndRead(t, path, compat) {
			out = append(out, fmt.Sprintf("%s %s %v %s", row.Principal, row.Tool, row.Scopes, row.Effect))
		}
		slices.Sort(out)
		return out
	}
	if got, want := rows(compat), []string{"* edited [] allow", "* kept [s] allow"}; !slices.Equal(got, want) {
		t.Fatalf("first start: %q, want %q", got, want)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE tool_grants SET effect = 'deny', scopes = 'x y' WHERE tool_name = 'edited'"); err != nil {
		t.Fatal(err)
	}
	want := []string{"* edited [x y] deny", "* kept [s] allow"}
	newer := []grants.Row{
		{Principal: grants.AnyPrincipal, Tool: "edited", Effect: grants.Allow},
		{Principal: grants.AnyPrincipal, Tool: "kept", Effect: grants.Deny},
		{Principal: grants.AnyPrincipal, Tool: "added", Effect: grants.Allow},
	}
	for i, c := range [][]grants.Row{compat, compat, newer} {
		if got := rows(c); !slices.Equal(got, want) {
			t.Errorf("GRANT-3: restart %d: %q, want the edit kept and nothing inserted: %q", i+1, got, want)
		}
	}
}
