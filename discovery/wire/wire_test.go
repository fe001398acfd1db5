package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/discovery/wire"
	"github.com/deferredtools/deferredtools/grants"
)

var update = flag.Bool("update", false, "rewrite the README's section \"The discover method on the wire\"")

// wireTools is the catalog of the README's wire section: three short tools, two of them
// granted to everyone.
var wireTools = []json.RawMessage{
	json.RawMessage(`{"name":"get_weather","description":"Current weather of a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`),
	json.RawMessage(`{"name":"get_forecast","description":"Weather forecast of a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city"]}}`),
	json.RawMessage(`{"name":"delete_city","description":"Delete a city.","inputSchema":{"type":"object"}}`),
}

func wireDiscoverer(t testing.TB, enabled bool, withGrants bool) *discovery.Discoverer {
	t.Helper()
	cat, err := discovery.NewCatalog(wireTools, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &discovery.Options{Enabled: enabled, Catalog: cat}
	if withGrants {
		store := grants.NewMemory()
		for _, name := range []string{"get_weather", "get_forecast"} {
			store.Put(context.Background(), grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow, Revision: 1})
		}
		opts.Grants = store
	}
	return discovery.New(opts)
}

// call encodes req with the wire types, answers it with HandleJSONRPC and decodes the
// answer into a wire.Response, refusing any member the wire types lack.
func call(t testing.TB, d *discovery.Discoverer, req wire.Request) (raw []byte, status int, resp wire.Response) {
	t.Helper()
	msg, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, status = d.HandleJSONRPC(context.Background(), grants.Principal{ID: "ann"}, msg)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&resp); err != nil {
		t.Fatalf("decoding %s into wire.Response: %v", raw, err)
	}
	return raw, status, resp
}

// The wire types are the server's shapes: every member of a page and of an error
// decodes into them (unknown members refused), params encoded from them are accepted,
// and a cursor read through them fetches the next page. Their constants are the
// server's.
func TestWireTypesMatchServer(t *testing.T) {
	if wire.Method != discovery.DefaultMethod || wire.MaxLimit != discovery.MaxLimit {
		t.Fatalf("wire.Method, MaxLimit = %q, %d; discovery has %q, %d", wire.Method, wire.MaxLimit, discovery.DefaultMethod, discovery.MaxLimit)
	}
	d := wireDiscoverer(t, true, true)
	_, status, r1 := call(t, d, wire.Request{JSONRPC: "2.0", ID: 1, Method: wire.Method, Params: &wire.DiscoverParams{Query: "weather city", Limit: 1}})
	if status != 200 || r1.Result == nil || len(r1.Result.Tools) != 1 || r1.Result.NextCursor == "" ||
		!strings.HasPrefix(r1.Result.Meta.ContractDigest, "sha256:") || r1.Result.CacheScope != "private" {
		t.Fatalf("page 1: status %d, %+v", status, r1.Result)
	}
	_, status, r2 := call(t, d, wire.Request{JSONRPC: "2.0", ID: "b", Method: wire.Method, Params: &wire.DiscoverParams{Query: "weather city", Limit: 1, Cursor: r1.Result.NextCursor}})
	if status != 200 || r2.Result == nil || len(r2.Result.Tools) != 1 || r2.Result.NextCursor != "" || string(r2.ID) != `"b"` {
		t.Fatalf("page 2: status %d, id %s, %+v", status, r2.ID, r2.Result)
	}
	if bytes.Equal(r1.Result.Tools[0], r2.Result.Tools[0]) {
		t.Error("page 2 repeats page 1's tool")
	}
	_, status, r3 := call(t, d, wire.Request{JSONRPC: "2.0", ID: 3, Method: wire.Method, Params: &wire.DiscoverParams{Query: "weather", Limit: 99}})
	if status != 400 || r3.Error == nil || r3.Error.Message != "invalid_params" || r3.Error.Code != -32602 ||
		r3.Error.Data != (wire.ErrorData{Error: "invalid_params", Status: 400}) || r3.Result != nil {
		t.Fatalf("limit 99: status %d, %+v", status, r3.Error)
	}
	if got := r3.Error.Error(); got != "wire: invalid_params" {
		t.Errorf("Error() = %q", got)
	}
}

