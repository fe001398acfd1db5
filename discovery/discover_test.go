package discovery_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
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
// ignored; any other member, a member twice, trailing data or anything but an object is
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

// cursorFixture is a catalog where "model" ranks many tools, every tool granted by "*"
// rows without scope, served by d.
type cursorFixture struct {
	src   *discovery.SwappableCatalog
	store *grants.Memory
	d     *discovery.Discoverer
}

func newCursorFixture(t testing.TB, edit func(*discovery.Options)) *cursorFixture {
	f := &cursorFixture{src: new(discovery.SwappableCatalog)}
	cat := newCatalog(t, append(sampleTools(), helperTools(10)...)...)
	f.src.Store(cat)
	f.store = allGranted(t, cat)
	f.d = newDiscoverer(f.src, f.store, edit)
	return f
}

// firstCursor returns the cursor of the first page of "model" at limit 3 for alice.
func (f *cursorFixture) firstCursor(t testing.TB) string {
	t.Helper()
	res, err := f.d.Discover(context.Background(), alice, discovery.Request{Query: "model", Limit: 3})
	if err != nil || res.NextCursor == "" {
		t.Fatalf("first page: %v, cursor %q", err, res.NextCursor)
	}
	return res.NextCursor
}

// SPEC CURSOR-1 (another Discoverer, with its own random key, refuses the cursor, as
// after a restart), CURSOR-2: a cursor binds principal, scopes, contract digest, visibility, grant
// revision, observed rows and their revisions, query and limit; any one of them
// changed answers invalid_cursor (400). The unchanged facts are accepted.
func TestCursorBinding(t *testing.T) {
	ctx := t.Context()
	next := func(d *discovery.Discoverer, p grants.Principal, q string, limit int, cur string) error {
		_, err := d.Discover(ctx, p, discovery.Request{Query: q, Limit: limit, Cursor: cur})
		return err
	}
	// The control: nothing changed.
	f := newCursorFixture(t, nil)
	if err := next(f.d, alice, "model", 3, f.firstCursor(t)); err != nil {
		t.Fatalf("unchanged facts: %v", err)
	}

	cases := []struct {
		name   string
		sync   bool
		change func(t *testing.T, f *cursorFixture, cur string) error
	}{
		{"principal", false, func(t *testing.T, f *cursorFixture, cur string) error {
			carol := grants.Principal{ID: "carol", Scopes: alice.Scopes} // same "*" grants
			return next(f.d, carol, "model", 3, cur)
		}},
		{"scopes", false, func(t *testing.T, f *cursorFixture, cur string) error {
			more := grants.Principal{ID: "alice", Scopes: []string{"models:read", "unused:scope"}}
			return next(f.d, more, "model", 3, cur)
		}},
		{"scopes removed", false, func(t *testing.T, f *cursorFixture, cur string) error {
			return next(f.d, grants.Principal{ID: "alice"}, "model", 3, cur)
		}},
		{"contract", false, func(t *testing.T, f *cursorFixture, cur string) error {
			tools := append(sampleTools(), helperTools(10)...)
			tools[len(tools)-1] = toolDef("helper_09", "Model helper number 9, reworded.")
			f.src.Store(newCatalog(t, tools...))
			return next(f.d, alice, "model", 3, cur)
		}},
		{"visibility", true, func(t *testing.T, f *cursorFixture, cur string) error {
			// Same Signer, store, catalog; a visibility excluding a tool that does not
			// exist, so only the visibility differs.
			d2 := newDiscoverer(f.src, f.store, func(o *discovery.Options) {
				o.Signer = signerOf[f.d]
				o.RevisionSync = true
				o.Visibility.Exclude = []string{"no_such_tool"}
			})
			return next(d2, alice, "model", 3, cur)
		}},
		{"revision", true, func(t *testing.T, f *cursorFixture, cur string) error {
			f.store.Put(ctx, allow("zed", "model_get")) // another principal's row
			return next(f.d, alice, "model", 3, cur)
		}},
		{"row revision", false, func(t *testing.T, f *cursorFixture, cur string) error {
			f.store.Put(ctx, allow("*", "billing_usage")) // same content, new revision
			return next(f.d, alice, "model", 3, cur)
		}},
		{"rows", false, func(t *testing.T, f *cursorFixture, cur string) error {
			f.store.Put(ctx, deny("alice", "no_such_tool")) // authorised set unchanged
			return next(f.d, alice, "model", 3, cur)
		}},
		{"query", false, func(t *testing.T, f *cursorFixture, cur string) error {
			return next(f.d, alice, "model ", 3, cur)
		}},
		{"limit", false, func(t *testing.T, f *cursorFixture, cur string) error {
			return next(f.d, alice, "model", 4, cur)
		}},
		{"default limit", false, func(t *testing.T, f *cursorFixture, cur string) error {
			return next(f.d, alice, "model", 0, cur)
		}},
		{"another Discoverer", false, func(t *testing.T, f *cursorFixture, cur string) error {
			return next(newDiscoverer(f.src, f.store, nil), alice, "model", 3, cur)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			signer := cursor.NewSigner()
			f := newCursorFixture(t, func(o *discovery.Options) {
				o.Signer = signer
				o.RevisionSync = tc.sync
			})
			signerOf[f.d] = signer
			cur := f.firstCursor(t)
			wantCode(t, tc.name+" changed", tc.change(t, f, cur), discovery.CodeInvalidCursor)
		})
	}

	// The visibility control: a second Discoverer with the same Signer, store,
	// visibility and revision sync accepts the cursor, so the case above fails for the
	// visibility alone.
	signer := cursor.NewSigner()
	f = newCursorFixture(t, func(o *discovery.Options) { o.Signer = signer; o.RevisionSync = true })
	d2 := newDiscoverer(f.src, f.store, func(o *discovery.Options) { o.Signer = signer; o.RevisionSync = true })
	if err := next(d2, alice, "model", 3, f.firstCursor(t)); err != nil {
		t.Errorf("same facts on a twin Discoverer: %v", err)
	}
	// With revision sync off, a write that touches none of the principal's rows keeps
	// its cursors valid: the observed rows, not the process, decide.
	f = newCursorFixture(t, nil)
	cur := f.firstCursor(t)
	f.store.Put(ctx, allow("zed", "model_get"))
	if err := next(f.d, alice, "model", 3, cur); err != nil {
		t.Errorf("an unrelated write invalidated the cursor with revision sync off: %v", err)
	}
	// A revocation does invalidate it.
	f.store.Delete(ctx, "*", "billing_usage")
	wantCode(t, "revocation", next(f.d, alice, "model", 3, cur), discovery.CodeInvalidCursor)
}

