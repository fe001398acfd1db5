// Package grantstest checks grants.Store implementations against the grant rules and
// offers fault-injecting grants.Readers for the tests of code that consumes grants.
//
// Run is the conformance kit, like testing/fstest.TestFS: every subtest names the SPEC
// rule (GRANT-x) it checks. The fakes let a consumer prove that it fails closed and
// notices grant changes; most wrap a Base Reader, usually a *grants.Memory that the
// test grants and revokes on with Put and Delete:
//
//   - storage that fails: ErrReader (every read), FailAfterReader (after N reads);
//   - storage that is slow: HookReader with a Before that waits (the Discoverer's
//     Options.GrantTimeout then answers grants_unavailable);
//   - rows a reader must refuse: MalformedReader (one per MalformedReasons),
//     TooManyRowsReader (MaxRows+1 rows), NoRevisionReader (revision 0);
//   - grants that change between two reads of one request: SequenceReader, or a
//     HookReader whose Before writes to its Base;
//   - counting reads (reread on every call, never read while switched off):
//     CountingReader.
//
// A store's own test runs the kit with a constructor of empty stores:
//
//	func TestConformance(t *testing.T) {
//		grantstest.Run(t, func(t *testing.T) grants.Store { return mystore.New(openEmptyDB(t)) })
//	}
//
// and a consumer's test wraps a real store in a fake:
//
//	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat,
//		Grants: &grantstest.ErrReader{Err: errors.New("connection reset")}})
//	_, err := d.Discover(ctx, p, req) // must be grants_unavailable (503), never a page
package grantstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// Run runs the conformance kit against the stores newStore makes. newStore is called once
// per subtest and must return an empty store (no rows) whose control revision is at
// least 1; it may register cleanups with t. Some subtests write more than MaxRows rows.
// A store that is also a grants.Lister has its listing checked; the "Listing" subtest
// skips for one that is not. A nil newStore, or a nil Store from it, fails the test.
func Run(t *testing.T, newStore func(t *testing.T) grants.Store) {
	t.Helper()
	if newStore == nil {
		t.Fatal("grantstest: Run: nil newStore")
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, s grants.Store)
	}{
		{"EmptyRead", testEmptyRead},
		{"PutReadRoundTrip", testRoundTrip},
		{"OtherPrincipalsHidden", testOtherPrincipals},
		{"AnyPrincipalRows", testAnyRows},
		{"RevisionOnPut", testRevisionPut},
		{"RevisionOnReplace", testRevisionReplace},
		{"RevisionOnDelete", testRevisionDelete},
		{"DeleteMissing", testDeleteMissing},
		{"SnapshotNotAliased", testNotAliased},
		{"ScopesRoundTrip", testScopes},
		{"PutRefusesMalformed", testPutMalformed},
		{"ContextCancelled", testCancelled},
		{"ConcurrentWriters", testConcurrentWriters},
		{"TooManyRows", testTooManyRows},
		{"Listing", testListing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			if s == nil {
				t.Fatal("grantstest: Run: newStore returned a nil Store")
			}
			tc.run(t, s)
		})
	}
}

func testEmptyRead(t *testing.T, s grants.Store) {
	snap := read(t, s, "alice")
	if len(snap.Rows) != 0 {
		t.Errorf("GRANT-2: ReadGrants on an empty store returned rows %v, want none", keys(snap))
	}
}

