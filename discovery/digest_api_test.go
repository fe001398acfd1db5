package discovery_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// SPEC CONTRACT-2: ListResult.AppendDigests gives the digest of each listed definition,
// in order, with the switch on (a meta tool's narrowed definition, Visibility applied)
// and off, and for a ListResult made by hand; it appends to dst.
func TestListResultAppendDigests(t *testing.T) {
	ctx := context.Background()
	cat := metaCatalog(t, metaDecls())
	store := newStore(t, allow("alice", "issue.list"), allow("alice", "repo.get"), allow("alice", "echo"))
	for name, d := range map[string]*discovery.Discoverer{
		"on":         newDiscoverer(cat, store, nil),
		"visibility": newDiscoverer(cat, store, func(o *discovery.Options) { o.Visibility.Exclude = []string{"echo"} }),
		"off":        newDiscoverer(cat, store, func(o *discovery.Options) { o.Enabled = false }),
	} {
		list, err := d.ListTools(ctx, alice)
		if err != nil {
			t.Fatalf("%s: ListTools: %v", name, err)
		}
		checkDigests(t, name, list)
	}
	checkDigests(t, "by hand", &discovery.ListResult{Tools: []json.RawMessage{toolDef("a", "A."), toolDef("b", "B.")}})
}

func checkDigests(t *testing.T, name string, list *discovery.ListResult) {
	t.Helper()
	first := [32]byte{1}
	got := list.AppendDigests([][32]byte{first})
	if len(got) != len(list.Tools)+1 || got[0] != first {
		t.Fatalf("%s: AppendDigests gave %d digests after dst's %d for %d tools", name, len(got)-1, 1, len(list.Tools))
	}
	for i, def := range list.Tools {
		if got[i+1] != schemaguard.Digest(def) {
			t.Errorf("%s: digest %d is not the one of %s", name, i, def)
		}
	}
	if list.Catalog != nil && list.ContractDigest != schemaguard.ContractDigest(got[1:]) {
		t.Errorf("%s: the digests do not make the contract digest %s", name, list.ContractDigest)
	}
}
