package mcpsdk_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
)

// FuzzHandler posts arbitrary bodies to the HTTP wrapper. Whatever the body: no panic;
// a body that is not a discover message reaches the SDK's handler byte for byte; a
// discover answer is a JSON-RPC response of at most 64 KiB whose HTTP status is its
// error's data.status (SPEC PAGE-1, ERR-1), or 202 with no body for a notification.
func FuzzHandler(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather","limit":2}}`,
		`{"jsonrpc":"2.0","id":"a","method":"multillm.tools.discover","params":{"query":"weather","extra":true}}`,
		`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"weather"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather"}}]`,
		`{"jsonrpc":"2.0","id":{},"method":"multillm.tools.discover","params":{"query":"x"}}`,
		`{"jsonrpc":"1.0","id":1,"method":"multillm.tools.discover","params":{"query":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"method":"multillm.tools.discover","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather","cursor":"AAAA"}}`,
		``, `null`, `{`, `{"method":1}`,
	} {
		f.Add([]byte(s))
	}
	fx, err := buildFixture(fixtureOptions{enabled: true, principal: alice})
	if err != nil {
		f.Fatal(err)
	}
	var passed []byte
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		passed, _ = io.ReadAll(r.Body)
		w.WriteHeader(299)
	})
	h := fx.a.Handler(next)
	f.Fuzz(func(t *testing.T, body []byte) {
		passed = nil
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == 299 {
			if !bytes.Equal(passed, body) {
				t.Fatalf("the SDK's handler got %q, want the body %q unchanged", passed, body)
			}
			return
		}
		out := rec.Body.Bytes()
		if rec.Code == http.StatusAccepted {
			if len(out) != 0 {
				t.Fatalf("202 with a body %q", out)
			}
			return
		}
		if len(out) > discovery.MaxResponseBytes {
			t.Fatalf("response of %d bytes", len(out))
		}
		var env struct {
			JSONRPC string          `json:"jsonrpc"`
			Result  json.RawMessage `json:"result"`
			Error   *rpcErr         `json:"error"`
		}
		if err := json.Unmarshal(out, &env); err != nil || env.JSONRPC != "2.0" {
			t.Fatalf("status %d, body %q: not a JSON-RPC response", rec.Code, out)
		}
		switch {
		case env.Error == nil && env.Result != nil && rec.Code == http.StatusOK:
		case env.Error != nil && env.Error.Data.Status == rec.Code && rec.Code >= 400:
		default:
			t.Fatalf("status %d with response %q", rec.Code, out)
		}
	})
}
