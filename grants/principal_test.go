package grants_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// SPEC GRANT-2: a Principal whose ID is empty has no rows of its own (no row may name
// the empty principal), so the AnyPrincipal rows decide for it, as the package doc
// says; refusing an unauthenticated caller is the host's, before Resolve.
func TestResolveEmptyPrincipalID(t *testing.T) {
	ctx := context.Background()
	m := grants.NewMemory()
	if _, err := m.Put(ctx, row(grants.AnyPrincipal, "public", grants.Allow)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Put(ctx, row("alice", "private", grants.Allow)); err != nil {
		t.Fatal(err)
	}
	snap, err := m.ReadGrants(ctx, "")
	if err != nil {
		t.Fatalf(`ReadGrants(ctx, "") = %v, want the AnyPrincipal rows`, err)
	}
	d, err := grants.Resolve(snap, grants.Principal{})
	if err != nil {
		t.Fatalf("Resolve(snap, Principal{}) = %v, want a decision", err)
	}
	if !d.Allows("public") || d.Allows("private") {
		t.Errorf(`Principal{}: Allows("public") = %v, Allows("private") = %v, want true, false`,
			d.Allows("public"), d.Allows("private"))
	}
	_, err = m.Put(ctx, row("", "private", grants.Allow))
	var me *grants.MalformedError
	if !errors.As(err, &me) || me.Reason != "principal" {
		t.Errorf(`Put of a row naming principal "" = %v, want a *MalformedError "principal"`, err)
	}
}

// SPEC GRANT-4, GRANT-5: the zero Memory is an empty store at control revision 1, as
// NewMemory's is, and passes the conformance kit; &grants.Memory{} must not panic on
// its first read or write.
func TestMemoryZeroValue(t *testing.T) {
	grantstest.Run(t, func(*testing.T) grants.Store { return new(grants.Memory) })
	var m grants.Memory
	snap, err := m.ReadGrants(context.Background(), "alice")
	if err != nil || snap.Revision != 1 || len(snap.Rows) != 0 {
		t.Errorf("zero Memory: ReadGrants = (%+v, %v), want no rows at revision 1", snap, err)
	}
	l, err := new(grants.Memory).ListGrants(context.Background(), "", "")
	if err != nil || l.Revision != 1 || len(l.Rows) != 0 {
		t.Errorf("zero Memory: ListGrants = (%+v, %v), want no rows at revision 1", l, err)
	}
}
