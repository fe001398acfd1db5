package mcpsdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// wantAliceTools is alice's authorised set in name order.
var wantAliceTools = adaptertest.AliceTools

// SPEC VIS-3, PAGE-5, CONTRACT-2: the go-sdk client lists only the authorised tools,
// page by page as the SDK paginates, with the other result fields kept and the
// contract digest in _meta.
func TestListToolsNarrowed(t *testing.T) {
	ctx := context.Background()
	for _, pageSize := range []int{0, 3} {
		t.Run(fmt.Sprintf("pageSize=%d", pageSize), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{enabled: true, principal: alice, pageSize: pageSize, tool: "search_tools"})
			cs := f.connect(t)
			if got := cs.InitializeResult().ServerInfo.Name; got != "test" {
				t.Fatalf("initialize: server name %q, want test", got)
			}
			want, err := f.d.ListTools(ctx, alice)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			cursor, pages := "", 0
			for {
				res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
				if err != nil {
					t.Fatalf("ListTools: %v", err)
				}
				pages++
				if got := res.Meta[mcpsdk.MetaContractDigest]; got != want.ContractDigest {
					t.Errorf("page %d: _meta.contract_digest = %v, want %s", pages, got, want.ContractDigest)
				}
				for _, tool := range res.Tools {
					names = append(names, tool.Name)
				}
				if res.NextCursor == "" {
					break
				}
				cursor = res.NextCursor
			}
			if pageSize > 0 && pages < 2 {
				t.Errorf("the SDK paginated with page size %d but the client saw %d page(s): nextCursor dropped", pageSize, pages)
			}
			wantNames := append(slices.Clone(wantAliceTools), "search_tools") // the discovery tool, last
			if diff := cmp.Diff(wantNames, names); diff != "" {
				t.Errorf("listed tools (-want +got):\n%s", diff)
			}
		})
	}
}

