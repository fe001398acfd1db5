package discovery_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// SPEC ERR-1: HandleJSONRPC reports the HTTP status of its response, so that no host
// parses it: 200 for a page, even one whose tools or id hold "error" members or text,
// and each refusal's status otherwise, the one its data.status carries.
func TestHandleJSONRPCStatus(t *testing.T) {
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
		resp, status := d.HandleJSONRPC(ctx, p, []byte(tc.msg))
		if status != tc.want || resp == nil {
			t.Errorf("HandleJSONRPC(%s) = %.80s, status %d, want %d", tc.msg, resp, status, tc.want)
		}
		var r struct {
			Error *struct {
				Data struct{ Status int }
			}
		}
		if err := json.Unmarshal(resp, &r); err != nil {
			t.Fatalf("HandleJSONRPC(%s): %v", tc.msg, err)
		}
		if r.Error != nil && r.Error.Data.Status != status {
			t.Errorf("HandleJSONRPC(%s) reports status %d, its data.status is %d", tc.msg, status, r.Error.Data.Status)
		}
	}
}
