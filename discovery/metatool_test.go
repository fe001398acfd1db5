package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/metatool"
	"github.com/deferredtools/deferredtools/safemode"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// The meta tool fixture: "issue" (action create, list or close; list read-only by its
// own hint, the tool itself not), "repo" (argument "method": get or archive), and a
// plain tool "echo".

const issueTool = `{"name":"issue","description":"Create, list or close the issues of a project.",` +
	`"annotations":{"readOnlyHint":false},"inputSchema":{"type":"object","properties":{` +
	`"action":{"type":"string","enum":["create","list","close"],"description":"What to do."},` +
	`"project":{"type":"string","maxLength":50},"title":{"type":"string","maxLength":200},` +
	`"iid":{"type":"integer","minimum":1}},"required":["action","project"],"additionalProperties":false}}`

const repoTool = `{"name":"repo","description":"Read the settings of a repository.",` +
	`"inputSchema":{"type":"object","properties":{"method":{"type":"string","enum":["get","archive"]},` +
	`"repo":{"type":"string"}},"required":["method","repo"]}}`

func yes() *bool { b := true; return &b }

func metaDecls() map[string]metatool.Tool {
	return map[string]metatool.Tool{
		"issue": {Actions: []metatool.Action{{Name: "create"}, {Name: "list", ReadOnlyHint: yes()}, {Name: "close", DestructiveHint: yes()}}},
		"repo":  {Argument: "method", Actions: []metatool.Action{{Name: "get", ReadOnlyHint: yes()}, {Name: "archive"}}},
	}
}

func metaTools() []json.RawMessage {
	return []json.RawMessage{json.RawMessage(issueTool), json.RawMessage(repoTool), toolDef("echo", "Echo a text back.")}
}

func metaCatalog(t testing.TB, decls map[string]metatool.Tool) *discovery.Catalog {
	t.Helper()
	c, err := discovery.NewCatalog(metaTools(), &discovery.CatalogOptions{MetaTools: decls})
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return c
}