// SPEC DISC-3, CONTRACT-1: tools/list serves each tool as its canonical bytes, the
// very bytes discover serves (no HTML escaping of <, > and &).
func TestListToolsCanonicalBytes(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice})
	rc := f.rawConnect(t)
	list := rc.call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "2")
	disc := rc.call(`{"jsonrpc":"2.0","id":3,"method":"multillm.tools.discover","params":{"query":"current weather city"}}`, "3")
	def, _ := f.cat.Tool("weather_get")
	if !bytes.Contains(def, []byte("<b>now</b> & here")) {
		t.Fatalf("canonical form escaped the description: %s", def)
	}
	for name, resp := range map[string][]byte{"tools/list": list, "discover": disc} {
		if !bytes.Contains(resp, def) {
			t.Errorf("%s does not hold the canonical bytes of weather_get:\n%s\nwant within it:\n%s", name, resp, def)
		}
	}
	var res struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
			Meta  map[string]any    `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal(list, &res); err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Result.Tools {
		canon, ok := f.cat.Tool(toolName(t, tool))
		if !ok || !bytes.Equal(canon, tool) {
			t.Errorf("tools/list served %s, want the canonical %s", tool, canon)
		}
	}
}

// SPEC DISC-1, DISC-3, PAGE-4: the go-sdk client walks discovery to the end with
// CallCustomMethod; each matching granted tool comes exactly once, the digest is the
// one tools/list reports, and no tool the principal lacks appears.
func TestDiscoverPagingToTheEnd(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob})
	cs := f.connect(t)
	list, err := f.d.ListTools(ctx, bob)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	p := &discoverParams{Query: "weather", Limit: 2}
	for pages := 1; ; pages++ {
		res, err := discover(ctx, cs, p)
		if err != nil {
			t.Fatalf("discover page %d: %v", pages, err)
		}
		if len(res.Tools) > 2 {
			t.Fatalf("page %d has %d tools, limit 2", pages, len(res.Tools))
		}
		if got := res.Meta["contract_digest"]; got != list.ContractDigest {
			t.Errorf("page %d: contract_digest %v, want %s", pages, got, list.ContractDigest)
		}
		for _, tool := range res.Tools {
			names = append(names, toolName(t, tool))
		}
		if res.NextCursor == "" {
			break
		}
		if pages > 20 {
			t.Fatal("discovery does not end")
		}
		p.Cursor = res.NextCursor
	}
	// bob holds weather:read only: the weather tools, never deploy_model or secrets_read.
	want := []string{"weather_forecast", "weather_get", "weather_station_0", "weather_station_1",
		"weather_station_2", "weather_station_3", "weather_station_4", "weather_station_5"}
	got := slices.Clone(names)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("discovered tools, sorted (-want +got):\n%s", diff)
	}
	if len(slices.Compact(got)) != len(names) {
		t.Errorf("a tool came twice: %v", names)
	}
}

// SPEC DISC-1, DISC-2, ERR-1: strict params over the wire: an unknown member or a
// limit out of range is invalid params, -32602 with data {error, status 400}.
func TestDiscoverInvalidParams(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice})
	rc := f.rawConnect(t)
	for i, params := range []string{`{"query":"x","extra":1}`, `{"query":"x","limit":17}`, `{"query":""}`, `{"limit":3}`} {
		t.Run(params, func(t *testing.T) {
			id := fmt.Sprint(10 + i)
			resp := rc.call(`{"jsonrpc":"2.0","id":`+id+`,"method":"multillm.tools.discover","params":`+params+`}`, id)
			e := decodeError(t, resp)
			if e == nil || e.Code != -32602 || e.Data.Error != "invalid_params" || e.Data.Status != 400 {
				t.Errorf("params %s: response %s, want -32602 invalid_params 400", params, resp)
			}
		})
	}
	// An unknown cursor is invalid_cursor (SPEC CURSOR-2).
	resp := rc.call(`{"jsonrpc":"2.0","id":20,"method":"multillm.tools.discover","params":{"query":"weather","cursor":"AAAA"}}`, "20")
	if e := decodeError(t, resp); e == nil || e.Data.Error != "invalid_cursor" || e.Data.Status != 400 {
		t.Errorf("bad cursor: %s, want invalid_cursor 400", resp)
	}
}

// SPEC PAGE-1, PAGE-2: every discover response the adapter writes, envelope and real id
// included, is at most 65,536 bytes, also with long ids; large tools page by bytes.
func TestDiscoverResponseBound(t *testing.T) {
	var tools []json.RawMessage
	for i := range 12 {
		desc := strings.Repeat(fmt.Sprintf("bulk weather data %d <&> ", i), 700) // ~16 KiB each
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":"weather_station_%d","description":%q,"inputSchema":{"type":"object"}}`, i%6, desc)))
		if i >= 5 {
			break
		}
	}
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice, tools: tools})
	rc := f.rawConnect(t)
	for _, id := range []string{`7`, `"` + strings.Repeat("i", 200) + `"`, `"<&>` + strings.Repeat("é", 40) + `"`} {
		t.Run(fmt.Sprintf("%.20s", id), func(t *testing.T) {
			cursor, walked := "", 0
			for page := 0; ; page++ {
				params := `{"query":"weather data","limit":16`
				if cursor != "" {
					params += `,"cursor":"` + cursor + `"`
				}
				resp := rc.call(`{"jsonrpc":"2.0","id":`+id+`,"method":"multillm.tools.discover","params":`+params+`}}`, normalizeID(id))
				if len(resp) > discovery.MaxResponseBytes {
					t.Fatalf("id %.20s page %d: %d bytes, more than %d", id, page, len(resp), discovery.MaxResponseBytes)
				}
				var r struct {
					Result struct {
						Tools      []json.RawMessage `json:"tools"`
						NextCursor string            `json:"nextCursor"`
					} `json:"result"`
				}
				if err := json.Unmarshal(resp, &r); err != nil || r.Result.Tools == nil {
					t.Fatalf("id %.20s page %d: %.300s", id, page, resp)
				}
				walked += len(r.Result.Tools)
				if r.Result.NextCursor == "" {
					break
				}
				if len(r.Result.Tools) == 16 {
					t.Fatalf("page %d is not byte-bounded", page)
				}
				cursor = r.Result.NextCursor
			}
			if walked != 6 {
				t.Errorf("id %.20s: walked %d tools, want 6", id, walked)
			}
		})
	}
}