func testRoundTrip(t *testing.T, s grants.Store) {
	for _, r := range []grants.Row{
		{Principal: "alice", Tool: "models.search", Scopes: []string{"models:read"}, Effect: grants.Allow},
		{Principal: "alice", Tool: "billing.refund", Effect: grants.Deny},
		{Principal: "alice", Tool: "datasets.list", Effect: grants.Allow, Revision: 999},
	} {
		got := put(t, s, r)
		if got.Revision < 1 {
			t.Errorf("GRANT-1: Put(%s).Revision = %d, want >= 1", rowText(r), got.Revision)
		}
		want := r
		want.Revision = got.Revision
		if !sameRow(got, want) {
			t.Errorf("GRANT-1: Put(%s) = %s, want the row as given with its new revision", rowText(r), rowText(got))
		}
		snap := read(t, s, "alice")
		stored, ok := find(snap, r.Principal, r.Tool)
		if !ok {
			t.Fatalf("GRANT-1: row %s/%s put but not read back (read %v)", r.Principal, r.Tool, keys(snap))
		}
		if !sameRow(stored, got) {
			t.Errorf("GRANT-1: read back %s, want %s as Put returned it", rowText(stored), rowText(got))
		}
	}
	if n := len(read(t, s, "alice").Rows); n != 3 {
		t.Errorf("GRANT-1: read %d rows after 3 puts of distinct keys, want 3", n)
	}
}

func testOtherPrincipals(t *testing.T, s grants.Store) {
	put(t, s, grants.Row{Principal: "alice", Tool: "a", Effect: grants.Allow})
	put(t, s, grants.Row{Principal: "bob", Tool: "b", Effect: grants.Allow})
	put(t, s, grants.Row{Principal: "alice2", Tool: "c", Effect: grants.Allow})
	put(t, s, grants.Row{Principal: "Alice", Tool: "d", Effect: grants.Allow})
	snap := read(t, s, "alice")
	if got, want := keys(snap), []string{"alice/a"}; !slices.Equal(got, want) {
		t.Errorf("GRANT-5: ReadGrants(alice) rows = %v, want %v (never another principal's rows)", got, want)
	}
	snap = read(t, s, "carol")
	if len(snap.Rows) != 0 {
		t.Errorf("GRANT-5: ReadGrants(carol) rows = %v, want none", keys(snap))
	}
}

func testAnyRows(t *testing.T, s grants.Store) {
	put(t, s, grants.Row{Principal: grants.AnyPrincipal, Tool: "public", Scopes: []string{"tools:read"}, Effect: grants.Allow})
	put(t, s, grants.Row{Principal: "alice", Tool: "public", Effect: grants.Deny})
	for _, tc := range []struct {
		principal string
		want      []string
	}{
		{"alice", []string{"*/public", "alice/public"}},
		{"bob", []string{"*/public"}},
		{grants.AnyPrincipal, []string{"*/public"}},
	} {
		if got := keys(read(t, s, tc.principal)); !slices.Equal(got, tc.want) {
			t.Errorf("GRANT-2: ReadGrants(%q) rows = %v, want %v (own rows and every %q row)", tc.principal, got, tc.want, grants.AnyPrincipal)
		}
	}
}

// revisions reads principal's Snapshot and returns its control revision and the
// revision of the row (principal, tool), 0 if absent.
func revisions(t *testing.T, s grants.Store, principal, tool string) (control, row int64) {
	t.Helper()
	snap := read(t, s, principal)
	r, _ := find(snap, principal, tool)
	return snap.Revision, r.Revision
}