// signerOf remembers the Signer a test Discoverer was built with.
var signerOf = map[*discovery.Discoverer]*cursor.Signer{}

// SPEC CURSOR-3: a cursor is valid until 120 s after its first page, that instant
// included, and invalid from one nanosecond later (testing/synctest: time passes only
// by sleeping in the bubble).
func TestCursorLifetimeEdge(t *testing.T) {
	for _, tc := range []struct {
		age  time.Duration
		want discovery.Code
	}{
		{119 * time.Second, ""},
		{cursor.Lifetime, ""},
		{cursor.Lifetime + time.Nanosecond, discovery.CodeInvalidCursor},
		{121 * time.Second, discovery.CodeInvalidCursor},
	} {
		t.Run(tc.age.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newCursorFixture(t, nil)
				cur := f.firstCursor(t)
				time.Sleep(tc.age)
				res, err := f.d.Discover(t.Context(), alice, discovery.Request{Query: "model", Limit: 3, Cursor: cur})
				if tc.want == "" {
					if err != nil {
						t.Errorf("cursor issued %v ago: %v", tc.age, err)
					} else if res.NextCursor == "" {
						t.Errorf("second page has no cursor")
					}
					return
				}
				wantCode(t, fmt.Sprintf("cursor issued %v ago", tc.age), err, discovery.CodeInvalidCursor)
			})
		})
	}
}

