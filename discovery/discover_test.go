package discovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/google/go-cmp/cmp"
)

// helperTools returns n tools "helper_00".."helper_nn" that all match the query "model".
func helperTools(n int) []json.RawMessage {
	tools := make([]json.RawMessage, n)
	for i := range tools {
		tools[i] = toolDef(fmt.Sprintf("helper_%02d", i), fmt.Sprintf("Model helper number %d of the registry.", i))
	}
	return tools
}

// allGranted returns a store with a "*" allow row, without scopes, for every tool of cat.
func allGranted(t testing.TB, cat *discovery.Catalog) *grants.Memory {
	t.Helper()
	var rows []grants.Row
	for _, n := range cat.Names() {
		rows = append(rows, allow("*", n))
	}
	return newStore(t, rows...)
}

// SPEC DISC-1: params are {"query", "limit"?, "cursor"?}; MCP's _meta is allowed and
// ignored on every path of the method, and refused in the discovery tool's arguments;
// any other member, a member twice, trailing data or anything but an object is
// invalid params (-32602, 400). Member names are exact (no case folding).
func TestDiscoverParamsMembers(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	ref, err := d.DiscoverParams(ctx, alice, json.RawMessage(`{"query":"model registry"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{
		`{"query":"model registry","_meta":{"progressToken":"abc","x":[1,{"y":null}]}}`,
		`{"_meta":null,"query":"model registry"}`,
		`{"_meta":"anything","query":"model registry","limit":16}`,
		" \n{ \"query\" : \"model registry\" }\n ",
	} {
		res, err := d.DiscoverParams(ctx, alice, json.RawMessage(ok))
		if err != nil {
			t.Errorf("DiscoverParams(%s) = %v, want a page", ok, err)
			continue
		}
		if !bytes.Equal(res.AppendJSON(nil), ref.AppendJSON(nil)) {
			t.Errorf("DiscoverParams(%s) differs from the same query without _meta", ok)
		}
		// Every path of the method allows _meta; the discovery tool's arguments do not
		// (its served schema has no such property: TestToolSchemaIsEnforced).
		if framed, err := d.DiscoverFramed(ctx, alice, json.RawMessage(ok), 1); err != nil || len(framed.Tools) != len(ref.Tools) {
			t.Errorf("DiscoverFramed(%s) = %v, want the page", ok, err)
		}
		msg := `{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":` + ok + `}`
		if out, status := d.AppendJSONRPC(ctx, nil, alice, []byte(msg)); status != http.StatusOK || !bytes.Contains(out, []byte(`"result"`)) {
			t.Errorf("AppendJSONRPC(%s) = %d %s, want a page", msg, status, out)
		}
		_, err = d.DiscoverTool(ctx, alice, json.RawMessage(ok))
		if strings.Contains(ok, "_meta") {
			wantCode(t, "DiscoverTool("+ok+")", err, discovery.CodeInvalidParams)
		} else if err != nil {
			t.Errorf("DiscoverTool(%s) = %v, want a page", ok, err)
		}
	}
	for _, bad := range []string{
		`{"query":"model","extra":1}`,
		`{"query":"model","Query":"model"}`,
		`{"QUERY":"model"}`,
		`{"query":"model","Limit":3}`,
		`{"query":"model","meta":{}}`,
		`{"query":"model","query":"model"}`,
		`{"query":"model","query":"other"}`,
		`{"query":"model","limit":2,"limit":2}`,
		`{"query":"model","cursor":"a","cursor":"a"}`,
		`{"query":"model","_meta":{},"_meta":{}}`,
		`{"query":"model"} x`,
		`{"query":"model"}{}`,
		`{"query":"model"}}`,
		`{"query":"model"`,
		`{"query":"model",}`,
		`[{"query":"model"}]`,
		`"model"`,
		`null`,
		``,
		`{}`,
		`{"limit":3}`,
		`{"query":null}`,
		`{"query":["model"]}`,
		`{"query":"model","cursor":null}`,
		`{"query":"model","cursor":7}`,
		"{\"query\":\"mod\xffel\"}",
	} {
		res, err := d.DiscoverParams(ctx, alice, json.RawMessage(bad))
		if res != nil {
			t.Errorf("DiscoverParams(%s) returned a page", bad)
		}
		wantCode(t, fmt.Sprintf("DiscoverParams(%s)", bad), err, discovery.CodeInvalidParams)
	}
}

// SPEC DISC-1: the host may rename the method; HandleJSONRPC answers only that name.
func TestMethodRename(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	d := newDiscoverer(cat, allGranted(t, cat), func(o *discovery.Options) { o.Method = "acme.search" })
	if d.Method() != "acme.search" {
		t.Errorf("Method() = %q", d.Method())
	}
	if discovery.New(nil).Method() != "multillm.tools.discover" {
		t.Errorf("default Method() = %q, want multillm.tools.discover", discovery.New(nil).Method())
	}
	if _, status := d.HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model"}}`)); status != 0 {
		t.Errorf("the default method name was handled after a rename")
	}
	resp, status := d.HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","id":1,"method":"acme.search","params":{"query":"model"}}`))
	if status != http.StatusOK || !bytes.Contains(resp, []byte(`"result":{"tools":[`)) {
		t.Errorf("renamed method: %s, %d", resp, status)
	}
}

// SPEC DISC-2: query is 1..500 code points without Cc characters; limit is an integral
// JSON number in 1..16, default 16. Everything else is invalid params.
func TestDiscoverQueryAndLimit(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, helperTools(40)...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)

	queries := []struct {
		q  string
		ok bool
	}{
		{"", false},
		{"model", true},
		{" ", true},
		{strings.Repeat("é", 500), true},
		{strings.Repeat("é", 501), false},
		{strings.Repeat("日", 500), true},
		{strings.Repeat("日", 501), false},
		{strings.Repeat("😀", 500), true},
		{strings.Repeat("😀", 501), false},
		{strings.Repeat("e\u0301", 250), true}, // 500 code points, 250 characters as seen
		{strings.Repeat("e\u0301", 250) + "e", false},
		{strings.Repeat("a", 500), true},
		{strings.Repeat("a", 501), false},
		{"model\u0000", false},
		{"\u0000", false},
		{"mo\tdel", false},
		{"model\n", false},
		{"model\r", false},
		{"\u001f model", false},
		{"model\u007f", false},
		{"model\u0085", false},
		{"model\u009f", false},
		{"model\u00a0search", true},
		{"model\u200bsearch", true},
		{"model\u2028search", true},
		{"mod\xffel", false},
	}
	for _, tc := range queries {
		_, err := d.Discover(ctx, alice, discovery.Request{Query: tc.q})
		params, _ := json.Marshal(map[string]string{"query": tc.q})
		_, perr := d.DiscoverParams(ctx, alice, params)
		name := fmt.Sprintf("query %+q (%d bytes)", truncate(tc.q), len(tc.q))
		if tc.ok {
			if err != nil || perr != nil {
				t.Errorf("%s: Discover = %v, DiscoverParams = %v; want pages", name, err, perr)
			}
		} else {
			wantCode(t, name+": Discover", err, discovery.CodeInvalidParams)
			if utf8OK(tc.q) { // json.Marshal repairs invalid UTF-8: not the same query
				wantCode(t, name+": DiscoverParams", perr, discovery.CodeInvalidParams)
			}
		}
	}
	// Escaped control characters in the JSON text are control characters too.
	for _, p := range []string{`{"query":"a\u0000b"}`, `{"query":"a\u0085"}`, `{"query":"\t"}`} {
		_, err := d.DiscoverParams(ctx, alice, json.RawMessage(p))
		wantCode(t, "DiscoverParams("+p+")", err, discovery.CodeInvalidParams)
	}

	limits := []struct {
		limit string
		n     int // tools on the page; 0: invalid params
	}{
		{"", 16},
		{`1`, 1},
		{`3`, 3},
		{`16`, 16},
		{`16.0`, 16},
		{`1.6e1`, 16},
		{`1.6E+1`, 16},
		{`160e-1`, 16},
		{`1e1`, 10},
		{`2.000`, 2},
		{`0`, 0},
		{`-0`, 0},
		{`0.0`, 0},
		{`-1`, 0},
		{`17`, 0},
		{`100`, 0},
		{`1.5`, 0},
		{`16.00000000000000001`, 0},
		{`1e400`, 0},
		{`1e-400`, 0},
		{`3` + strings.Repeat("0", 20000) + `e-20000`, 3},  // a five-digit exponent that the digits earn
		{`0.` + strings.Repeat("0", 20000) + `3e20001`, 3}, // and the same from the other side
		{`"3"`, 0},
		{`null`, 0},
		{`true`, 0},
		{`[3]`, 0},
		{`{}`, 0},
	}
	for _, tc := range limits {
		p := `{"query":"model helper"}`
		if tc.limit != "" {
			p = `{"query":"model helper","limit":` + tc.limit + `}`
		}
		res, err := d.DiscoverParams(ctx, alice, json.RawMessage(p))
		if tc.n == 0 {
			wantCode(t, "limit "+tc.limit, err, discovery.CodeInvalidParams)
			continue
		}
		if err != nil {
			t.Errorf("limit %s: %v", tc.limit, err)
			continue
		}
		if len(res.Tools) != tc.n || res.NextCursor == "" {
			t.Errorf("limit %s: %d tools, cursor %v; want %d and a cursor", tc.limit, len(res.Tools), res.NextCursor != "", tc.n)
		}
	}
	for _, tc := range []struct{ limit, n int }{{0, 16}, {1, 1}, {16, 16}, {17, 0}, {-1, 0}, {1 << 40, 0}} {
		res, err := d.Discover(ctx, alice, discovery.Request{Query: "model", Limit: tc.limit})
		if tc.n == 0 {
			wantCode(t, fmt.Sprintf("Request.Limit %d", tc.limit), err, discovery.CodeInvalidParams)
		} else if err != nil || len(res.Tools) != tc.n {
			t.Errorf("Request.Limit %d: %v, want %d tools", tc.limit, err, tc.n)
		}
	}
}

