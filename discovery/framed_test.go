package discovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// SPEC PAGE-1: DiscoverFramed sizes the page for the id length it is given exactly as
// AppendJSONRPC sizes it for the message's id: framed with that id, its page is
// AppendJSONRPC's response byte for byte, at most MaxResponseBytes, on full pages and
// for ids from one byte to the longest an error response can carry.
func TestDiscoverFramed(t *testing.T) {
	ctx := context.Background()
	var tools []json.RawMessage
	for i := range 60 {
		desc := fmt.Sprintf("tool %d searches widgets ", i) + strings.Repeat("widget search words ", 250)
		tools = append(tools, toolDef(fmt.Sprintf("widget_search_%02d", i), desc))
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows []grants.Row
	for _, n := range cat.Names() {
		rows = append(rows, allow("alice", n))
	}
	d := newDiscoverer(cat, newStore(t, rows...), nil)
	alice := grants.Principal{ID: "alice"}
	params := []byte(`{"query":"widget search","limit":16}`)
	for _, n := range []int{1, 7, discovery.MaxIDBytes, 5000, 40000, discovery.MaxResponseBytes - 256} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			id := strings.Repeat("7", n) // a number of n digits, or a string of n bytes
			if n > 2 {
				id = `"` + strings.Repeat("i", n-2) + `"`
			}
			msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + discovery.DefaultMethod + `","params":` + string(params) + `}`
			want, status := d.HandleJSONRPC(ctx, alice, []byte(msg))
			res, err := d.DiscoverFramed(ctx, alice, params, len(id))
			if status != 200 {
				var e *discovery.Error
				if !errors.As(err, &e) || e.Code.Status() != status {
					t.Fatalf("HandleJSONRPC: status %d; DiscoverFramed: %v, want the same refusal", status, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("DiscoverFramed: %v", err)
			}
			got := []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":`)
			got = append(res.AppendJSON(got), '}')
			// Cursors are sealed afresh each time: same length, other bytes.
			if len(got) != len(want) || len(got) > discovery.MaxResponseBytes ||
				!bytes.Equal(got[:bytes.Index(got, []byte(`,"nextCursor"`))], want[:bytes.Index(want, []byte(`,"nextCursor"`))]) {
				t.Errorf("DiscoverFramed framed: %d bytes, HandleJSONRPC: %d bytes; want the same page within %d", len(got), len(want), discovery.MaxResponseBytes)
			}
			if len(got) < discovery.MaxResponseBytes-6000 {
				t.Errorf("the page is %d bytes: not full enough to test sizing", len(got))
			}
		})
	}
	for _, n := range []int{-1, discovery.MaxResponseBytes - 255} {
		var e *discovery.Error
		if _, err := d.DiscoverFramed(ctx, alice, params, n); !errors.As(err, &e) || e.Code != discovery.CodeInvalidRequest {
			t.Errorf("DiscoverFramed(id length %d) = %v, want invalid_request", n, err)
		}
	}
	_, err = d.DiscoverFramed(ctx, alice, []byte(`{"query":"x","query":"y"}`), 1)
	wantCode(t, "DiscoverFramed(duplicate query)", err, discovery.CodeInvalidParams)
	off := newDiscoverer(cat, newStore(t, rows...), func(o *discovery.Options) { o.Enabled = false })
	_, err = off.DiscoverFramed(ctx, alice, params, 1)
	wantCode(t, "DiscoverFramed while off", err, discovery.CodeMethodNotFound)
	_, err = off.DiscoverFramed(ctx, alice, params, -1) // the switch decides first (FLAG-2)
	wantCode(t, "DiscoverFramed(id length -1) while off", err, discovery.CodeMethodNotFound)
}