// SPEC CURSOR-4: a grant change observed while a page is prepared (between the read
// that builds the page and the recheck) answers tool_grants_changed (409); the same
// grants read twice do not.
func TestGrantsChangedWhilePreparing(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, append(sampleTools(), helperTools(10)...)...)
	rows := []grants.Row{allow("alice", "model_search", "models:read"), allow("*", "helper_01"), allow("*", "helper_02")}
	s1 := &grants.Snapshot{Revision: 7, Rows: rows}
	bumped := slices.Clone(rows)
	bumped[1].Revision = 2
	revoked := rows[:2]
	samecopy := &grants.Snapshot{Revision: 7, Rows: slices.Clone(rows)}
	for _, tc := range []struct {
		name string
		sync bool
		s2   *grants.Snapshot
		want discovery.Code
	}{
		{"row revision", false, &grants.Snapshot{Revision: 7, Rows: bumped}, discovery.CodeGrantsChanged},
		{"row revoked", false, &grants.Snapshot{Revision: 7, Rows: revoked}, discovery.CodeGrantsChanged},
		{"row renamed", false, &grants.Snapshot{Revision: 7, Rows: []grants.Row{rows[0], allow("*", "helper_03"), rows[2]}}, discovery.CodeGrantsChanged},
		{"row added", false, &grants.Snapshot{Revision: 7, Rows: append(slices.Clone(rows), allow("*", "helper_03"))}, discovery.CodeGrantsChanged},
		{"revision with sync", true, &grants.Snapshot{Revision: 8, Rows: rows}, discovery.CodeGrantsChanged},
		{"same content", false, samecopy, ""},
		{"same content with sync", true, samecopy, ""},
	} {
		r := &seqReader{snaps: []*grants.Snapshot{s1, tc.s2}}
		d := newDiscoverer(cat, r, func(o *discovery.Options) { o.RevisionSync = tc.sync })
		res, err := d.Discover(ctx, alice, discovery.Request{Query: "model helper"})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		} else {
			wantCode(t, tc.name, err, tc.want)
			if res != nil {
				t.Errorf("%s: a page was returned with the 409", tc.name)
			}
		}
		if r.calls.Load() != 2 {
			t.Errorf("%s: %d grant reads for one page, want 2 (read, recheck)", tc.name, r.calls.Load())
		}
	}

	// Through a real store, on a later page too: a revocation landing between the two
	// reads of page 2.
	store := newStore(t, rows...)
	var revokeAt atomic.Int64
	hook := &hookReader{base: store, before: func(n int64) {
		if n == revokeAt.Load() {
			store.Delete(context.Background(), "*", "helper_02")
		}
	}}
	d := newDiscoverer(cat, hook, nil)
	first, err := d.Discover(ctx, alice, discovery.Request{Query: "model helper", Limit: 1})
	if err != nil || first.NextCursor == "" {
		t.Fatalf("page 1: %v", err)
	}
	revokeAt.Store(hook.calls.Load() + 2) // the recheck of page 2
	_, err = d.Discover(ctx, alice, discovery.Request{Query: "model helper", Limit: 1, Cursor: first.NextCursor})
	wantCode(t, "revocation while page 2 is prepared", err, discovery.CodeGrantsChanged)

	// The grantstest fakes: a grant landing between the reads of page 1 (HookReader),
	// and a sequence of snapshots (SequenceReader), with revision sync on.
	store2 := newStore(t, rows...)
	hr := &grantstest.HookReader{Base: store2, Before: func(ctx context.Context, call int64) error {
		if call == 2 {
			_, err := store2.Put(ctx, allow("*", "helper_04"))
			return err
		}
		return nil
	}}
	_, err = newDiscoverer(cat, hr, func(o *discovery.Options) { o.RevisionSync = true }).Discover(ctx, alice, discovery.Request{Query: "model helper"})
	wantCode(t, "grant added between the reads (HookReader)", err, discovery.CodeGrantsChanged)
	sr := &grantstest.SequenceReader{Snapshots: []*grants.Snapshot{s1, {Revision: 8, Rows: rows}}}
	_, err = newDiscoverer(cat, sr, func(o *discovery.Options) { o.RevisionSync = true }).Discover(ctx, alice, discovery.Request{Query: "model helper"})
	wantCode(t, "revision moved between the reads (SequenceReader)", err, discovery.CodeGrantsChanged)
}

// seqReader answers snaps[i] to the i-th read, then the last one.
type seqReader struct {
	snaps []*grants.Snapshot
	calls atomic.Int64
}

