package discovery_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// SPEC CONTRACT-2: DiscoverToolPinned checks the pin before the arguments: a stale pin
// answers contract_changed whatever the arguments; the right pin (or none) answers as
// DiscoverTool does, invalid arguments included; a grant failure comes first.
func TestDiscoverToolPinned(t *testing.T) {
	ctx := context.Background()
	cat, err := discovery.NewCatalog([]json.RawMessage{json.RawMessage(`{"name":"t","description":"a weather tool","inputSchema":{"type":"object"}}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: "p", Tool: "t", Effect: grants.Allow, Revision: 1})
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	p := grants.Principal{ID: "p"}
	want, err := d.DiscoverTool(ctx, p, json.RawMessage(`{"query":"weather"}`))
	if err != nil {
		t.Fatal(err)
	}
	stale := "sha256:" + strings.Repeat("0", 64)
	for _, tc := range []struct {
		args, pin string
		want      discovery.Code
	}{
		{`{"query":"weather"}`, stale, discovery.CodeContractChanged},
		{`{"query":""}`, stale, discovery.CodeContractChanged},
		{`{"nope":1}`, stale, discovery.CodeContractChanged},
		{`[`, stale, discovery.CodeContractChanged},
		{`{"query":""}`, want.ContractDigest, discovery.CodeInvalidParams},
		{`{"query":""}`, "", discovery.CodeInvalidParams},
		{`{"query":"weather"}`, want.ContractDigest, ""},
	} {
		res, err := d.DiscoverToolPinned(ctx, p, json.RawMessage(tc.args), tc.pin)
		if tc.want == "" {
			if err != nil || string(res.AppendJSON(nil)) != string(want.AppendJSON(nil)) {
				t.Errorf("DiscoverToolPinned(%s, right pin) = %v, want DiscoverTool's page", tc.args, err)
			}
			continue
		}
		wantCode(t, "DiscoverToolPinned("+tc.args+", "+tc.pin+")", err, tc.want)
	}
	off := discovery.New(&discovery.Options{Catalog: cat, Grants: store})
	_, err = off.DiscoverToolPinned(ctx, p, json.RawMessage(`{"query":"weather"}`), stale)
	wantCode(t, "switch off", err, discovery.CodeMethodNotFound)
	none := discovery.New(&discovery.Options{Enabled: true, Catalog: cat})
	_, err = none.DiscoverToolPinned(ctx, p, json.RawMessage(`{"query":""}`), stale)
	wantCode(t, "no grant store", err, discovery.CodeGrantsUnavailable)
}