func testRevisionPut(t *testing.T, s grants.Store) {
	c0, _ := revisions(t, s, "alice", "t")
	got := put(t, s, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
	c1, r1 := revisions(t, s, "alice", "t")
	if c1 != c0+1 {
		t.Errorf("GRANT-4: control revision %d after a Put, want %d (incremented once)", c1, c0+1)
	}
	if r1 != got.Revision || r1 < 1 {
		t.Errorf("GRANT-4: row revision read %d, Put returned %d; want equal and >= 1", r1, got.Revision)
	}
	// A row of another principal changes the control revision every principal reads.
	put(t, s, grants.Row{Principal: "bob", Tool: "t", Effect: grants.Allow})
	if c2, _ := revisions(t, s, "alice", "t"); c2 != c1+1 {
		t.Errorf("GRANT-4: alice reads control revision %d after bob's row changed, want %d", c2, c1+1)
	}
}

func testRevisionReplace(t *testing.T, s grants.Store) {
	first := put(t, s, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
	c0, _ := revisions(t, s, "alice", "t")
	for i, r := range []grants.Row{
		{Principal: "alice", Tool: "t", Effect: grants.Deny},
		{Principal: "alice", Tool: "t", Effect: grants.Deny, Scopes: []string{"x"}},
		{Principal: "alice", Tool: "t", Effect: grants.Deny, Scopes: []string{"x"}}, // same content: still a change
	} {
		prev := first.Revision
		first = put(t, s, r)
		c, rr := revisions(t, s, "alice", "t")
		if want := c0 + int64(i) + 1; c != want {
			t.Errorf("GRANT-4: control revision %d after replace #%d, want %d", c, i+1, want)
		}
		if rr <= prev || rr != first.Revision {
			t.Errorf("GRANT-4: row revision %d after replace #%d (Put returned %d), want > %d", rr, i+1, first.Revision, prev)
		}
	}
	if n := len(read(t, s, "alice").Rows); n != 1 {
		t.Errorf("GRANT-1: %d rows after replacing one key, want 1", n)
	}
}

func testRevisionDelete(t *testing.T, s grants.Store) {
	old := put(t, s, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
	put(t, s, grants.Row{Principal: "alice", Tool: "u", Effect: grants.Allow})
	c0, _ := revisions(t, s, "alice", "t")
	del(t, s, "alice", "t")
	snap := read(t, s, "alice")
	if snap.Revision != c0+1 {
		t.Errorf("GRANT-4: control revision %d after a Delete, want %d", snap.Revision, c0+1)
	}
	if got, want := keys(snap), []string{"alice/u"}; !slices.Equal(got, want) {
		t.Errorf("GRANT-4: rows after Delete = %v, want %v", got, want)
	}
	// Re-creating the row gives it a revision never seen for that key.
	again := put(t, s, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
	if again.Revision <= old.Revision {
		t.Errorf("GRANT-4: re-created row revision %d, want > %d (its revision before the delete)", again.Revision, old.Revision)
	}
}

func testDeleteMissing(t *testing.T, s grants.Store) {
	put(t, s, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
	before := read(t, s, "alice")
	want := slices.Clone(before.Rows)
	for _, k := range [][2]string{{"alice", "missing"}, {"bob", "t"}, {grants.AnyPrincipal, "t"}, {"", ""}} {
		if err := s.Delete(context.Background(), k[0], k[1]); err != nil {
			t.Errorf("GRANT-4: Delete(%q, %q) of a missing row = %v, want nil", k[0], k[1], err)
		}
	}
	after := read(t, s, "alice")
	if after.Revision != before.Revision {
		t.Errorf("GRANT-4: control revision %d after deleting missing rows, want %d unchanged", after.Revision, before.Revision)
	}
	if !slices.EqualFunc(after.Rows, want, sameRow) {
		t.Errorf("GRANT-4: rows %s after deleting missing rows, want %s", rowsText(after.Rows), rowsText(want))
	}
}

func cloneSnapshot(s *grants.Snapshot) *grants.Snapshot {
	c := &grants.Snapshot{Revision: s.Revision, Rows: slices.Clone(s.Rows)}
	for i := range c.Rows {
		c.Rows[i].Scopes = slices.Clone(c.Rows[i].Scopes)
	}
	return c
}

func sameSnapshot(a, b *grants.Snapshot) bool {
	return a.Revision == b.Revision && slices.EqualFunc(a.Rows, b.Rows, func(x, y grants.Row) bool {
		return x.Principal == y.Principal && x.Tool == y.Tool && x.Effect == y.Effect &&
			x.Revision == y.Revision && slices.Equal(x.Scopes, y.Scopes)
	})
}

func testNotAliased(t *testing.T, s grants.Store) {
	in := grants.Row{Principal: "alice", Tool: "t", Scopes: []string{"a", "b"}, Effect: grants.Allow}
	out := put(t, s, in)
	put(t, s, grants.Row{Principal: grants.AnyPrincipal, Tool: "u", Scopes: []string{"c"}, Effect: grants.Allow})
	// The caller's slices are its own: changing them changes nothing stored.
	in.Scopes[0] = "changed-in"
	out.Scopes[1] = "changed-out"

	snap := read(t, s, "alice")
	kept := cloneSnapshot(snap)
	if r, _ := find(snap, "alice", "t"); !sameScopes(r.Scopes, []string{"a", "b"}) {
		t.Errorf("GRANT-1: stored scopes %q changed with the caller's slices, want [a b]", r.Scopes)
	}

	put(t, s, grants.Row{Principal: "alice", Tool: "t", Scopes: []string{"z"}, Effect: grants.Deny})
	put(t, s, grants.Row{Principal: "alice", Tool: "v", Effect: grants.Allow})
	del(t, s, grants.AnyPrincipal, "u")
	read(t, s, "alice")
	if !sameSnapshot(snap, kept) {
		t.Errorf("GRANT-4: an earlier Snapshot changed after later writes:\n got %s\nwant %s", snapText(snap), snapText(kept))
	}
}

func testScopes(t *testing.T, s grants.Store) {
	for i, scopes := range [][]string{
		nil,
		{"read"},
		{"models:read", "models:write", "https://api.example.com/auth/x"},
		{"!", "~", "#$%&'()*+,-./", "[]^_`{|}", "a=b;c"},
		{"z", "a", "m"},
	} {
		tool := fmt.Sprintf("tool-%d", i)
		put(t, s, grants.Row{Principal: "alice", Tool: tool, Scopes: scopes, Effect: grants.Allow})
		r, ok := find(read(t, s, "alice"), "alice", tool)
		if !ok || !sameScopes(r.Scopes, scopes) {
			t.Errorf("GRANT-1: scopes %q read back as %q, want the same set", scopes, r.Scopes)
		}
	}
}

// MalformedRows are rows Put must refuse, each with the MalformedError reason it breaks.
var malformedPuts = []struct {
	reason string
	row    grants.Row
}{
	{"principal", grants.Row{Tool: "t", Effect: grants.Allow}},
	{"tool", grants.Row{Principal: "alice", Effect: grants.Allow}},
	{"effect", grants.Row{Principal: "alice", Tool: "t"}},
	{"effect", grants.Row{Principal: "alice", Tool: "t", Effect: "Allow"}},
	{"effect", grants.Row{Principal: "alice", Tool: "t", Effect: "grant"}},
	{"scope", grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow, Scopes: []string{""}}},
	{"scope", grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow, Scopes: []string{"a b"}}},
	{"scope", grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow, Scopes: []string{`a"b`}}},
	{"scope", grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow, Scopes: []string{`a\b`}}},
	{"scope", grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow, Scopes: []string{"é"}}},
	{"scope", grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow, Scopes: []string{"a\x7f"}}},
	{"scope", grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow, Scopes: []string{"a\n"}}},
	{"scope", grants.Row{Principal: "alice", Tool: "t", Effect: grants.Deny, Scopes: []string{"x", "x"}}},
}