func (r *seqReader) ReadGrants(context.Context, string) (*grants.Snapshot, error) {
	i := r.calls.Add(1) - 1
	return r.snaps[min(int(i), len(r.snaps)-1)], nil
}

// hookReader calls before(n) ahead of the n-th read (from 1) of base.
type hookReader struct {
	base   grants.Reader
	before func(n int64)
	calls  atomic.Int64
}

func (r *hookReader) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	r.before(r.calls.Add(1))
	return r.base.ReadGrants(ctx, id)
}

// revReader answers base's rows at a settable control revision.
type revReader struct {
	base grants.Reader
	rev  atomic.Int64
}

func (r *revReader) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	s, err := r.base.ReadGrants(ctx, id)
	if err != nil {
		return nil, err
	}
	return &grants.Snapshot{Revision: r.rev.Load(), Rows: s.Rows}, nil
}

// SPEC CURSOR-5: with revision sync on, the revision must be the store's confirmed,
// fresh control revision: 0 (unavailable) or one lower than a revision already seen
// (stale) answers 503 on every path. With it off, neither matters.
func TestRevisionSync(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	args := json.RawMessage(`{"text":"x"}`)
	run := func(d *discovery.Discoverer) (errs [3]error) {
		_, errs[0] = d.Discover(ctx, alice, discovery.Request{Query: "model"})
		_, errs[1] = d.ListTools(ctx, alice)
		errs[2] = d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args})
		return errs
	}
	for _, sync := range []bool{true, false} {
		r := &revReader{base: newStore(t, allow("*", "model_search"))}
		d := newDiscoverer(cat, r, func(o *discovery.Options) { o.RevisionSync = sync })
		for _, step := range []struct {
			rev       int64
			staleSync bool // 503 expected with sync on
		}{{0, true}, {5, false}, {5, false}, {3, true}, {6, false}, {5, true}, {0, true}, {6, false}} {
			r.rev.Store(step.rev)
			for i, err := range run(d) {
				what := fmt.Sprintf("sync %v, revision %d, path %d", sync, step.rev, i)
				if sync && step.staleSync {
					wantCode(t, what, err, discovery.CodeGrantsUnavailable)
				} else if err != nil {
					t.Errorf("%s: %v", what, err)
				}
			}
		}
	}
}

// SPEC CURSOR-6: a cursor is opaque: neither the query, the principal nor a scope is
// in it, in clear or in base64 of any alphabet.
func TestCursorOpaque(t *testing.T) {
	ctx := t.Context()
	const (
		qText = "modelqueryc4n4ry"
		pID   = "principalc4n4ry"
		scope = "scopec4n4ry"
	)
	var tools []json.RawMessage
	for i := range 5 {
		tools = append(tools, toolDef(fmt.Sprintf("t%d", i), "About "+qText+" things."))
	}
	cat := newCatalog(t, tools...)
	var rows []grants.Row
	for _, n := range cat.Names() {
		rows = append(rows, allow(pID, n, scope))
	}
	d := newDiscoverer(cat, newStore(t, rows...), nil)
	p := grants.Principal{ID: pID, Scopes: []string{scope}}
	res, err := d.Discover(ctx, p, discovery.Request{Query: qText, Limit: 1})
	if err != nil || res.NextCursor == "" {
		t.Fatalf("Discover: %v, cursor %q", err, res.NextCursor)
	}
	for _, tok := range []string{res.NextCursor, nextOf(t, d, p, qText, res.NextCursor)} {
		for _, secret := range []string{qText, pID, scope} {
			for _, form := range encodings(secret) {
				if strings.Contains(strings.ToLower(tok), strings.ToLower(form)) {
					t.Errorf("cursor %q contains %q (a form of %q)", tok, form, secret)
				}
			}
			if raw, err := decodeAny(tok); err == nil && bytes.Contains(raw, []byte(secret)) {
				t.Errorf("decoded cursor contains %q", secret)
			}
		}
	}
}

func nextOf(t testing.TB, d *discovery.Discoverer, p grants.Principal, q, cur string) string {
	t.Helper()
	res, err := d.Discover(context.Background(), p, discovery.Request{Query: q, Limit: 1, Cursor: cur})
	if err != nil || res.NextCursor == "" {
		t.Fatalf("page 2: %v", err)
	}
	return res.NextCursor
}