// normalizeID is the id as the SDK writes it back (strings re-encoded without HTML
// escaping, é as itself).
func normalizeID(id string) string {
	var v any
	json.Unmarshal([]byte(id), &v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// SPEC CALL-2: a granted call with valid arguments reaches the tool's handler.
func TestCallGranted(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice})
	cs := f.connect(t)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather_get", Arguments: map[string]any{"city": "Oslo"}})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "ran weather_get" {
		t.Fatalf("CallTool = %+v, want the handler's result", res)
	}
	if n := f.calls("weather_get"); n != 1 {
		t.Errorf("handler ran %d times, want 1", n)
	}
}

// SPEC CALL-1, VIS-2, ERR-1: a denied, ungranted or unknown tool answers the same
// JSON-RPC error, tool_not_granted with status 403, whatever the arguments (valid,
// invalid or not JSON-decodable to the schema), and the handler never runs.
func TestCallDenied(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob})
	cs := f.connect(t)
	for _, c := range []struct {
		tool string
		args any
	}{
		{"deploy_model", map[string]any{"model": "llama"}},      // granted to others, not to bob
		{"deploy_model", map[string]any{"model": 42, "x": "y"}}, // and invalid arguments
		{"secrets_read", map[string]any{"key": "k"}},            // no row at all
		{"no_such_tool", map[string]any{}},                      // unknown
	} {
		t.Run(c.tool, func(t *testing.T) {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			var je *jsonrpc.Error
			if !errors.As(err, &je) {
				t.Fatalf("CallTool(%s, %v) error = %v, want a JSON-RPC error", c.tool, c.args, err)
			}
			if je.Code != -32000 || je.Message != "tool_not_granted" ||
				string(je.Data) != `{"error":"tool_not_granted","status":403}` {
				t.Errorf("CallTool(%s, %v) = code %d message %q data %s, want -32000 tool_not_granted {403}", c.tool, c.args, je.Code, je.Message, je.Data)
			}
		})
	}
	for _, name := range []string{"deploy_model", "secrets_read"} {
		if n := f.calls(name); n != 0 {
			t.Errorf("handler of %s ran %d times", name, n)
		}
	}
}

// SPEC CALL-2, ERR-1, ERR-2: invalid arguments of a granted tool answer a tool result
// with isError whose text names the keyword and the schema location, never the value.
func TestCallInvalidArguments(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice})
	cs := f.connect(t)
	const secret = "Xy-SECRET-VALUE-9"
	for _, c := range []struct {
		tool    string
		args    map[string]any
		keyword string
	}{
		{"weather_get", map[string]any{"city": "x"}, "minLength"},
		{"weather_get", map[string]any{"city": secret, secret: 1}, "additionalProperties"},
		{"deploy_model", map[string]any{"model": secret}, "pattern"},
		{"weather_get", map[string]any{}, "required"},
	} {
		t.Run(c.tool+"/"+c.keyword, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatalf("CallTool(%s): %v, want a tool result", c.tool, err)
			}
			if !res.IsError || len(res.Content) != 1 {
				t.Fatalf("CallTool(%s, %v) = %+v, want isError with one text", c.tool, c.args, res)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			// The keyword and location are the Discoverer's verdict; the adapter must carry both.
			args, _ := json.Marshal(c.args)
			var de *discovery.Error
			if err := f.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: c.tool, Arguments: args}); !errors.As(err, &de) || de.Code != discovery.CodeInvalidArguments {
				t.Fatalf("AuthorizeCall(%s, %s) = %v, want invalid_arguments", c.tool, args, err)
			}
			want := fmt.Sprintf("invalid arguments: keyword %q failed at schema location %q", de.Keyword, de.Path)
			if text != want {
				t.Errorf("CallTool(%s, %s) text %q, want %q", c.tool, args, text, want)
			}
			if c.keyword != "additionalProperties" && de.Keyword != c.keyword { // see the report: validate names the false subschema
				t.Errorf("CallTool(%s, %s) keyword %q, want %q", c.tool, args, de.Keyword, c.keyword)
			}
			if strings.Contains(text, secret) || strings.Contains(text, `"x"`) {
				t.Errorf("CallTool(%s) text %q contains an argument value", c.tool, text)
			}
		})
	}
	if n := f.calls("weather_get") + f.calls("deploy_model"); n != 0 {
		t.Errorf("handlers ran %d times on invalid arguments", n)
	}
}

