package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// SPEC CURSOR-5, ERR-1: with RevisionSync on, a read without a control revision, or
// with one older than a revision already confirmed, answers grants_unavailable (503)
// whose cause a host can tell with errors.Is: ErrRevisionUnavailable, which is also
// grants.ErrUnavailable. Before, the cause matched no exported sentinel.
func TestRevisionUnavailableSentinel(t *testing.T) {
	ctx := context.Background()
	cat, err := discovery.NewCatalog([]json.RawMessage{json.RawMessage(`{"name":"t","description":"a tool","inputSchema":{"type":"object"}}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := []grants.Row{{Principal: "p", Tool: "t", Effect: grants.Allow, Revision: 1}}
	rev := int64(5)
	r := readerFunc(func(context.Context, string) (*grants.Snapshot, error) {
		return &grants.Snapshot{Revision: rev, Rows: rows}, nil
	})
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: r, RevisionSync: true, GrantTimeout: -1})
	p := grants.Principal{ID: "p"}
	if _, err := d.ListTools(ctx, p); err != nil {
		t.Fatalf("ListTools at revision 5: %v", err)
	}
	for _, tc := range []struct {
		name string
		rev  int64
	}{{"missing revision", 0}, {"stale revision", 4}} {
		rev = tc.rev
		_, err := d.ListTools(ctx, p)
		for _, want := range []error{discovery.ErrRevisionUnavailable, grants.ErrUnavailable, discovery.CodeGrantsUnavailable} {
			if !errors.Is(err, want) {
				t.Errorf("%s: ListTools = %v, want errors.Is(err, %v)", tc.name, err, want)
			}
		}
		resp, status := d.HandleJSONRPC(ctx, p, []byte(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"tool"}}`))
		if status != 503 {
			t.Errorf("%s: discover status %d, want 503 (%s)", tc.name, status, resp)
		}
	}
	if got := discovery.ErrRevisionUnavailable.Error(); got != "discovery: grant revision unavailable or stale" {
		t.Errorf("ErrRevisionUnavailable text %q", got)
	}
}