// encodings returns s and the base64 text s would show inside a longer encoded string,
// at each of the three alignments, in the standard and URL alphabets.
func encodings(s string) []string {
	forms := []string{s}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		for k := range 3 {
			e := enc.EncodeToString([]byte(strings.Repeat("\x00", k) + s))
			e = strings.TrimRight(e, "=")
			lead := (k*4 + 2) / 3 // characters that also encode the padding bytes
			if len(e) > lead+2 {
				forms = append(forms, e[lead+1:len(e)-2])
			}
		}
	}
	return forms
}

// decodeAny decodes tok with whichever base64 alphabet accepts it.
func decodeAny(tok string) ([]byte, error) {
	var err error
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		var b []byte
		if b, err = enc.DecodeString(tok); err == nil {
			return b, nil
		}
	}
	return nil, err
}

// SPEC CURSOR-3: a cursor lives at most 120 s from the first page, and later pages do
// not renew it: a page-2 cursor obtained at 60 s is dead at 121 s. (testing/synctest:
// the Discoverer's and the Signer's clocks are the bubble's fake clock.)
func TestCursorLifetime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		f := newCursorFixture(t, nil)
		page := func(cur string) (*discovery.Result, error) {
			return f.d.Discover(ctx, alice, discovery.Request{Query: "model", Limit: 1, Cursor: cur})
		}
		first, err := page("")
		if err != nil || first.NextCursor == "" {
			t.Fatalf("page 1: %v", err)
		}
		time.Sleep(60 * time.Second)
		second, err := page(first.NextCursor)
		if err != nil || second.NextCursor == "" {
			t.Fatalf("page 2 at 60 s: %v", err)
		}
		time.Sleep(59 * time.Second) // 119 s
		third, err := page(second.NextCursor)
		if err != nil || third.NextCursor == "" {
			t.Fatalf("page 3 at 119 s: %v", err)
		}
		time.Sleep(2 * time.Second) // 121 s
		_, err = page(third.NextCursor)
		wantCode(t, "page-3 cursor at 121 s", err, discovery.CodeInvalidCursor)
		_, err = page(second.NextCursor)
		wantCode(t, "page-2 cursor at 121 s", err, discovery.CodeInvalidCursor)
		_, err = page(first.NextCursor)
		wantCode(t, "page-1 cursor at 121 s", err, discovery.CodeInvalidCursor)
		// A new first page starts a new lifetime.
		again, err := page("")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := page(again.NextCursor); err != nil {
			t.Errorf("a fresh cursor at 121 s: %v", err)
		}
	})
}

// SPEC CURSOR-4: a row's scopes are a set: the same rows read twice with their scopes in
// another order are no grant change (no 409), and a cursor stays valid across them.
func TestScopeOrderIsNoChange(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, append(sampleTools(), helperTools(5)...)...)
	p := grants.Principal{ID: "alice", Scopes: []string{"a:1", "b:2"}}
	rows := []grants.Row{allow("alice", "model_search", "a:1", "b:2"), allow("*", "helper_01"), allow("*", "helper_02")}
	swapped := slices.Clone(rows)
	swapped[0].Scopes = []string{"b:2", "a:1"}
	r := &seqReader{snaps: []*grants.Snapshot{{Revision: 1, Rows: rows}, {Revision: 1, Rows: swapped}}}
	d := newDiscoverer(cat, r, nil)
	res, err := d.Discover(ctx, p, discovery.Request{Query: "model helper", Limit: 1})
	if err != nil {
		t.Fatalf("same rows, scopes in another order: %v", err)
	}
	if _, err := d.Discover(ctx, p, discovery.Request{Query: "model helper", Limit: 1, Cursor: res.NextCursor}); err != nil {
		t.Errorf("cursor across a scope reordering: %v", err)
	}
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

// fuzzDiscoverer is a small enabled Discoverer for the fuzz targets.
func fuzzDiscoverer(t testing.TB) *discovery.Discoverer {
	cat := newCatalog(t, append(sampleTools(), helperTools(20)...)...)
	return newDiscoverer(cat, allGranted(t, cat), nil)
}

