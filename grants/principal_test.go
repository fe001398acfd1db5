package grants_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
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