func truncate(s string) string {
	if r := []rune(s); len(r) > 12 {
		return string(r[:12]) + "…"
	}
	return s
}

func utf8OK(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// SPEC DISC-3: the result is {"tools": [...], "nextCursor"?, "_meta": {"contract_digest"}}
// in a JSON-RPC 2.0 envelope, with the SEP-2549 cache hints "ttlMs":0 and
// "cacheScope":"private" (a page is one principal's); each tool is byte for byte what
// ListTools serves for it, complete (annotations, _meta, outputSchema, title), and the
// digest is ListTools'.
func TestDiscoverResultShape(t *testing.T) {
	ctx := t.Context()
	rich := json.RawMessage(`{"name":"model_card","title":"Model card","description":"Render the model card of a registry model.",
		"inputSchema":{"type":"object","properties":{"model":{"type":"string","description":"Model id"}},"required":["model"]},
		"outputSchema":{"type":"object","properties":{"markdown":{"type":"string"}}},
		"annotations":{"readOnlyHint":true,"openWorldHint":false,"title":"Card"},
		"_meta":{"vendor/x":{"k":[1,2,3]}}}`)
	tools := append(sampleTools(), rich)
	cat := newCatalog(t, tools...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	list, err := d.ListTools(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for i, n := range toolNames(t, list.Tools) {
		listed[n] = string(list.Tools[i])
	}

	for _, limit := range []string{"2", "16"} {
		msg := `{"jsonrpc":"2.0","id":42,"method":"multillm.tools.discover","params":{"query":"model card registry","limit":` + limit + `}}`
		resp, status := d.HandleJSONRPC(ctx, alice, []byte(msg))
		if status == 0 {
			t.Fatalf("not handled")
		}
		var env map[string]json.RawMessage
		mustStrict(t, resp, &env)
		if got := slices.Sorted(mapKeys(env)); !slices.Equal(got, []string{"id", "jsonrpc", "result"}) {
			t.Fatalf("envelope members %v", got)
		}
		if string(env["jsonrpc"]) != `"2.0"` || string(env["id"]) != "42" {
			t.Errorf("envelope jsonrpc, id = %s, %s", env["jsonrpc"], env["id"])
		}
		var res map[string]json.RawMessage
		mustStrict(t, env["result"], &res)
		want := []string{"_meta", "cacheScope", "tools", "ttlMs"}
		if limit == "2" {
			want = []string{"_meta", "cacheScope", "nextCursor", "tools", "ttlMs"}
		}
		if got := slices.Sorted(mapKeys(res)); !slices.Equal(got, want) {
			t.Errorf("limit %s: result members %v, want %v", limit, got, want)
		}
		if string(res["cacheScope"]) != `"private"` || string(res["ttlMs"]) != "0" {
			t.Errorf("limit %s: cacheScope %s, ttlMs %s; want \"private\", 0", limit, res["cacheScope"], res["ttlMs"])
		}
		var meta map[string]string
		mustStrict(t, res["_meta"], &meta)
		if len(meta) != 1 || meta["contract_digest"] != list.ContractDigest {
			t.Errorf("_meta = %v, want only contract_digest %s", meta, list.ContractDigest)
		}
		var served []json.RawMessage
		mustStrict(t, res["tools"], &served)
		if len(served) == 0 {
			t.Fatalf("no tools")
		}
		for _, raw := range served {
			n := toolNames(t, []json.RawMessage{raw})[0]
			if listed[n] != string(raw) {
				t.Errorf("discover serves %s as\n%s\nListTools as\n%s", n, raw, listed[n])
			}
		}
		// The typed result encodes to the same bytes as the envelope's result.
		params := json.RawMessage(`{"query":"model card registry","limit":` + limit + `}`)
		typed, err := d.DiscoverParams(ctx, alice, params)
		if err != nil {
			t.Fatal(err)
		}
		if len(typed.Tools) != len(served) {
			t.Errorf("DiscoverParams: %d tools, HandleJSONRPC %d", len(typed.Tools), len(served))
		}
		mj, err := json.Marshal(typed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mj, typed.AppendJSON(nil)) {
			t.Errorf("json.Marshal(Result) differs from AppendJSON")
		}
		// The discovery tool's page is the same page without the cache hints, which
		// SEP-2549 gives no tools/call result.
		tool, err := d.DiscoverTool(ctx, alice, params)
		if err != nil {
			t.Fatal(err)
		}
		var toolRes map[string]json.RawMessage
		mustStrict(t, tool.AppendJSON(nil), &toolRes)
		wantTool := slices.DeleteFunc(slices.Clone(want), func(k string) bool { return k == "cacheScope" || k == "ttlMs" })
		if got := slices.Sorted(mapKeys(toolRes)); !slices.Equal(got, wantTool) {
			t.Errorf("limit %s: DiscoverTool page members %v, want %v", limit, got, wantTool)
		}
		if mt, _ := json.Marshal(tool); !bytes.Equal(mt, tool.AppendJSON(nil)) {
			t.Errorf("json.Marshal(DiscoverTool page) differs from AppendJSON")
		}
	}

	// Complete: the served rich tool is the input tool, every member kept.
	var in, out any
	json.Unmarshal(rich, &in)
	json.Unmarshal([]byte(listed["model_card"]), &out)
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("served model_card differs from its definition (-in +served):\n%s", diff)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// mustStrict decodes JSON that must be valid and hold no duplicate member.
func mustStrict(t testing.TB, data []byte, v any) {
	t.Helper()
	if !json.Valid(data) {
		t.Fatalf("invalid JSON: %.200s", data)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %.200s: %v", data, err)
	}
}

// SPEC DISC-4: ties are broken by name in byte order, and the same inputs give the same
// bytes: twice on one Discoverer, and on another Discoverer (same Signer, same clock)
// over the same tools given in another order.
func TestDiscoverDeterministic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // the bubble's clock stands still: one issue time for all
		ctx := t.Context()
		var tie []json.RawMessage
		for _, n := range []string{"tool_c", "tool_A", "tool_b", "tool_a", "tool_B"} {
			tie = append(tie, toolDef(n, "Export the invoice as a PDF document."))
		}
		cat := newCatalog(t, tie...)
		d := newDiscoverer(cat, allGranted(t, cat), nil)
		res, err := d.Discover(ctx, alice, discovery.Request{Query: "invoice pdf"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := toolNames(t, res.Tools), []string{"tool_A", "tool_B", "tool_a", "tool_b", "tool_c"}; !slices.Equal(got, want) {
			t.Errorf("tied tools in order %v, want byte order %v", got, want)
		}

		tools := append(sampleTools(), helperTools(30)...)
		signer := cursor.NewSigner()
		build := func(tools []json.RawMessage) *discovery.Discoverer {
			cat := newCatalog(t, tools...)
			return newDiscoverer(cat, allGranted(t, cat), func(o *discovery.Options) {
				o.Signer = signer
				o.RevisionSync = true
			})
		}
		d1 := build(tools)
		shuffled := slices.Clone(tools)
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		d2 := build(shuffled)
		for _, q := range []string{"model registry", "deployment", "model helper number 7", "search"} {
			for _, limit := range []int{3, 16} {
				r1, err1 := d1.Discover(ctx, alice, discovery.Request{Query: q, Limit: limit})
				r1b, err1b := d1.Discover(ctx, alice, discovery.Request{Query: q, Limit: limit})
				r2, err2 := d2.Discover(ctx, alice, discovery.Request{Query: q, Limit: limit})
				if err1 != nil || err1b != nil || err2 != nil {
					t.Fatalf("%q: %v %v %v", q, err1, err1b, err2)
				}
				b1, b1b, b2 := r1.AppendJSON(nil), r1b.AppendJSON(nil), r2.AppendJSON(nil)
				if !bytes.Equal(b1, b1b) {
					t.Errorf("%q limit %d: two runs on one Discoverer differ", q, limit)
				}
				if !bytes.Equal(b1, b2) {
					t.Errorf("%q limit %d: the same tools in another order give other bytes:\n%.300s\n%.300s", q, limit, b1, b2)
				}
			}
		}
	})
}

// SPEC DISC-6: a query that matches nothing returns "tools": [] and no nextCursor.
func TestDiscoverNoMatch(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	for _, q := range []string{"xylophone", "zzzz qqqq", "  ", "!!!"} {
		res, err := d.Discover(ctx, alice, discovery.Request{Query: q, Limit: 1})
		if err != nil {
			t.Fatalf("Discover(%q): %v", q, err)
		}
		if len(res.Tools) != 0 || res.NextCursor != "" {
			t.Errorf("Discover(%q) = %d tools, cursor %q; want none", q, len(res.Tools), res.NextCursor)
		}
		if b := res.AppendJSON(nil); !bytes.HasPrefix(b, []byte(`{"tools":[],"ttlMs":0,"cacheScope":"private","_meta":{"contract_digest":"sha256:`)) || bytes.Contains(b, []byte("nextCursor")) {
			t.Errorf("Discover(%q) encodes as %s", q, b)
		}
	}
	// A principal with nothing granted gets the same empty page for a matching query.
	res, err := newDiscoverer(cat, newStore(t), nil).Discover(ctx, alice, discovery.Request{Query: "model"})
	if err != nil || len(res.Tools) != 0 || res.NextCursor != "" {
		t.Errorf("Discover with no grant = %v, %v; want an empty page", res, err)
	}
	resp, _ := newDiscoverer(cat, newStore(t), nil).HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","id":"x","method":"multillm.tools.discover","params":{"query":"model"}}`))
	if !bytes.HasPrefix(resp, []byte(`{"jsonrpc":"2.0","id":"x","result":{"tools":[],"ttlMs":0,"cacheScope":"private","_meta":{"contract_digest":"sha256:`)) {
		t.Errorf("HandleJSONRPC with no grant = %s", resp)
	}
}

// SPEC DISC-7: discovery grants nothing and executes nothing: no host check, no
// validation, no grant write, and a discovered-but-ungranted tool stays refused.
func TestDiscoverExecutesNothing(t *testing.T) {
	ctx := t.Context()
	cat, cc := countingCatalog(t, sampleTools()...)
	store := newStore(t, allow("alice", "model_search"), allow("alice", "model_get"))
	var checked atomic.Int64
	d := newDiscoverer(cat, store, func(o *discovery.Options) {
		o.CheckCall = func(context.Context, grants.Principal, string, json.RawMessage) error {
			checked.Add(1)
			return nil
		}
	})
	before, _ := store.ReadGrants(ctx, "alice")
	var cur string
	for range 3 {
		res, err := d.Discover(ctx, alice, discovery.Request{Query: "model", Limit: 1, Cursor: cur})
		if err != nil {
			t.Fatal(err)
		}
		cur = res.NextCursor
	}
	d.HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model delete"}}`))
	after, _ := store.ReadGrants(ctx, "alice")
	if before.Revision != after.Revision || len(before.Rows) != len(after.Rows) {
		t.Errorf("grant store changed by discovery: revision %d → %d, rows %d → %d", before.Revision, after.Revision, len(before.Rows), len(after.Rows))
	}
	if n := checked.Load(); n != 0 {
		t.Errorf("discovery ran CheckCall %d times", n)
	}
	if n := cc.validated.Load(); n != 0 {
		t.Errorf("discovery ran %d validations", n)
	}
	err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"x"}`)})
	wantCode(t, "AuthorizeCall after discovery", err, discovery.CodeToolNotGranted)
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// SPEC DISC-3, CONTRACT-1, CONTRACT-2 (golden): the bytes of a discover response for a
// small catalog, tools in their canonical form (sorted members, no white space, numbers
// and strings as RFC 8785 writes them) and the contract digest, are pinned in
// testdata/discover_page.golden. Run with -update to rewrite it after a deliberate change.
func TestDiscoverGolden(t *testing.T) {
	ctx := t.Context()
	tools := []json.RawMessage{
		json.RawMessage(`{ "name": "model_search", "title": "Model search",
			"description": "Search the model registry by name, task or tag — «quoted» \u00e9 \ud83d\ude00.",
			"inputSchema": {"type": "object", "properties": {
				"query": {"type": "string", "maxLength": 1.0e2, "description": "Words </script> & more"},
				"top_k": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10.0}},
				"required": ["query"], "additionalProperties": false},
			"annotations": {"readOnlyHint": true}}`),
		json.RawMessage(`{"name":"model_get","description":"Get one model of the registry.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`),
		json.RawMessage(`{"name":"invoice_get","description":"Get an invoice.","inputSchema":{"type":"object"}}`),
	}
	cat := newCatalog(t, tools...)
	d := newDiscoverer(cat, newStore(t, allow("*", "model_search"), allow("*", "model_get")), nil)
	resp, _ := d.HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","id":"g-1","method":"multillm.tools.discover","params":{"query":"model registry"}}`))
	path := filepath.Join("testdata", "discover_page.golden")
	if *update {
		if err := os.WriteFile(path, append(resp, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestDiscoverGolden -update to create it)", err)
	}
	if got := string(resp) + "\n"; got != string(want) {
		t.Errorf("discover response differs from %s:\ngot  %s\nwant %s", path, got, want)
	}

	// An empty catalog: an empty page, the digest of the empty contract.
	empty := newDiscoverer(newCatalog(t), newStore(t, allow("*", "x")), nil)
	res, err := empty.Discover(ctx, alice, discovery.Request{Query: "model"})
	if err != nil || len(res.Tools) != 0 || res.ContractDigest != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("empty catalog: %v, %v", res, err)
	}
}
