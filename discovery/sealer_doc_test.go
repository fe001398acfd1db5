package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// Sealer's doc: two Discoverers (two processes) sharing one Sealer accept each other's
// cursors with Options.RevisionSync on; off, each binds its cursors to a revision of
// its own, so the other answers invalid_cursor.
func TestSharedSealerNeedsRevisionSync(t *testing.T) {
	ctx := context.Background()
	var tools []json.RawMessage
	for i := range 6 {
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":"model_tool_%d","description":"Search the model registry %d.","inputSchema":{"type":"object"}}`, i, i)))
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	for i := range 6 {
		if _, err := store.Put(ctx, grants.Row{Principal: "ana", Tool: fmt.Sprintf("model_tool_%d", i), Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	ana := grants.Principal{ID: "ana"}
	for _, sync := range []bool{true, false} {
		sealer := cursor.NewSigner()
		newD := func() *discovery.Discoverer {
			return discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, Signer: sealer, RevisionSync: sync})
		}
		a, b := newD(), newD()
		first, err := a.Discover(ctx, ana, discovery.Request{Query: "model registry", Limit: 2})
		if err != nil || first.NextCursor == "" {
			t.Fatalf("RevisionSync %v: first page %v, %v; want a next cursor", sync, first, err)
		}
		_, err = b.Discover(ctx, ana, discovery.Request{Query: "model registry", Limit: 2, Cursor: first.NextCursor})
		if sync && err != nil {
			t.Errorf("RevisionSync on: the other Discoverer refuses the shared Sealer's cursor: %v", err)
		}
		if !sync && !errors.Is(err, discovery.CodeInvalidCursor) {
			t.Errorf("RevisionSync off: the other Discoverer answers %v, want invalid_cursor", err)
		}
		if _, err := a.Discover(ctx, ana, discovery.Request{Query: "model registry", Limit: 2, Cursor: first.NextCursor}); err != nil {
			t.Errorf("RevisionSync %v: the issuing Discoverer refuses its own cursor: %v", sync, err)
		}
	}
}