// refParams is a reference reading of discover params (SPEC DISC-1, DISC-2), written
// independently with encoding/json tokens and math/big: ok reports valid params, and
// cursor whether a cursor was given.
func refParams(params []byte) (ok, cursor bool) {
	if !utf8.Valid(params) || !json.Valid(params) {
		return false, false
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	if t, _ := dec.Token(); t != json.Delim('{') {
		return false, false
	}
	seen := map[string]bool{}
	var query string
	for dec.More() {
		t, _ := dec.Token()
		key := t.(string)
		if seen[key] {
			return false, false
		}
		seen[key] = true
		var v any
		if err := dec.Decode(&v); err != nil {
			return false, false
		}
		switch key {
		case "_meta":
		case "query":
			q, isStr := v.(string)
			if !isStr {
				return false, false
			}
			query = q
		case "cursor":
			c, isStr := v.(string)
			if !isStr {
				return false, false
			}
			cursor = c != ""
		case "limit":
			n, isNum := v.(json.Number)
			if !isNum || !integralIn(string(n), 1, discovery.MaxLimit) {
				return false, false
			}
		default:
			return false, false
		}
	}
	if !seen["query"] || query == "" || utf8.RuneCountInString(query) > discovery.MaxQueryLength {
		return false, false
	}
	for _, r := range query {
		if unicode.Is(unicode.Cc, r) {
			return false, false
		}
	}
	return true, cursor
}

// integralIn reports whether the JSON number s is an integer in lo..hi, exactly.
func integralIn(s string, lo, hi int64) bool {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > 10000 || e < -10000 {
			return false // far out of range with the few digits an input holds
		}
	}
	r, ok := new(big.Rat).SetString(s)
	return ok && r.IsInt() && r.Num().IsInt64() && r.Num().Int64() >= lo && r.Num().Int64() <= hi
}

// FuzzDiscoverParams: any params text answers exactly what a reference reading of
// DISC-1 and DISC-2 says: invalid_params for invalid params, a page for valid ones
// without a cursor, invalid_cursor for a forged cursor; never a panic.
func FuzzDiscoverParams(f *testing.F) {
	for _, s := range []string{
		`{"query":"model"}`, `{"query":"model","limit":3}`, `{"query":"model","limit":1.6e1,"_meta":{"a":[1]}}`,
		`{"query":"model","cursor":"AAAA"}`, `{"query":"a\u0000"}`, `{"query":"m","query":"m"}`, `[]`, `{`, ``,
		`{"query":"model","limit":160e-1}`, `{"query":"\ufffd"}`, `{"query":"m","limit":1.0000000000000000000001}`,
	} {
		f.Add([]byte(s))
	}
	d := fuzzDiscoverer(f)
	f.Fuzz(func(t *testing.T, params []byte) {
		res, err := d.DiscoverParams(context.Background(), alice, params)
		ok, cursor := refParams(params)
		var e *discovery.Error
		switch {
		case !ok:
			if !errors.As(err, &e) || e.Code != discovery.CodeInvalidParams {
				t.Fatalf("DiscoverParams(%q) = %v, want invalid_params", params, err)
			}
		case cursor:
			if !errors.As(err, &e) || e.Code != discovery.CodeInvalidCursor {
				t.Fatalf("DiscoverParams(%q) = %v, want invalid_cursor", params, err)
			}
		default:
			if err != nil {
				t.Fatalf("DiscoverParams(%q) = %v, want a page", params, err)
			}
			if len(res.Tools) > discovery.MaxLimit || !json.Valid(res.AppendJSON(nil)) {
				t.Fatalf("DiscoverParams(%q): bad page", params)
			}
		}
	})
}