// SPEC CALL-6: the host's check runs after the grant and validation, on the adapter's
// path too; a *jsonrpc.Error goes out as the host wrote it, any other error as
// tool_call_refused without its text.
func TestCallHostCheck(t *testing.T) {
	ctx := context.Background()
	check := func(_ context.Context, p grants.Principal, tool string, args json.RawMessage) error {
		switch tool {
		case "weather_forecast":
			return errors.New("needs the management scope: internal detail")
		case "deploy_model":
			return &jsonrpc.Error{Code: -32001, Message: "maintenance window"}
		}
		return nil
	}
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice, checkCall: check})
	cs := f.connect(t)
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather_forecast", Arguments: map[string]any{"city": "Oslo"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != string(discovery.CodeCallRefused) || string(je.Data) != `{"error":"tool_call_refused","status":403}` {
		t.Errorf("host refusal = %v, want tool_call_refused 403", err)
	}
	if err != nil && strings.Contains(err.Error(), "internal detail") {
		t.Errorf("host error text reached the client: %v", err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy_model", Arguments: map[string]any{"model": "abc"}})
	if !errors.As(err, &je) || je.Code != -32001 || je.Message != "maintenance window" {
		t.Errorf("host JSON-RPC error = %v, want it unchanged", err)
	}
	// Invalid arguments are refused before the host check is asked (CALL-6 runs after).
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy_model", Arguments: map[string]any{"model": "ABC"}})
	if err != nil || !res.IsError {
		t.Errorf("invalid arguments with a host check = %v, %v; want an isError result", res, err)
	}
	if n := f.calls("weather_forecast") + f.calls("deploy_model"); n != 0 {
		t.Errorf("handlers ran %d times despite the host check", n)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather_get", Arguments: map[string]any{"city": "Oslo"}}); err != nil {
		t.Errorf("call the host allows: %v", err)
	}
}

// SPEC CONTRACT-2: a client pin in params._meta.contract_digest that differs answers
// contract_changed (409); the right pin passes.
func TestCallContractPin(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice})
	cs := f.connect(t)
	list, _ := f.d.ListTools(ctx, alice)
	args := map[string]any{"city": "Oslo"}
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: mcp.Meta{"contract_digest": "sha256:00"}, Name: "weather_get", Arguments: args})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != "contract_changed" || string(je.Data) != `{"error":"contract_changed","status":409}` {
		t.Errorf("stale pin = %v, want contract_changed 409", err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: mcp.Meta{"contract_digest": list.ContractDigest}, Name: "weather_get", Arguments: args}); err != nil {
		t.Errorf("current pin: %v", err)
	}
}