// servedEnum returns the enum of the named property of a served definition.
func servedEnum(t testing.TB, def json.RawMessage, prop string) []string {
	t.Helper()
	var v struct {
		InputSchema struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	if err := json.Unmarshal(def, &v); err != nil {
		t.Fatal(err)
	}
	return v.InputSchema.Properties[prop].Enum
}

// listed returns ListTools' tools by name.
func listed(t testing.TB, d *discovery.Discoverer, p grants.Principal) (map[string]json.RawMessage, *discovery.ListResult) {
	t.Helper()
	list, err := d.ListTools(context.Background(), p)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	out := map[string]json.RawMessage{}
	for i, name := range toolNames(t, list.Tools) {
		out[name] = list.Tools[i]
	}
	return out, list
}

// SPEC GRANT-2, VIS-1, DISC-3, CONTRACT-2: a meta tool is listed and discoverable when
// at least one of its actions is granted, served with its enum narrowed to those; a
// row naming the meta tool itself decides nothing; the contract digest is the one of
// the served definitions.
func TestMetaToolListedPerAction(t *testing.T) {
	ctx := context.Background()
	cat := metaCatalog(t, metaDecls())
	store := newStore(t, allow("*", "echo"), allow("alice", "issue")) // the tool's own name: nothing
	d := newDiscoverer(cat, store, nil)

	tools, _ := listed(t, d, alice)
	if _, ok := tools["issue"]; ok {
		t.Fatalf("issue listed with no action granted (a row on its own name decides nothing)")
	}
	wantCode(t, "AuthorizeTool(issue), no action", d.AuthorizeTool(ctx, alice, "issue"), discovery.CodeToolNotGranted)

	store.Put(ctx, allow("alice", "issue.list"))
	store.Put(ctx, allow("alice", "issue.close", "models:read"))
	store.Put(ctx, allow("alice", "repo.archive", "admin")) // a scope alice lacks
	tools, list := listed(t, d, alice)
	if got := servedEnum(t, tools["issue"], "action"); !slices.Equal(got, []string{"list", "close"}) {
		t.Errorf("issue served with actions %q, want [list close] (catalog order, granted only)", got)
	}
	if _, ok := tools["repo"]; ok {
		t.Errorf("repo listed, though its one granted action needs a scope alice lacks")
	}
	if err := d.AuthorizeTool(ctx, alice, "issue"); err != nil {
		t.Errorf("AuthorizeTool(issue) = %v, want nil: an action is granted", err)
	}
	// The served definition is the catalog's with the enum narrowed, nothing else.
	full, _ := cat.Tool("issue")
	if want := strings.Replace(string(full), `["create","list","close"]`, `["list","close"]`, 1); string(tools["issue"]) != want {
		t.Errorf("served issue =\n%s\nwant\n%s", tools["issue"], want)
	}
	if def, ok := list.Tool("issue"); !ok || string(def) != string(tools["issue"]) {
		t.Errorf("ListResult.Tool(issue) = %s, %v; want the served definition", def, ok)
	}
	// CONTRACT-2: the digest recomputes from the served bytes.
	var digests [][32]byte
	for _, def := range list.Tools {
		digests = append(digests, schemaguard.Digest(def))
	}
	if got := schemaguard.ContractDigest(digests); got != list.ContractDigest {
		t.Errorf("contract digest %s, recomputed from the served tools %s", list.ContractDigest, got)
	}
	// Discover serves the same bytes and digest.
	page, err := d.Discover(ctx, alice, discovery.Request{Query: "issues project"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Tools) == 0 || string(page.Tools[0]) != string(tools["issue"]) || page.ContractDigest != list.ContractDigest {
		t.Errorf("discover page %s (digest %s), want the listed issue first and digest %s", page.Tools, page.ContractDigest, list.ContractDigest)
	}
	// All actions granted: the catalog's own definition.
	store.Put(ctx, allow("alice", "issue.create"))
	tools, _ = listed(t, d, alice)
	if string(tools["issue"]) != string(full) {
		t.Errorf("issue with every action granted served as %s, want the catalog's definition", tools["issue"])
	}
}

// SPEC CALL-1, VIS-2: a call of a meta tool is decided on its action, read alone from
// the raw arguments before anything else; an action not served is refused with
// tool_not_granted whatever the other arguments, and so is every argument text that
// names no served action.
func TestMetaToolCallDecidedOnAction(t *testing.T) {
	ctx := context.Background()
	cat := metaCatalog(t, metaDecls())
	d := newDiscoverer(cat, newStore(t, allow("alice", "issue.list"), allow("alice", "issue.create")), nil)
	deep := strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000)
	huge := `"` + strings.Repeat("x", 1<<20) + `"`
	others := []string{ // what follows the action: valid, invalid, deep, huge, repeated, not JSON
		`,"project":"p"`, `,"project":7`, `,"project":"p","extra":1`, `,"project":` + deep, `,"project":` + huge,
		`,"project":"a","project":"b"`, `,"project":"\ud800"`, `,"project":`, `,"project":tru`,
	}
	for _, action := range []string{`"close"`, `"delete"`, `"CLOSE"`, `"list "`, `7`, `null`, `["list"]`, `"cl\u006fse"`} {
		for _, rest := range others {
			args := `{"action":` + action + rest + `}`
			err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "issue", Arguments: json.RawMessage(args)})
			wantCode(t, "action "+action+" with "+trim(rest), err, discovery.CodeToolNotGranted)
			_, err = d.AuthorizeActionThen(ctx, alice, "issue", json.RawMessage(args))
			wantCode(t, "AuthorizeActionThen, action "+action+" with "+trim(rest), err, discovery.CodeToolNotGranted)
		}
	}
	refused := []string{
		``, `{}`, `{"project":"p"}`, `[]`, `"list"`, `null`, `{"Action":"list","project":"p"}`,
		`{"action":"list","action":"list","project":"p"}`, `{"action":"list","action":"close","project":"p"}`,
		`{"action":"close","action":"list","project":"p"}`, `{"action":"list","project":"p"`, `{"action":"list"}x`,
	}
	for _, args := range refused {
		err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "issue", Arguments: json.RawMessage(args)})
		wantCode(t, "arguments "+trim(args), err, discovery.CodeToolNotGranted)
	}
	granted := []struct {
		args string
		code discovery.Code // "" for allowed
	}{
		{`{"action":"list","project":"p"}`, ""},
		{` {"project":"p" , "\u0061ction" : "li\u0073t"} `, ""},
		{`{"action":"create","project":"p","title":"t"}`, ""},
		{`{"action":"list"}`, discovery.CodeInvalidArguments},                                // project required
		{`{"action":"list","project":"p","Action":"close"}`, discovery.CodeInvalidArguments}, // an unknown member
		{`{"action":"list","project":` + deep + `}`, discovery.CodeValidationUnavailable},
	}
	for _, g := range granted {
		err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "issue", Arguments: json.RawMessage(g.args)})
		if g.code == "" {
			if err != nil {
				t.Errorf("arguments %s: %v, want allowed", trim(g.args), err)
			}
			continue
		}
		wantCode(t, "arguments "+trim(g.args), err, g.code)
	}
	// A stale pin does not hide an action refusal: the action is decided first.
	err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "issue", Arguments: json.RawMessage(`{"action":"close","project":"p"}`), ContractPin: "sha256:00"})
	wantCode(t, "action close, stale pin", err, discovery.CodeToolNotGranted)

	// The name alone grants the meta tool; its call then decides the action.
	call, err := d.AuthorizeToolThen(ctx, alice, "issue")
	if err != nil {
		t.Fatalf("AuthorizeToolThen(issue) = %v", err)
	}
	wantCode(t, "AuthorizeToolThen's call, action close", call(ctx, alice, discovery.Call{Tool: "issue", Arguments: json.RawMessage(`{"action":"close","project":"p"}`)}), discovery.CodeToolNotGranted)
	call, err = d.AuthorizeActionThen(ctx, alice, "issue", json.RawMessage(`{"action":"list","project":"p"}`))
	if err != nil {
		t.Fatalf("AuthorizeActionThen(issue, list) = %v", err)
	}
	// Its call rereads the action of what it is given.
	wantCode(t, "AuthorizeActionThen's call, other action", call(ctx, alice, discovery.Call{Tool: "issue", Arguments: json.RawMessage(`{"action":"close","project":"p"}`)}), discovery.CodeToolNotGranted)
	// A plain tool's arguments are not looked at by AuthorizeActionThen.
	if _, err := d.AuthorizeActionThen(ctx, alice, "issue", nil); !errors.Is(err, discovery.CodeToolNotGranted) {
		t.Errorf("AuthorizeActionThen(issue, no arguments) = %v, want tool_not_granted", err)
	}
}

