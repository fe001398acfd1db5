package mcpsdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
	"github.com/deferredtools/deferredtools/metatool"
)

// The meta tool of these tests: "station", action read, reset or delete. Anyone with
// weather:read may read; alice may also reset; nobody may delete.
const stationTool = `{"name":"station","description":"Read, reset or delete a weather station.",` +
	`"inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["read","reset","delete"]},` +
	`"station":{"type":"string","maxLength":20}},"required":["action","station"],"additionalProperties":false}}`

// metaFixture is the usual fixture with station declared as a meta tool; store holds
// its grants, for changes.
func metaFixture(t *testing.T, pf mcpsdk.PrincipalFunc) (*fixture, *grants.Memory) {
	t.Helper()
	cat, err := discovery.NewCatalog(append(testTools(), json.RawMessage(stationTool)), &discovery.CatalogOptions{
		MetaTools: map[string]metatool.Tool{"station": {Actions: []metatool.Action{{Name: "read"}, {Name: "reset"}, {Name: "delete"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	rows := append(testRows(),
		grants.Row{Principal: "*", Tool: "station.read", Scopes: []string{"weather:read"}, Effect: grants.Allow, Revision: 1},
		grants.Row{Principal: "alice", Tool: "station.reset", Effect: grants.Allow, Revision: 1},
		grants.Row{Principal: "*", Tool: "station", Effect: grants.Allow, Revision: 1}) // decides nothing
	for _, r := range rows {
		if _, err := store.Put(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{cat: cat, reads: &countingReader{Reader: store}}
	f.d = discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: f.reads})
	f.a = mcpsdk.New(f.d, &mcpsdk.Options{Principal: pf, DiscoveryTool: "search_tools"})
	f.server = newSDKServerOpts(cat, &mcp.ServerOptions{}, &f.handled)
	f.a.Install(f.server)
	return f, store
}

// checkStationListed checks that the session's tools/list serves station with the enum
// narrowed to want, and the contract digest the Discoverer reports for p (which the
// discovery tests recompute from the served bytes); it returns that digest.
func checkStationListed(t *testing.T, f *fixture, p grants.Principal, cs *mcp.ClientSession, want []string) string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	list, err := f.d.ListTools(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range res.Tools {
		if tool.Name != "station" {
			continue
		}
		found = true
		var schema struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		b, _ := json.Marshal(tool.InputSchema)
		json.Unmarshal(b, &schema)
		if got := schema.Properties["action"].Enum; !slices.Equal(got, want) {
			t.Errorf("station listed with actions %q, want %q", got, want)
		}
		def, _ := list.Tool("station")
		if !strings.Contains(string(def), `"enum":["`+strings.Join(want, `","`)+`"]`) {
			t.Errorf("the Discoverer serves station as %s", def)
		}
	}
	if !found {
		t.Fatalf("station not listed")
	}
	digest, _ := res.Meta[mcpsdk.MetaContractDigest].(string)
	if digest != list.ContractDigest {
		t.Errorf("contract digest %s, the Discoverer's %s", digest, list.ContractDigest)
	}
	return digest
}

// SPEC VIS-1, CALL-1, CONTRACT-2 through the go-sdk adapter, in process and over
// streamable HTTP: a meta tool is listed narrowed to the caller's actions, a call of
// an action not served is refused with tool_not_granted and never reaches the handler,
// a served one runs, and a change to one action's grant changes the contract digest.
func TestMetaToolThroughAdapter(t *testing.T) {
	ctx := context.Background()
	for _, transport := range []string{"in-memory stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			var f *fixture
			var store *grants.Memory
			var asBob, asAlice *mcp.ClientSession
			if transport == "http" {
				f, store = metaFixture(t, mcpsdk.TokenInfoPrincipal)
				asBob, asAlice = f.overHTTP(t, "tok-bob"), f.overHTTP(t, "tok-alice")
			} else {
				f, store = metaFixture(t, mcpsdk.StaticPrincipal(bob))
				asBob = f.connect(t)
				fa, _ := metaFixture(t, mcpsdk.StaticPrincipal(alice))
				asAlice = fa.connect(t)
			}
			before := checkStationListed(t, f, bob, asBob, []string{"read"})
			checkStationListed(t, f, alice, asAlice, []string{"read", "reset"})

			for _, action := range []string{"reset", "delete", "RESET", "format"} {
				_, err := asBob.CallTool(ctx, &mcp.CallToolParams{Name: "station", Arguments: map[string]any{"action": action, "station": "s1"}})
				if err == nil || !strings.Contains(err.Error(), "tool_not_granted") {
					t.Errorf("bob: station %s: %v, want tool_not_granted", action, err)
				}
			}
			if n := f.calls("station"); n != 0 {
				t.Errorf("the station handler ran %d times for refused actions", n)
			}
			res, err := asBob.CallTool(ctx, &mcp.CallToolParams{Name: "station", Arguments: map[string]any{"action": "read", "station": "s1"}})
			if err != nil || res.IsError {
				t.Fatalf("bob: station read: %v, %+v", err, res)
			}
			res, err = asBob.CallTool(ctx, &mcp.CallToolParams{Name: "station", Arguments: map[string]any{"action": "read", "station": 7}})
			if err != nil || !res.IsError {
				t.Errorf("bob: station read with a number: %v, %+v; want an invalid-arguments result", err, res)
			}
			if n := f.calls("station"); n != 1 {
				t.Errorf("the station handler ran %d times, want once", n)
			}

			store.Put(ctx, grants.Row{Principal: "bob", Tool: "station.delete", Effect: grants.Allow, Revision: 1})
			after := checkStationListed(t, f, bob, asBob, []string{"read", "delete"})
			if after == before {
				t.Errorf("contract digest unchanged by granting station.delete")
			}
			res, err = asBob.CallTool(ctx, &mcp.CallToolParams{Name: "station", Arguments: map[string]any{"action": "delete", "station": "s1"},
				Meta: mcp.Meta{mcpsdk.MetaContractDigest: before}})
			if err == nil || !strings.Contains(err.Error(), "contract_changed") {
				t.Errorf("bob: station delete pinned to the old digest: %v, %+v; want contract_changed", err, res)
			}
		})
	}
}

// metaRefusals are tools/call messages of station with action reset (bob's not served)
// and other arguments of every kind: one refusal for all, decided on the action
// before anything else is read (SPEC CALL-1, VIS-2).
func metaRefusals() []string {
	deep := strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000)
	var out []string
	for i, rest := range []string{
		`"station":"s1"`, `"station":7`, `"station":` + deep, `"station":"` + strings.Repeat("x", 1<<20) + `"`,
		`"station":"a","station":"b"`, `"x":{"y":` + deep + `}`, `"station":"\ud800"`,
	} {
		out = append(out, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"station","arguments":{"action":"reset",%s}}}`, 100+i, rest))
	}
	for i, args := range []string{`{}`, `{"action":"read","action":"reset","station":"s1"}`, `{"Action":"read","station":"s1"}`, `[]`, `{"action":["read"]}`} {
		out = append(out, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"station","arguments":%s}}`, 200+i, args))
	}
	// params with two arguments members: which one a decoder reads cannot be told, so
	// the call is invalid params (as in mcpgo) before any action is read.
	out = append(out, `{"jsonrpc":"2.0","id":300,"method":"tools/call","params":{"name":"station","arguments":{"action":"read","station":"s1"},"arguments":{"action":"reset","station":"s1"}}}`)
	return out
}

