package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"
)

// Stored text longer than 64 code points (a principal, a tool or a scope: the row
// model bounds none of them) is shown in list and check text output as its first 64
// code points, quoted, an ellipsis and its length in bytes, so that a 100 KB principal
// does not fill the terminal; -json prints it whole, and 64 code points print as they
// are.
func TestListLongFields(t *testing.T) {
	db := "sqlite:" + t.TempDir() + "/grants.db"
	ok(t, "migrate", "-db", db)
	long := strings.Repeat("p", 100_000)
	wide := strings.Repeat("é", 50_000) // 100,000 bytes, 2 a code point
	tool := strings.Repeat("t", 70_000)
	scope := strings.Repeat("s", 5_000)
	exact := strings.Repeat("x", 64)
	ok(t, "grants", "allow", "-db", db, "-principal", long, "-tool", tool, "-scopes", "read,"+scope)
	ok(t, "grants", "allow", "-db", db, "-principal", wide, "-tool", "t")
	ok(t, "grants", "allow", "-db", db, "-principal", exact, "-tool", exact)

	out := ok(t, "grants", "list", "-db", db)
	if len(out) > 2000 {
		t.Errorf("list printed %d bytes for 3 rows", len(out))
	}
	short := func(s string, n int) string { return `"` + s + `"…(` + strconv.Itoa(n) + " bytes)" }
	for _, want := range []string{
		short(strings.Repeat("p", 64), 100_000) + "\t" + short(strings.Repeat("t", 64), 70_000) + "\tallow\tread," + short(strings.Repeat("s", 64), 5_000) + "\t",
		short(strings.Repeat("é", 64), 100_000) + "\tt\tallow\t-\t",
		exact + "\t" + exact + "\tallow\t-\t",
	} {
		if !strings.Contains(out, "\n"+want) {
			t.Errorf("list printed\n%s\nwant a line beginning %q", out, want)
		}
	}

	var listed struct{ Rows []jsonRow }
	if err := json.Unmarshal([]byte(ok(t, "grants", "list", "-db", db, "-json")), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Rows) != 3 || listed.Rows[0].Principal != long || listed.Rows[0].Tool != tool ||
		len(listed.Rows[0].Scopes) != 2 || listed.Rows[0].Scopes[1] != scope || listed.Rows[1].Principal != exact ||
		listed.Rows[2].Principal != wide {
		t.Errorf("list -json does not print the rows whole")
	}

	out = ok(t, "grants", "check", "-db", db, "-principal", long, "-scopes", "read,"+scope)
	if len(out) > 1000 || !strings.Contains(out, short(strings.Repeat("t", 64), 70_000)+"\tgranted\t"+short(strings.Repeat("p", 64), 100_000)) {
		t.Errorf("check printed %d bytes:\n%.600s", len(out), out)
	}
}

// A scope holding a comma (an RFC 6749 scope-token may; the -scopes flag cannot write
// one, another writer of the store can) prints quoted in text output, so that the
// comma-separated scopes of a row read back as they are: "read,write" is not read and
// write.
func TestListScopeWithComma(t *testing.T) {
	db := "sqlite:" + t.TempDir() + "/grants.db"
	ok(t, "migrate", "-db", db)
	err := withStore(db, func(ctx context.Context, s *sqlstore.Store) error {
		_, err := s.Put(ctx, grants.Row{Principal: "ann", Tool: "t", Effect: grants.Allow, Scopes: []string{"read,write", "admin"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, "grants", "allow", "-db", db, "-principal", "bob", "-tool", "t", "-scopes", "read,write")
	out := ok(t, "grants", "list", "-db", db)
	for _, want := range []string{"\nann\tt\tallow\t\"read,write\",admin\t", "\nbob\tt\tallow\tread,write\t"} {
		if !strings.Contains(out, want) {
			t.Errorf("list printed\n%s\nwant a line beginning %q", out, want)
		}
	}
}

// Stored text that is not UTF-8 (the row model does not forbid it) prints Go-quoted
// byte for byte in text output; -json, which cannot hold such bytes, prints each bad
// byte as U+FFFD (encoding/json's rule), which the README says: the text output is the
// exact one.
func TestListInvalidUTF8(t *testing.T) {
	db := "sqlite:" + t.TempDir() + "/grants.db"
	ok(t, "migrate", "-db", db)
	ok(t, "grants", "allow", "-db", db, "-principal", "bad\xffid", "-tool", "t")
	if out := ok(t, "grants", "list", "-db", db); !strings.Contains(out, "\n\"bad\\xffid\"\tt\tallow\t") {
		t.Errorf("list printed\n%s\nwant the principal quoted as \"bad\\xffid\"", out)
	}
	var listed struct{ Rows []jsonRow }
	if err := json.Unmarshal([]byte(ok(t, "grants", "list", "-db", db, "-json")), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Rows) != 1 || listed.Rows[0].Principal != "bad\uFFFDid" {
		t.Errorf("list -json rows %+v, want the principal bad\\uFFFDid", listed.Rows)
	}
}