func testPutMalformed(t *testing.T, s grants.Store) {
	before := read(t, s, "alice").Revision
	for _, tc := range malformedPuts {
		_, err := s.Put(context.Background(), tc.row)
		var me *grants.MalformedError
		if !errors.Is(err, grants.ErrMalformed) || !errors.As(err, &me) || me.Reason != tc.reason {
			t.Errorf("GRANT-5: Put(%s) error = %v, want a *MalformedError with reason %q", rowText(tc.row), err, tc.reason)
		}
	}
	snap := read(t, s, "alice")
	if snap.Revision != before || len(snap.Rows) != 0 {
		t.Errorf("GRANT-5: refused Puts changed the store: revision %d→%d, rows %v", before, snap.Revision, keys(snap))
	}
}

func testCancelled(t *testing.T, s grants.Store) {
	put(t, s, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
	before := read(t, s, "alice")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if snap, err := s.ReadGrants(ctx, "alice"); err == nil || snap != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("GRANT-5: ReadGrants with a cancelled context = (%s, %v), want no Snapshot and an error matching context.Canceled", snapText(snap), err)
	}
	if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "u", Effect: grants.Allow}); err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("GRANT-4: Put with a cancelled context error = %v, want one matching context.Canceled", err)
	}
	if err := s.Delete(ctx, "alice", "t"); err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("GRANT-4: Delete with a cancelled context error = %v, want one matching context.Canceled", err)
	}
	after := read(t, s, "alice")
	if after.Revision != before.Revision || !slices.Equal(keys(after), keys(before)) {
		t.Errorf("GRANT-4: writes with a cancelled context changed the store: revision %d→%d, rows %v→%v",
			before.Revision, after.Revision, keys(before), keys(after))
	}
}