func trim(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// SPEC VIS-1, VIS-2: read-only mode and exclusions apply per action: an action's own
// hint decides under ReadOnly, an excluded action ID withholds that action, and the
// meta tool's name withholds all of them.
func TestMetaToolVisibilityPerAction(t *testing.T) {
	ctx := context.Background()
	cat := metaCatalog(t, metaDecls())
	store := newStore(t, allow("*", "issue.create"), allow("*", "issue.list"), allow("*", "issue.close"),
		allow("*", "repo.get"), allow("*", "repo.archive"), allow("*", "echo"))
	args := func(action string) json.RawMessage {
		return json.RawMessage(`{"action":"` + action + `","project":"p"}`)
	}
	cases := []struct {
		name string
		vis  discovery.Visibility
		want map[string][]string // tool: served actions (nil: not listed)
	}{
		{"none", discovery.Visibility{}, map[string][]string{"issue": {"create", "list", "close"}, "repo": {"get", "archive"}}},
		// issue's own readOnlyHint is false: only list, read-only by its own hint, is served.
		{"read-only", discovery.Visibility{ReadOnly: true}, map[string][]string{"issue": {"list"}, "repo": {"get"}}},
		{"exclude an action", discovery.Visibility{Exclude: []string{"issue.close", "repo.get"}}, map[string][]string{"issue": {"create", "list"}, "repo": {"archive"}}},
		{"exclude the tool", discovery.Visibility{Exclude: []string{"issue"}}, map[string][]string{"issue": nil, "repo": {"get", "archive"}}},
		{"exclude every action", discovery.Visibility{Exclude: []string{"repo.get", "repo.archive"}}, map[string][]string{"issue": {"create", "list", "close"}, "repo": nil}},
	}
	for _, c := range cases {
		d := newDiscoverer(cat, store, func(o *discovery.Options) { o.Visibility = c.vis })
		tools, _ := listed(t, d, alice)
		for tool, want := range c.want {
			prop := map[string]string{"issue": "action", "repo": "method"}[tool]
			def, ok := tools[tool]
			if want == nil {
				if ok {
					t.Errorf("%s: %s listed, want withheld", c.name, tool)
				}
				wantCode(t, c.name+": AuthorizeTool "+tool, d.AuthorizeTool(ctx, alice, tool), discovery.CodeToolNotGranted)
				continue
			}
			if got := servedEnum(t, def, prop); !slices.Equal(got, want) {
				t.Errorf("%s: %s served with %q, want %q", c.name, tool, got, want)
			}
		}
		for _, action := range []string{"create", "list", "close"} {
			err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "issue", Arguments: args(action)})
			if slices.Contains(c.want["issue"], action) != (err == nil) {
				t.Errorf("%s: call issue %s = %v, want allowed %v", c.name, action, err, slices.Contains(c.want["issue"], action))
			}
		}
	}
}