// refEnvelope is a reference reading of a JSON-RPC message for HandleJSONRPC, written
// independently: handled unless the message is not one JSON object, repeats jsonrpc,
// id, method or params, or does not name the discover method with a string; id is the
// raw id (nil: a notification), bad reports an invalid request (bad id or version).
func refEnvelope(msg []byte) (handled bool, id, params []byte, bad bool) {
	if !json.Valid(msg) {
		return false, nil, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, _ := dec.Token(); t != json.Delim('{') {
		return false, nil, nil, false
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		t, _ := dec.Token()
		var raw json.RawMessage
		dec.Decode(&raw)
		k := t.(string)
		switch k {
		case "jsonrpc", "id", "method", "params":
			if _, dup := members[k]; dup {
				return false, nil, nil, false
			}
			members[k] = raw
		}
	}
	var method string
	if m, ok := members["method"]; !ok || m[0] != '"' || json.Unmarshal(m, &method) != nil || method != discovery.DefaultMethod {
		return false, nil, nil, false
	}
	id, hasID := members["id"]
	if !hasID {
		return true, nil, nil, false
	}
	var version string
	var idStr string
	var idNum json.Number
	validID := (id[0] == '"' && json.Unmarshal(id, &idStr) == nil) || ((id[0] == '-' || id[0] >= '0' && id[0] <= '9') && json.Unmarshal(id, &idNum) == nil)
	if v, ok := members["jsonrpc"]; !ok || json.Unmarshal(v, &version) != nil || version != "2.0" || !validID {
		return true, id, nil, true
	}
	return true, id, members["params"], false
}

// FuzzHandleJSONRPC: any message is left to the host (nil, false), answered with
// nothing (a notification), or answered with valid JSON of at most 65,536 bytes.
func FuzzHandleJSONRPC(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model helper"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"multillm.tools.discover","params":{"query":"model","limit":2}}`,
		`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"model"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":null,"method":"multillm.tools.discover"}`,
		`[{"jsonrpc":"2.0"}]`, `{"method":"multillm.tools.discover","method":"x"}`, ``,
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.disc\u006fver","params":{"query":"model"}}`,
		`{"jsonrpc":"2.0","id":"\u0041","method":"multillm.tools.discover","params":{"query":"m\u006fdel"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"multillm.tools.discover\",\"params\":{\"query\":\"mod\xffel\"}}",
		`{"jsonrpc":"2\u002e0","id":3,"method":"multillm.tools.discover","params":{"query":"model"}}`,
		` {"params":{"limit":2,"query":"model"},"id":-0.5e1,"method":"multillm.tools.discover","jsonrpc":"2.0"} `,
	} {
		f.Add([]byte(s))
	}
	d := fuzzDiscoverer(f)
	f.Fuzz(func(t *testing.T, msg []byte) {
		resp, status := d.HandleJSONRPC(context.Background(), alice, msg)
		wantHandled, id, params, bad := refEnvelope(msg)
		if handled := status != 0; handled != wantHandled {
			t.Fatalf("HandleJSONRPC(%q) status = %d, reference handled %v", msg, status, wantHandled)
		}
		if status == 0 || id == nil {
			if resp != nil || (status != 0 && status != http.StatusAccepted) {
				t.Fatalf("HandleJSONRPC(%q) answered %.100q, %d, want no response", msg, resp, status)
			}
			return
		}
		if !json.Valid(resp) || len(resp) > discovery.MaxResponseBytes {
			t.Fatalf("HandleJSONRPC(%q) = %.200q", msg, resp)
		}
		if bad {
			if !bytes.HasPrefix(resp, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`)) {
				t.Fatalf("HandleJSONRPC(%q) = %.200q, want invalid_request", msg, resp)
			}
			return
		}
		if !bytes.HasPrefix(resp, []byte(`{"jsonrpc":"2.0","id":`+string(id)+`,`)) {
			t.Fatalf("HandleJSONRPC(%q) = %.200q, want the id %s echoed", msg, resp, id)
		}
		ok, cursor := refParams(params)
		var code discovery.Code
		wantStatus := http.StatusOK
		if i := bytes.Index(resp, []byte(`"data":{"error":"`)); i >= 0 {
			rest := resp[i+len(`"data":{"error":"`):]
			code = discovery.Code(rest[:bytes.IndexByte(rest, '"')])
			wantStatus = code.Status()
		}
		if status != wantStatus {
			t.Fatalf("HandleJSONRPC(%q) = %.200q, status %d, want %d", msg, resp, status, wantStatus)
		}
		switch {
		case !ok && code != discovery.CodeInvalidParams,
			ok && cursor && code != discovery.CodeInvalidCursor,
			ok && !cursor && code != "":
			t.Fatalf("HandleJSONRPC(%q) answered %q, reference: params ok %v, cursor %v", msg, code, ok, cursor)
		}
	})
}