// wireSection renders the README's section from live answers: each request and its
// answer, pretty-printed, cursors replaced by a placeholder (they are random).
func wireSection(t testing.TB) string {
	t.Helper()
	d := wireDiscoverer(t, true, true)
	var b strings.Builder
	block := func(title string, v []byte) {
		var out bytes.Buffer
		if err := json.Indent(&out, v, "", "  "); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s\n\n```json\n%s\n```\n\n", title, out.String())
	}
	exchange := func(title string, dd *discovery.Discoverer, req wire.Request) wire.Response {
		msg, _ := json.Marshal(req)
		raw, status, resp := call(t, dd, req)
		block(title, msg)
		block(fmt.Sprintf("answers (HTTP status %d from `HandleJSONRPC`):", status), raw)
		return resp
	}
	r1 := exchange("A request (`limit` 1 to 16, default 16; `cursor` only for a next page):", d,
		wire.Request{JSONRPC: "2.0", ID: 1, Method: wire.Method, Params: &wire.DiscoverParams{Query: "weather city", Limit: 1}})
	exchange("The next page, with that cursor:", d,
		wire.Request{JSONRPC: "2.0", ID: 2, Method: wire.Method, Params: &wire.DiscoverParams{Query: "weather city", Limit: 1, Cursor: r1.Result.NextCursor}})
	b.WriteString("Errors have one shape; `message` and `data.error` are the code word of the table under Errors:\n\n")
	exchange("A limit out of range:", d,
		wire.Request{JSONRPC: "2.0", ID: 3, Method: wire.Method, Params: &wire.DiscoverParams{Query: "weather", Limit: 99}})
	exchange("A cursor altered, expired (120 s) or sent with another query:", d,
		wire.Request{JSONRPC: "2.0", ID: 4, Method: wire.Method, Params: &wire.DiscoverParams{Query: "forecast", Cursor: r1.Result.NextCursor}})
	exchange("Grant storage unavailable (fail closed, never an empty list):", wireDiscoverer(t, true, false),
		wire.Request{JSONRPC: "2.0", ID: 5, Method: wire.Method, Params: &wire.DiscoverParams{Query: "weather"}})
	off, _ := json.Marshal(wire.Request{JSONRPC: "2.0", ID: 6, Method: wire.Method, Params: &wire.DiscoverParams{Query: "weather"}})
	if raw, status := wireDiscoverer(t, false, true).HandleJSONRPC(context.Background(), grants.Principal{ID: "ann"}, off); status != 0 || raw != nil {
		t.Fatalf("switched off: status %d, %s; want 0 and nothing", status, raw)
	}
	b.WriteString("While discovery is switched off, `HandleJSONRPC` answers status 0 and no bytes: the message is\n" +
		"your server's, which answers it as any unknown method (`-32601`); the mcpsdk adapter leaves it to the SDK.\n")
	// Cursors are random: the README shows a placeholder.
	return strings.ReplaceAll(b.String(), r1.Result.NextCursor, "<opaque: pass it back as it is>")
}

const (
	sectionBegin = "<!-- wire: generated by TestREADMEWireSection in discovery/wire; go test ./discovery/wire -run README -update -->\n"
	sectionEnd   = "<!-- wire: end -->"
)

// The README's section "The discover method on the wire" is what the server answers:
// it is generated from live HandleJSONRPC answers and fails when the two differ (run
// with -update to rewrite it after a deliberate change).
func TestREADMEWireSection(t *testing.T) {
	const path = "../../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(readme, []byte(sectionBegin))
	j := bytes.Index(readme, []byte(sectionEnd))
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the generated wire section (markers %q ... %q)", sectionBegin, sectionEnd)
	}
	want := wireSection(t)
	got := string(readme[i+len(sectionBegin) : j])
	if got == want {
		return
	}
	if *update {
		out := append([]byte{}, readme[:i+len(sectionBegin)]...)
		out = append(out, want...)
		out = append(out, readme[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's wire section differs from the server's answers; run go test ./discovery/wire -run README -update\n--- want:\n%s", want)
}