// SPEC CONTRACT-2, CURSOR-2: the contract digest covers the actions served, so a
// change to one action's grant changes it (a pin of the old one is contract_changed),
// and a cursor bound to it no longer opens. The second half changes nothing but an
// action's hint, served under ReadOnly: rows, revision, principal, query and every
// definition's catalog bytes stay, so only the narrowed definition can tell.
func TestMetaToolGrantChangeInvalidates(t *testing.T) {
	ctx := context.Background()
	cat := metaCatalog(t, metaDecls())
	store := newStore(t, allow("alice", "issue.list"), allow("alice", "echo"))
	d := newDiscoverer(cat, store, nil)
	_, before := listed(t, d, alice)
	store.Put(ctx, allow("alice", "issue.create"))
	_, after := listed(t, d, alice)
	if before.ContractDigest == after.ContractDigest {
		t.Fatalf("contract digest unchanged by granting issue.create")
	}
	call := discovery.Call{Tool: "issue", Arguments: json.RawMessage(`{"action":"list","project":"p"}`), ContractPin: before.ContractDigest}
	wantCode(t, "call pinned to the digest before", d.AuthorizeCall(ctx, alice, call), discovery.CodeContractChanged)
	call.ContractPin = after.ContractDigest
	if err := d.AuthorizeCall(ctx, alice, call); err != nil {
		t.Errorf("call pinned to the current digest: %v", err)
	}
	// A cursor of the page before an action's grant changes does not open after it.
	store.Put(ctx, allow("alice", "issue_notes"))
	notes := json.RawMessage(`{"name":"issue_notes","description":"Read the notes on project issues.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object"}}`)
	cat2, err := discovery.NewCatalog(append(metaTools(), notes), &discovery.CatalogOptions{MetaTools: metaDecls()})
	if err != nil {
		t.Fatal(err)
	}
	d = newDiscoverer(cat2, store, nil)
	first, err := d.Discover(ctx, alice, discovery.Request{Query: "project issues", Limit: 1})
	if err != nil || first.NextCursor == "" {
		t.Fatalf("first page: %v, cursor %q", err, first.NextCursor)
	}
	store.Put(ctx, allow("alice", "issue.close"))
	_, err = d.Discover(ctx, alice, discovery.Request{Query: "project issues", Limit: 1, Cursor: first.NextCursor})
	wantCode(t, "second page after granting issue.close", err, discovery.CodeInvalidCursor)

	// The same rows under two catalog versions whose only difference is issue.close's
	// read-only hint.
	decls := metaDecls()
	decls["issue"].Actions[2].ReadOnlyHint = yes()
	v1, err := discovery.NewCatalog(append(metaTools(), notes), &discovery.CatalogOptions{MetaTools: decls})
	if err != nil {
		t.Fatal(err)
	}
	v2, err := discovery.NewCatalog(append(metaTools(), notes), &discovery.CatalogOptions{MetaTools: metaDecls()})
	if err != nil {
		t.Fatal(err)
	}
	var sw discovery.SwappableCatalog
	sw.Store(v1)
	store = newStore(t, allow("alice", "issue.list"), allow("alice", "issue.close"), allow("alice", "issue_notes"))
	d = newDiscoverer(&sw, store, func(o *discovery.Options) { o.Visibility.ReadOnly = true })
	req := discovery.Request{Query: "project issues", Limit: 1}
	page, err := d.Discover(ctx, alice, req)
	if err != nil || page.NextCursor == "" {
		t.Fatalf("first page: %v, cursor %q", err, page.NextCursor)
	}
	if _, err := d.Discover(ctx, alice, discovery.Request{Query: req.Query, Limit: 1, Cursor: page.NextCursor}); err != nil {
		t.Fatalf("second page, same version: %v", err)
	}
	sw.Store(v2)
	_, err = d.Discover(ctx, alice, discovery.Request{Query: req.Query, Limit: 1, Cursor: page.NextCursor})
	wantCode(t, "second page after issue.close stopped being served", err, discovery.CodeInvalidCursor)
}