// The discovery tool: listed last, its result the discover page as structured content
// (and the same JSON as text), its invalid params an isError result.
func TestDiscoveryTool(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, fixtureOptions{enabled: true, principal: bob, tool: "find_tools"})
	cs := f.connect(t)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_tools", Arguments: map[string]any{"query": "forecast weather", "limit": 3}})
	if err != nil || res.IsError {
		t.Fatalf("discovery tool: %+v, %v", res, err)
	}
	// The discover page as DiscoverTool builds it: without the method's cache hints.
	page, err := f.d.DiscoverTool(ctx, bob, json.RawMessage(`{"query":"forecast weather","limit":3}`))
	if err != nil {
		t.Fatal(err)
	}
	want := page.AppendJSON(nil)
	sc, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var gotV, wantV any
	json.Unmarshal(sc, &gotV)
	json.Unmarshal(want, &wantV)
	// The cursor is sealed afresh on every page, so compare everything else.
	for _, v := range []any{gotV, wantV} {
		if m, ok := v.(map[string]any); ok {
			delete(m, "nextCursor")
		}
	}
	if diff := cmp.Diff(wantV, gotV); diff != "" {
		t.Errorf("structured content (-discover +tool):\n%s", diff)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !json.Valid([]byte(text)) || !strings.Contains(text, `"weather_forecast"`) {
		t.Errorf("text content %.200q, want the page's JSON", text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_tools", Arguments: map[string]any{"query": "x", "limit": 99}})
	if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != "invalid_params" {
		t.Errorf("discovery tool with limit 99 = %+v, %v; want isError invalid_params", res, err)
	}
}

// SPEC FLAG-2: while the switch is off nothing changes: tools/list bytes, calls (a
// tool nobody is granted still runs), the discover method is -32601 exactly like an
// unknown method, the discovery tool does not exist, and no grant is ever read.
func TestSwitchOff(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: false, principal: bob, tool: "search_tools"})
	bare := &fixture{cat: f.cat, server: newSDKServer(f.cat, 0, nil, nil), a: mcpsdk.New(discovery.New(nil), nil)}
	got, want := f.rawConnect(t), bare.rawConnect(t)
	for i, req := range []string{
		`{"jsonrpc":"2.0","id":ID,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"secrets_read","arguments":{"key":"k"}}}`,
		`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"k"}}}`,
		`{"jsonrpc":"2.0","id":ID,"method":"multillm.tools.discover","params":{"query":"weather"}}`,
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			id := fmt.Sprint(100 + i)
			line := strings.Replace(req, "ID", id, 1)
			g, w := got.call(line, id), want.call(line, id)
			if !bytes.Equal(g, w) {
				t.Errorf("switch off, %s:\n got %s\nwant %s (the bare go-sdk server)", line, g, w)
			}
		})
	}
	disc := got.call(`{"jsonrpc":"2.0","id":200,"method":"multillm.tools.discover","params":{"query":"weather"}}`, "200")
	unknown := got.call(`{"jsonrpc":"2.0","id":200,"method":"no.such.method","params":{"query":"weather"}}`, "200")
	de, ue := decodeError(t, disc), decodeError(t, unknown)
	if de == nil || ue == nil || de.Code != -32601 || de.Code != ue.Code ||
		strings.ReplaceAll(de.Message, "multillm.tools.discover", "M") != strings.ReplaceAll(ue.Message, "no.such.method", "M") {
		t.Errorf("discover while off = %s, want -32601 like an unknown method (%s)", disc, unknown)
	}
	if n := f.calls("secrets_read"); n != 1 {
		t.Errorf("while off, the ungranted tool's handler ran %d times, want 1", n)
	}
	if n := f.reads.n.Load(); n != 0 {
		t.Errorf("while off, the grant store was read %d times", n)
	}
}