func testConcurrentWriters(t *testing.T, s grants.Store) {
	const writers, each = 8, 25
	c0 := read(t, s, "alice").Revision
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		maxRev  = map[string]int64{} // tool → highest revision Put returned
		allRevs = map[int64]bool{}
		errs    []error
	)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				// Writers share some keys and own others.
				tool := fmt.Sprintf("shared-%d", i%3)
				if i%2 == 0 {
					tool = fmt.Sprintf("own-%d-%d", w, i)
				}
				r, err := s.Put(context.Background(), grants.Row{Principal: "alice", Tool: tool, Effect: grants.Allow})
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					maxRev[tool] = max(maxRev[tool], r.Revision)
					allRevs[r.Revision] = true
				}
				mu.Unlock()
				if i%5 == 0 {
					if _, err := s.ReadGrants(context.Background(), "alice"); err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Errorf("GRANT-4: concurrent write or read failed: %v", err)
	}
	if len(errs) > 0 {
		return
	}
	snap := read(t, s, "alice")
	if want := c0 + writers*each; snap.Revision != want {
		t.Errorf("GRANT-4: control revision %d after %d concurrent writes from %d, want %d (an increment was lost)",
			snap.Revision, writers*each, c0, want)
	}
	for _, r := range snap.Rows {
		if r.Revision != maxRev[r.Tool] {
			t.Errorf("GRANT-4: row %s revision %d, want %d (the last write's)", r.Tool, r.Revision, maxRev[r.Tool])
		}
	}
	if len(snap.Rows) != len(maxRev) {
		t.Errorf("GRANT-4: %d rows after concurrent writes, want %d", len(snap.Rows), len(maxRev))
	}
}

func testTooManyRows(t *testing.T, s grants.Store) {
	// MaxRows applicable rows for alice: half her own, half AnyPrincipal's.
	for i := range grants.MaxRows {
		p := "alice"
		if i%2 == 1 {
			p = grants.AnyPrincipal
		}
		put(t, s, grants.Row{Principal: p, Tool: fmt.Sprintf("t%04d", i), Effect: grants.Allow})
	}
	put(t, s, grants.Row{Principal: "bob", Tool: "extra", Effect: grants.Allow})
	full, err := s.ReadGrants(context.Background(), "alice")
	if err != nil {
		t.Fatalf("GRANT-5: ReadGrants(alice) with exactly MaxRows applicable rows (and one row of bob) error: %v, want the MaxRows rows (the bound counts alice's and %q rows only)", err, grants.AnyPrincipal)
	}
	if n := len(full.Rows); n != grants.MaxRows {
		t.Fatalf("GRANT-5: ReadGrants(alice) read %d rows, want exactly MaxRows=%d (bob's row does not count)", n, grants.MaxRows)
	}
	put(t, s, grants.Row{Principal: grants.AnyPrincipal, Tool: "one-too-many", Effect: grants.Allow})
	snap, err := s.ReadGrants(context.Background(), "alice")
	if !errors.Is(err, grants.ErrTooManyRows) || snap != nil {
		t.Errorf("GRANT-5: ReadGrants with MaxRows+1 applicable rows = (%v rows, %v), want no Snapshot and ErrTooManyRows", rowsLen(snap), err)
	}
	// bob has 1 + MaxRows/2 + 1 applicable rows: still within the bound.
	if n := len(read(t, s, "bob").Rows); n != grants.MaxRows/2+2 {
		t.Errorf("GRANT-5: ReadGrants(bob) read %d rows, want %d", n, grants.MaxRows/2+2)
	}
}