// SPEC DISC-5: the actions of a meta tool's enum do not count for its rank, so an
// action a principal is not served cannot move its results. "archive" is only the
// value of repo's method enum.
func TestMetaToolRankIgnoresActionEnum(t *testing.T) {
	ctx := context.Background()
	cat := metaCatalog(t, metaDecls())
	d := newDiscoverer(cat, newStore(t, allow("alice", "repo.get"), allow("bob", "repo.get"), allow("bob", "repo.archive")), nil)
	for _, p := range []grants.Principal{alice, bob} {
		page, err := d.Discover(ctx, p, discovery.Request{Query: "archive"})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Tools) != 0 {
			t.Errorf("%s: query archive found %d tools, want none: the enum is not ranked", p.ID, len(page.Tools))
		}
	}
	// Without the declaration the enum is parameter text, as for any tool.
	plain := newCatalog(t, metaTools()...)
	d = newDiscoverer(plain, newStore(t, allow("alice", "repo")), nil)
	if page, err := d.Discover(ctx, alice, discovery.Request{Query: "archive"}); err != nil || len(page.Tools) != 1 {
		t.Errorf("plain catalog, query archive: %v, %d tools; want repo", err, len(page.Tools))
	}
}

// SPEC ERR-5: declarations that do not fit the catalog refuse it, saying which rule
// and which tool.
func TestMetaToolCatalogRefused(t *testing.T) {
	schema := func(action map[string]any, required ...any) map[string]any {
		return map[string]any{"type": "object", "properties": map[string]any{"action": action, "q": map[string]any{"type": "string"}}, "required": required}
	}
	enum := map[string]any{"type": "string", "enum": []any{"a", "b"}}
	ab := metatool.Tool{Actions: []metatool.Action{{Name: "a"}, {Name: "b"}}}
	cases := []struct {
		name   string
		tools  []json.RawMessage
		decls  map[string]metatool.Tool
		reason string
		index  int
	}{
		{"no such tool", []json.RawMessage{toolDef("x", "")}, map[string]metatool.Tool{"m": ab}, "meta tool: no such tool", -1},
		{"not required", []json.RawMessage{toolDef("x", ""), toolDefSchema("m", "", schema(enum))}, map[string]metatool.Tool{"m": ab}, "meta tool: argument", 1},
		{"no enum", []json.RawMessage{toolDefSchema("m", "", schema(map[string]any{"type": "string"}, "action"))}, map[string]metatool.Tool{"m": ab}, "meta tool: argument", 0},
		{"not an object schema", []json.RawMessage{toolDefSchema("m", "", map[string]any{"properties": map[string]any{"action": enum}, "required": []any{"action"}})}, map[string]metatool.Tool{"m": ab}, "meta tool: argument", 0},
		{"other argument", []json.RawMessage{toolDefSchema("m", "", schema(enum, "action"))}, map[string]metatool.Tool{"m": {Argument: "op", Actions: ab.Actions}}, "meta tool: argument", 0},
		{"case twin", []json.RawMessage{toolDefSchema("m", "", map[string]any{"type": "object", "properties": map[string]any{"action": enum, "Action": enum}, "required": []any{"action"}})}, map[string]metatool.Tool{"m": ab}, "meta tool: argument", 0},
		{"repeated enum value", []json.RawMessage{toolDefSchema("m", "", schema(map[string]any{"enum": []any{"a", "a"}}, "action"))}, map[string]metatool.Tool{"m": {Actions: []metatool.Action{{Name: "a"}, {Name: "a"}}}}, "meta tool: argument", 0},
		{"enum not strings", []json.RawMessage{toolDefSchema("m", "", schema(map[string]any{"enum": []any{"a", 1}}, "action"))}, map[string]metatool.Tool{"m": ab}, "meta tool: argument", 0},
		{"action missing", []json.RawMessage{toolDefSchema("m", "", schema(enum, "action"))}, map[string]metatool.Tool{"m": {Actions: ab.Actions[:1]}}, "meta tool: actions", 0},
		{"action extra", []json.RawMessage{toolDefSchema("m", "", schema(enum, "action"))}, map[string]metatool.Tool{"m": {Actions: append(slices.Clone(ab.Actions), metatool.Action{Name: "c"})}}, "meta tool: actions", 0},
		{"other action", []json.RawMessage{toolDefSchema("m", "", schema(enum, "action"))}, map[string]metatool.Tool{"m": {Actions: []metatool.Action{{Name: "a"}, {Name: "c"}}}}, "meta tool: actions", 0},
		{"no action", []json.RawMessage{toolDefSchema("m", "", schema(enum, "action"))}, map[string]metatool.Tool{"m": {}}, "meta tool: actions", 0},
		{"dot in an action", []json.RawMessage{toolDefSchema("m", "", schema(map[string]any{"enum": []any{"a", "b.c"}}, "action"))}, map[string]metatool.Tool{"m": {Actions: []metatool.Action{{Name: "a"}, {Name: "b.c"}}}}, "meta tool: actions", 0},
		{"repeated action", []json.RawMessage{toolDefSchema("m", "", schema(enum, "action"))}, map[string]metatool.Tool{"m": {Actions: []metatool.Action{{Name: "a"}, {Name: "a"}}}}, "meta tool: actions", 0},
		{"ID is a tool", []json.RawMessage{toolDefSchema("m", "", schema(enum, "action")), toolDef("m.b", "")}, map[string]metatool.Tool{"m": ab}, "meta tool: action ID", 0},
		// Tool m.a with action b and tool m with action a.b cannot both exist (no '.' in
		// an action), but tool "m" with action "a" and tool "m.a" with any action can:
		// their IDs differ from each other and from every name.
	}
	for _, c := range cases {
		_, err := discovery.NewCatalog(c.tools, &discovery.CatalogOptions{MetaTools: c.decls})
		var ce *discovery.CatalogError
		if !errors.As(err, &ce) {
			t.Errorf("%s: NewCatalog = %v, want a *CatalogError", c.name, err)
			continue
		}
		if ce.Reason != c.reason || ce.Index != c.index {
			t.Errorf("%s: refused with %q at %d, want %q at %d", c.name, ce.Reason, ce.Index, c.reason, c.index)
		}
	}
	// Tool "m" (action "a") beside a tool named "m.a.x" and meta tool "m.a" (action
	// "b"): IDs m.a and m.a.b are distinct from each other and from every name... but
	// m.a is tool m.a's own name: refused.
	tools := []json.RawMessage{toolDefSchema("m", "", schema(enum, "action")), toolDefSchema("m.a", "", schema(enum, "action"))}
	_, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{MetaTools: map[string]metatool.Tool{"m": ab, "m.a": ab}})
	if ce := (*discovery.CatalogError)(nil); !errors.As(err, &ce) || ce.Reason != "meta tool: action ID" {
		t.Errorf("meta tools m and m.a: NewCatalog = %v, want action ID refused (m.a is a tool)", err)
	}
}

