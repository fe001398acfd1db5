package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// SPEC ERR-1: ResponseStatus reads the status of HandleJSONRPC's own responses: 200 for
// a page, even one whose tools or id hold "error" members or text, and each refusal's
// status otherwise.
func TestResponseStatus(t *testing.T) {
	ctx := context.Background()
	tool := json.RawMessage(`{"name":"report_error","description":"report an error","inputSchema":{"type":"object","properties":{"error":{"type":"object","properties":{"status":{"type":"integer"}}}}}}`)
	cat, err := discovery.NewCatalog([]json.RawMessage{tool}, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	if _, err := store.Put(ctx, grants.Row{Principal: "p", Tool: "report_error", Effect: grants.Allow}); err != nil {
		t.Fatal(err)
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	p := grants.Principal{ID: "p"}
	for _, tc := range []struct {
		msg  string
		want int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"report error"}}`, http.StatusOK},
		{`{"jsonrpc":"2.0","id":"x\",\"error\":{","method":"multillm.tools.discover","params":{"query":"error"}}`, http.StatusOK},
		{`{"jsonrpc":"2.0","id":2,"method":"multillm.tools.discover","params":{"query":"x","limit":99}}`, http.StatusBadRequest},
		{`{"jsonrpc":"2.0","id":"\"status\":503}}}","method":"multillm.tools.discover","params":{"query":"x","cursor":"AAAA"}}`, http.StatusBadRequest},
		{`{"jsonrpc":"2.0","id":null,"method":"multillm.tools.discover","params":{"query":"x"}}`, http.StatusBadRequest},
	} {
		resp, handled := d.HandleJSONRPC(ctx, p, []byte(tc.msg))
		if !handled || resp == nil {
			t.Fatalf("HandleJSONRPC(%s) handled=%v", tc.msg, handled)
		}
		if got := discovery.ResponseStatus(resp); got != tc.want {
			t.Errorf("ResponseStatus(%s) = %d, want %d", resp, got, tc.want)
		}
	}
	for _, tc := range []struct {
		err  error
		want int
	}{
		{discovery.ErrToolNotGranted, http.StatusForbidden},
		{discovery.ErrGrantsChanged, http.StatusConflict},
		{discovery.ErrSchemaTooLarge, http.StatusRequestEntityTooLarge},
		{discovery.ErrGrantsUnavailable, http.StatusServiceUnavailable},
		{errors.New("a host's own error"), http.StatusInternalServerError},
	} {
		resp := discovery.AppendJSONRPCError(nil, json.RawMessage(`"id"`), tc.err)
		if got := discovery.ResponseStatus(resp); got != tc.want {
			t.Errorf("ResponseStatus(%s) = %d, want %d", resp, got, tc.want)
		}
	}
}