func refusalOf(msg string) string {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal([]byte(msg[:strings.Index(msg, `,"method"`)]+"}"), &env)
	if string(env.ID) == "300" {
		return `{"jsonrpc":"2.0","id":300,"error":{"code":-32602,"message":"invalid_params","data":{"error":"invalid_params","status":400}}}`
	}
	return `{"jsonrpc":"2.0","id":` + string(env.ID) + `,"error":{"code":-32000,"message":"tool_not_granted","data":{"error":"tool_not_granted","status":403}}}`
}

// SPEC CALL-1, VIS-2 over stdio (the adapter's Transport, raw lines): each refused
// action is one tool_not_granted line, whatever the other arguments (deep past the
// SDK's depth, huge, mistyped, repeated), and the session goes on.
func TestMetaToolStdioRefusals(t *testing.T) {
	f, _ := metaFixture(t, mcpsdk.StaticPrincipal(bob))
	rc := f.rawConnect(t)
	for _, msg := range metaRefusals() {
		id := msg[strings.Index(msg, `"id":`)+5 : strings.Index(msg, `,"method"`)]
		if got, want := string(rc.call(msg, id)), refusalOf(msg); got != want {
			t.Errorf("%.80s...: answer %s, want %s", msg, got, want)
		}
	}
	got := rc.call(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"station","arguments":{"action":"read","station":"s1"}}}`, "9")
	if !strings.Contains(string(got), `"ran station"`) {
		t.Errorf("station read after the refusals: %s", got)
	}
	if n := f.calls("station"); n != 1 {
		t.Errorf("the station handler ran %d times, want once", n)
	}
}

// SPEC CALL-1, VIS-2 over streamable HTTP (raw POSTs through Handler): the same
// refusals, each a JSON-RPC error in an HTTP 200.
func TestMetaToolHTTPRefusals(t *testing.T) {
	f, _ := metaFixture(t, mcpsdk.TokenInfoPrincipal)
	srv := httptest.NewServer(f.httpHandler())
	t.Cleanup(srv.Close)
	for _, msg := range metaRefusals() {
		status, _, body := send(t, "POST", srv.URL, msg, func(r *http.Request) {
			r.Header.Set("Accept", "application/json")
			r.Header.Set("Authorization", "Bearer tok-bob")
		})
		if want := refusalOf(msg); status != 200 || body != want {
			t.Errorf("%.80s...: %d %s, want 200 %s", msg, status, body, want)
		}
	}
	if n := f.calls("station"); n != 0 {
		t.Errorf("the station handler ran %d times", n)
	}
}