// A grant row names an action ID as it names a tool: GRANT-1's exact tool name, '.'
// included, checked by the row model like any other (SPEC GRANT-1).
func TestMetaToolActionIDsAreGrantNames(t *testing.T) {
	for _, id := range []string{"issue.list", "m.a.b", "gitlab_issue.create"} {
		if err := grants.CheckRow(allow("alice", id)); err != nil {
			t.Errorf("CheckRow(%s) = %v", id, err)
		}
	}
	cat := metaCatalog(t, metaDecls())
	mt, ok := cat.MetaTool("issue")
	if !ok || mt.Argument != "action" || len(mt.Actions) != 3 || mt.Actions[1].Name != "list" || mt.Actions[1].ReadOnlyHint == nil || !*mt.Actions[1].ReadOnlyHint || mt.Actions[2].DestructiveHint == nil {
		t.Errorf("MetaTool(issue) = %+v, %v", mt, ok)
	}
	if _, ok := cat.MetaTool("echo"); ok {
		t.Errorf("MetaTool(echo) reports a meta tool")
	}
	// A row naming something no catalog entry is named (a wildcard, a prefix) grants
	// nothing: names are exact.
	d := newDiscoverer(cat, newStore(t, allow("alice", "issue.*"), allow("alice", "issue."), allow("alice", "*")), nil)
	tools, _ := listed(t, d, alice)
	if len(tools) != 0 {
		t.Errorf("rows issue.*, issue. and * listed %d tools, want none", len(tools))
	}
}

