package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/discovery/wire"
	"github.com/deferredtools/deferredtools/grants"
)

// A plain JSON-RPC client pages through discover results over HTTP with the wire
// types; the server is a Discoverer behind an http.Handler.
func Example() {
	ctx := context.Background()
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"get_weather","description":"Current weather of a city.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"get_forecast","description":"Weather forecast of a city.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"get_alerts","description":"Weather alerts of a city.","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	store := grants.NewMemory()
	for _, name := range cat.Names() {
		store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow})
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		resp, status := d.HandleJSONRPC(r.Context(), grants.Principal{ID: "ann"}, body) // your authentication
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(resp)
	}))
	defer srv.Close()

	params := &wire.DiscoverParams{Query: "weather of a city", Limit: 2}
	for id := 1; ; id++ {
		body, _ := json.Marshal(wire.Request{JSONRPC: "2.0", ID: id, Method: wire.Method, Params: params})
		httpResp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		var resp wire.Response
		err = json.NewDecoder(httpResp.Body).Decode(&resp)
		httpResp.Body.Close()
		if err != nil {
			log.Fatal(err)
		}
		if resp.Error != nil {
			log.Fatal(resp.Error)
		}
		fmt.Printf("page %d: %d tools, digest %.7s, more: %t\n", id, len(resp.Result.Tools), resp.Result.Meta.ContractDigest, resp.Result.NextCursor != "")
		if resp.Result.NextCursor == "" {
			break
		}
		params.Cursor = resp.Result.NextCursor
	}
	// Output:
	// page 1: 2 tools, digest sha256:, more: true
	// page 2: 1 tools, digest sha256:, more: false
}