// A PrincipalFunc that fails refuses with unauthenticated (401), reading nothing.
func TestPrincipalFailure(t *testing.T) {
	fail := func(context.Context, *mcp.RequestExtra) (grants.Principal, error) {
		return grants.Principal{}, errors.New("no token: secret detail")
	}
	f := newFixture(t, fixtureOptions{enabled: true, principal2: fail})
	rc := f.rawConnect(t)
	for i, req := range []string{
		`{"jsonrpc":"2.0","id":ID,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","id":ID,"method":"multillm.tools.discover","params":{"query":"weather"}}`,
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			id := fmt.Sprint(300 + i)
			resp := rc.call(strings.Replace(req, "ID", id, 1), id)
			e := decodeError(t, resp)
			if e == nil || e.Data.Error != string(discovery.CodeUnauthenticated) || e.Data.Status != 401 || bytes.Contains(resp, []byte("secret")) {
				t.Errorf("%s with a failing principal: %s, want unauthenticated 401", req, resp)
			}
		})
	}
	if n := f.reads.n.Load(); n != 0 {
		t.Errorf("grant store read %d times for an unauthenticated caller", n)
	}
}

// With the switch on, every method but tools/list, tools/call and discover is left
// alone: the adapter's server answers them byte for byte like the bare go-sdk server,
// except that an SDK error is written content-free (SPEC ERR-2): same code, the message
// a fixed word for it, never the method name the client sent.
func TestOtherMethodsUntouched(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice, tool: "search_tools"})
	bare := &fixture{cat: f.cat, server: newSDKServer(f.cat, 0, nil, nil), a: mcpsdk.New(discovery.New(nil), nil)}
	got, want := f.rawConnect(t), bare.rawConnect(t)
	for i, req := range []string{
		`{"jsonrpc":"2.0","id":ID,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":ID,"method":"prompts/list"}`,
		`{"jsonrpc":"2.0","id":ID,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":ID,"method":"logging/setLevel","params":{"level":"info"}}`,
		`{"jsonrpc":"2.0","id":ID,"method":"no.such.method","params":{}}`,
		`{"jsonrpc":"2.0","id":ID,"method":"multillm.tools.discoverX","params":{"query":"x"}}`,
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			id := fmt.Sprint(400 + i)
			line := strings.Replace(req, "ID", id, 1)
			g, w := got.call(line, id), want.call(line, id)
			if we := decodeError(t, w); we != nil {
				wantErr := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method_not_found","data":{"error":"method_not_found","status":404}}}`, id)
				if we.Code != -32601 || string(g) != wantErr {
					t.Errorf("%s:\n got %s\nwant %s (the bare go-sdk server's %s, content-free)", line, g, wantErr, w)
				}
				return
			}
			if !bytes.Equal(g, w) {
				t.Errorf("%s:\n got %s\nwant %s (the bare go-sdk server)", line, g, w)
			}
		})
	}
	if n := f.reads.n.Load(); n != 0 {
		t.Errorf("other methods read grants %d times", n)
	}
}

// SPEC FLAG-3, GRANT-5, ERR-2: grant storage that cannot answer refuses tools/list,
// tools/call and discover with grants_unavailable (503) before anything executes, and
// the storage's error text never reaches the wire.
func TestGrantsUnavailable(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice, tool: "search_tools",
		reader: &grantstest.ErrReader{Err: fmt.Errorf("%w: pq: relation tool_grants does not exist", grants.ErrUnavailable)}})
	rc := f.rawConnect(t)
	for i, req := range []string{
		`{"jsonrpc":"2.0","id":ID,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather"}}}`,
		`{"jsonrpc":"2.0","id":ID,"method":"multillm.tools.discover","params":{"query":"weather"}}`,
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			id := fmt.Sprint(500 + i)
			resp := rc.call(strings.Replace(req, "ID", id, 1), id)
			e := decodeError(t, resp)
			if e == nil || e.Code != -32000 || e.Data.Error != "grants_unavailable" || e.Data.Status != 503 || bytes.Contains(resp, []byte("relation")) {
				t.Errorf("%s with storage down: %s, want grants_unavailable 503 without storage text", req, resp)
			}
		})
	}
	if n := f.calls("weather_get"); n != 0 {
		t.Errorf("handler ran %d times with storage down", n)
	}
}
