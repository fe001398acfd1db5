package grantstest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// The conformance kit's helpers: reading and writing rows with the test failing on an
// error, and comparing and printing rows and snapshots.

// read reads principal's grants and fails the test on any error, or when the Snapshot
// breaks the row model.
func read(t *testing.T, s grants.Reader, principal string) *grants.Snapshot {
	t.Helper()
	snap, err := s.ReadGrants(context.Background(), principal)
	if err != nil {
		t.Fatalf("ReadGrants(%q) error: %v", principal, err)
	}
	if snap == nil {
		t.Fatalf("GRANT-5: ReadGrants(%q) = nil Snapshot and no error", principal)
	}
	if snap.Revision < 1 {
		t.Fatalf("GRANT-4: ReadGrants(%q).Revision = %d, want a control revision >= 1", principal, snap.Revision)
	}
	for _, r := range snap.Rows {
		if err := grants.CheckRow(r); err != nil {
			t.Fatalf("GRANT-1: ReadGrants(%q) returned row %s that fails CheckRow: %v", principal, rowText(r), err)
		}
	}
	return snap
}

func put(t *testing.T, s grants.Store, r grants.Row) grants.Row {
	t.Helper()
	got, err := s.Put(context.Background(), r)
	if err != nil {
		t.Fatalf("Put(%s) error: %v", rowText(r), err)
	}
	return got
}

func del(t *testing.T, s grants.Store, principal, tool string) {
	t.Helper()
	if err := s.Delete(context.Background(), principal, tool); err != nil {
		t.Fatalf("Delete(%q, %q) error: %v", principal, tool, err)
	}
}

// find returns the row keyed by (principal, tool) in snap.
func find(snap *grants.Snapshot, principal, tool string) (grants.Row, bool) {
	for _, r := range snap.Rows {
		if r.Principal == principal && r.Tool == tool {
			return r, true
		}
	}
	return grants.Row{}, false
}

// sameRow reports whether a and b are equal, scopes compared as sets.
func sameRow(a, b grants.Row) bool {
	return a.Principal == b.Principal && a.Tool == b.Tool && a.Effect == b.Effect &&
		a.Revision == b.Revision && sameScopes(a.Scopes, b.Scopes)
}

func sameScopes(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// keys lists snap's row keys, sorted, for messages and comparisons.
// rowText prints r with its strings quoted, so an empty scope, a space or a control
// character in a failure message stays visible (%+v prints [""] as []).
func rowText(r grants.Row) string {
	return fmt.Sprintf("{Principal:%q Tool:%q Scopes:%q Effect:%q Revision:%d}", r.Principal, r.Tool, r.Scopes, r.Effect, r.Revision)
}

// rowsText prints rows as rowText does, in order.
func rowsText(rows []grants.Row) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = rowText(r)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// snapText prints a Snapshot's revision and rows as rowsText does.
func snapText(snap *grants.Snapshot) string {
	if snap == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{Revision:%d Rows:%s}", snap.Revision, rowsText(snap.Rows))
}

func keys(snap *grants.Snapshot) []string {
	var ks []string
	for _, r := range snap.Rows {
		ks = append(ks, r.Principal+"/"+r.Tool)
	}
	sort.Strings(ks)
	return ks
}