// MetaTool returns a copy: writing through the hints it returned changes no later
// answer of the Catalog, which is immutable and shared by every request.
func TestMetaToolReturnsCopy(t *testing.T) {
	cat := metaCatalog(t, metaDecls())
	mt, _ := cat.MetaTool("issue")
	*mt.Actions[1].ReadOnlyHint, *mt.Actions[2].DestructiveHint = false, false
	mt.Actions[0].Name = "changed"
	again, _ := cat.MetaTool("issue")
	if again.Actions[0].Name != "create" || !*again.Actions[1].ReadOnlyHint || !*again.Actions[2].DestructiveHint {
		t.Errorf("MetaTool(issue) after its answer was written through = %+v", again)
	}
}

// The hints of a call are its action's own, else its tool's: what decisions per action
// (read-only mode, safe mode) read.
func TestMetaToolCallHints(t *testing.T) {
	cat := metaCatalog(t, metaDecls())
	for _, c := range []struct {
		tool, args            string
		readOnly, destructive bool
		declared              bool // the action declares destructiveHint
	}{
		{"issue", `{"action":"list"}`, true, false, false},    // its own readOnlyHint
		{"issue", `{"action":"create"}`, false, false, false}, // the tool's
		{"issue", `{"action":"close"}`, false, true, true},
		{"repo", `{"method":"get"}`, true, false, false},
		{"repo", `{"method":"archive"}`, false, false, false}, // repo has no readOnlyHint
		{"echo", `{"action":"list"}`, false, false, false},    // a plain tool: its own
	} {
		ro, de, ok := discovery.CallHints(cat, c.tool, []byte(c.args))
		if !ok || ro != c.readOnly || (de != nil) != c.declared || de != nil && *de != c.destructive {
			t.Errorf("%s %s: readOnly %v, destructive %v, ok %v; want %v, declared %v %v", c.tool, c.args, ro, de, ok, c.readOnly, c.declared, c.destructive)
		}
	}
	if _, _, ok := discovery.CallHints(cat, "issue", []byte(`{"action":"drop"}`)); ok {
		t.Errorf("an undeclared action has hints")
	}
}

// BenchmarkAuthorizeCallMetaTool is AuthorizeCall of a meta tool's granted action: the
// action gate reads the action before validation.
func BenchmarkAuthorizeCallMetaTool(b *testing.B) {
	ctx := context.Background()
	cat := metaCatalog(b, metaDecls())
	d := newDiscoverer(cat, newStore(b, allow("alice", "issue.list"), allow("alice", "issue.create")), nil)
	call := discovery.Call{Tool: "issue", Arguments: json.RawMessage(`{"project":"deferredtools/deferredtools","title":"Meta tools: decisions per action","action":"list","iid":18}`)}
	b.ReportAllocs()
	for b.Loop() {
		if err := d.AuthorizeCall(ctx, alice, call); err != nil {
			b.Fatal(err)
		}
	}
}

// SPEC CALL-1: safe mode judges a meta tool's call by its action's own hints where the
// action declares them (issue.list is read-only, issue.close destructive), else by the
// tool's (issue.create: readOnlyHint false), and exempts by tool name or by action ID;
// a held action runs once confirmed.
func TestMetaToolSafeModePerAction(t *testing.T) {
	cat := metaCatalog(t, metaDecls())
	store := newStore(t, allow("alice", "issue.list"), allow("alice", "issue.create"), allow("alice", "issue.close"))
	args := func(action string) json.RawMessage {
		return json.RawMessage(`{"action":"` + action + `","project":"p"}`)
	}
	for _, c := range []struct {
		exempt []string
		held   map[string]bool
	}{
		{nil, map[string]bool{"list": false, "create": true, "close": true}},
		{[]string{"issue.create"}, map[string]bool{"list": false, "create": false, "close": true}},
		{[]string{"issue"}, map[string]bool{"list": false, "create": false, "close": false}},
	} {
		d := newDiscoverer(cat, store, func(o *discovery.Options) {
			o.SafeMode = safemode.Options{Enabled: true, Exempt: c.exempt}
		})
		for action, held := range c.held {
			call := discovery.Call{Tool: "issue", Arguments: args(action)}
			err := d.AuthorizeCall(context.Background(), alice, call)
			var cr *discovery.ConfirmationRequired
			if errors.As(err, &cr) != held || !held && err != nil {
				t.Fatalf("exempt %q: issue.%s answered %v, want held %v", c.exempt, action, err, held)
			}
			if held {
				call.Confirmation = cr.Token
				if err := d.AuthorizeCall(context.Background(), alice, call); err != nil {
					t.Errorf("exempt %q: confirmed issue.%s answered %v", c.exempt, action, err)
				}
			}
		}
	}
}