func rowsLen(s *grants.Snapshot) int {
	if s == nil {
		return 0
	}
	return len(s.Rows)
}

func testListing(t *testing.T, s grants.Store) {
	l, ok := s.(grants.Lister)
	if !ok {
		t.Skip("the store does not implement grants.Lister")
	}
	list := func(principal, tool string) *grants.Listing {
		t.Helper()
		got, err := l.ListGrants(context.Background(), principal, tool)
		if err != nil {
			t.Fatalf("ListGrants(%q, %q) error: %v", principal, tool, err)
		}
		if got == nil || got.Revision < 1 {
			t.Fatalf("GRANT-4: ListGrants(%q, %q) = %+v, want a control revision >= 1", principal, tool, got)
		}
		return got
	}
	if got := list("", ""); len(got.Rows) != 0 {
		t.Errorf("ListGrants on an empty store = %s, want no rows", rowsText(got.Rows))
	}
	var want []grants.Row
	for _, r := range []grants.Row{
		{Principal: "bob", Tool: "t1", Effect: grants.Allow},
		{Principal: "alice", Tool: "t2", Effect: grants.Deny},
		{Principal: grants.AnyPrincipal, Tool: "t3", Effect: grants.Allow},
		{Principal: "alice", Tool: "t1", Scopes: []string{"b", "a"}, Effect: grants.Allow},
		{Principal: grants.AnyPrincipal, Tool: "t1", Scopes: []string{"a"}, Effect: grants.Allow},
	} {
		want = append(want, put(t, s, r))
	}
	grants.SortRows(want)
	check := func(principal, tool string, n int) {
		t.Helper()
		got := list(principal, tool)
		var w []grants.Row
		for _, r := range want {
			if (principal == "" || r.Principal == principal) && (tool == "" || r.Tool == tool) {
				w = append(w, r)
			}
		}
		if len(w) != n {
			t.Fatalf("kit bug: %d rows match (%q, %q), want %d", len(w), principal, tool, n)
		}
		if !slices.EqualFunc(got.Rows, w, sameRow) {
			t.Errorf("GRANT-1: ListGrants(%q, %q) rows = %s, want %s (sorted by principal, then tool)", principal, tool, rowsText(got.Rows), rowsText(w))
		}
		if rev := read(t, s, "alice").Revision; got.Revision != rev {
			t.Errorf("GRANT-4: ListGrants(%q, %q) revision %d, want the control revision %d", principal, tool, got.Revision, rev)
		}
	}
	check("", "", 5)
	check("alice", "", 2)
	check("", "t1", 3)
	check(grants.AnyPrincipal, "", 2)
	check("alice", "t1", 1)
	check("carol", "", 0)
	check("", "t9", 0)

	got := list("alice", "t1")
	got.Rows[0].Scopes[0] = "mutated"
	if again := list("alice", "t1"); slices.Contains(again.Rows[0].Scopes, "mutated") {
		t.Error("GRANT-1: a Listing's scopes alias the store's rows")
	}
	before := list("", "").Revision
	del(t, s, "bob", "t1")
	want = slices.DeleteFunc(want, func(r grants.Row) bool { return r.Principal == "bob" })
	check("", "", 4)
	if after := list("", "").Revision; after != before+1 {
		t.Errorf("GRANT-4: Listing revision %d after a delete, want %d", after, before+1)
	}
}