// SPEC CALL-1: ListResult.SafeModeHolds answers as AuthorizeCall decides: a meta tool is
// held when safe mode holds an action the principal is served (issue is mutating by its
// own hint, yet served list alone it is not held; repo.archive is mutating by the
// tool's missing hint), exempt by tool name or action ID; a plain tool by its own hints;
// a tool not served, or any tool with the switch or safe mode off, is not held.
func TestListResultSafeModeHoldsServedActions(t *testing.T) {
	cat := metaCatalog(t, metaDecls())
	store := newStore(t, allow("alice", "issue.list"), allow("alice", "repo.get"), allow("alice", "echo"),
		allow("bob", "issue.list"), allow("bob", "issue.create"), allow("bob", "repo.get"), allow("bob", "repo.archive"),
		allow("carol", "issue.list"), allow("carol", "issue.close"))
	for _, c := range []struct {
		who     string
		opts    func(*discovery.Options)
		want    map[string]bool
		comment string
	}{
		{"alice", nil, map[string]bool{"issue": false, "repo": false, "echo": true, "nope": false}, "read-only actions alone"},
		{"bob", nil, map[string]bool{"issue": true, "repo": true, "echo": false}, "mutating actions served; echo not"},
		{"bob", func(o *discovery.Options) { o.SafeMode.Exempt = []string{"issue.create", "repo"} },
			map[string]bool{"issue": false, "repo": false}, "exempt by action ID and tool name"},
		{"carol", func(o *discovery.Options) { o.SafeMode.Exempt = []string{"issue.create"} },
			map[string]bool{"issue": true}, "close is destructive"},
		{"bob", func(o *discovery.Options) { o.SafeMode.Enabled = false }, map[string]bool{"issue": false, "repo": false}, "safe mode off"},
		{"bob", func(o *discovery.Options) { o.Enabled = false }, map[string]bool{"issue": false, "repo": false, "echo": false}, "switch off"},
	} {
		d := newDiscoverer(cat, store, func(o *discovery.Options) {
			o.SafeMode = safemode.Options{Enabled: true}
			if c.opts != nil {
				c.opts(o)
			}
		})
		p := grants.Principal{ID: c.who}
		list, err := d.ListTools(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		// AppendSafeModeHolds answers SafeModeHolds of each tool, in list order.
		all := list.AppendSafeModeHolds([]bool{true})
		names := toolNames(t, list.Tools)
		if len(all) != 1+len(names) || !all[0] {
			t.Fatalf("%s (%s): AppendSafeModeHolds appended %d to one, want %d", c.who, c.comment, len(all)-1, len(names))
		}
		for k, name := range names {
			if all[1+k] != list.SafeModeHolds(name) {
				t.Errorf("%s (%s): AppendSafeModeHolds[%s] = %v, SafeModeHolds says %v", c.who, c.comment, name, all[1+k], !all[1+k])
			}
		}
		for name, want := range c.want {
			if got := list.SafeModeHolds(name); got != want {
				t.Errorf("%s (%s): SafeModeHolds(%s) = %v, want %v", c.who, c.comment, name, got, want)
			}
			if !want || name == "echo" {
				continue
			}
			// Held means a call of some served action answers ConfirmationRequired.
			def, _ := list.Tool(name)
			arg := map[string]string{"issue": "action", "repo": "method"}[name]
			some := false
			for _, action := range servedEnum(t, def, arg) {
				args := `{"` + arg + `":"` + action + `","project":"p","repo":"r"}`
				if name == "issue" {
					args = `{"action":"` + action + `","project":"p"}`
				}
				err := d.AuthorizeCall(context.Background(), p, discovery.Call{Tool: name, Arguments: json.RawMessage(args)})
				some = some || errors.As(err, new(*discovery.ConfirmationRequired))
			}
			if !some {
				t.Errorf("%s (%s): %s marked held, but no served action's call is", c.who, c.comment, name)
			}
		}
	}
	var foreign discovery.ListResult
	foreign.Tools = []json.RawMessage{json.RawMessage(issueTool)}
	if foreign.SafeModeHolds("issue") || len(foreign.AppendSafeModeHolds(nil)) != 1 || foreign.AppendSafeModeHolds(nil)[0] {
		t.Errorf("a ListResult not made by ListTools: held, or not one false per tool")
	}
}
