package discovery_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
	"github.com/deferredtools/deferredtools/schemaguard"
	"github.com/deferredtools/deferredtools/validate"
	"github.com/google/go-cmp/cmp"
)

// This file holds the tests of the contract (CONTRACT), of grants seen through the
// Discoverer (GRANT) and of missing collaborators (ERR-5); helpers_test.go the helpers
// every test of the package shares.

// SPEC CONTRACT-2: the contract digest is "sha256:" + hex of SHA-256 over the
// concatenated SHA-256 digests of the served canonical tools, in name order; ListTools
// and Discover report the same one.
func TestContractDigest(t *testing.T) {
	ctx := t.Context()
	tools := sampleTools()
	// Input order is not name order: the digest must sort by name itself.
	slices.Reverse(tools)
	cat := newCatalog(t, tools...)
	var rows []grants.Row
	for _, n := range []string{"model_search", "model_get", "dataset_search", "billing_usage"} {
		rows = append(rows, allow("alice", n, "models:read"))
	}
	rows = append(rows, allow("bob", "billing_usage"))
	d := newDiscoverer(cat, newStore(t, rows...), nil)

	list, err := d.ListTools(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	got := toolNames(t, list.Tools)
	want := []string{"billing_usage", "dataset_search", "model_get", "model_search"}
	if !slices.Equal(got, want) {
		t.Fatalf("ListTools names = %v, want %v", got, want)
	}
	h := sha256.New()
	for _, raw := range list.Tools {
		sum := sha256.Sum256(raw)
		h.Write(sum[:])
	}
	wantDigest := "sha256:" + hex.EncodeToString(h.Sum(nil))
	if list.ContractDigest != wantDigest {
		t.Errorf("ListTools digest = %s, want %s (recomputed from the served bytes)", list.ContractDigest, wantDigest)
	}
	for _, q := range []string{"model", "search dataset", "zzzz nothing"} {
		res, err := d.Discover(ctx, alice, discovery.Request{Query: q})
		if err != nil {
			t.Fatalf("Discover(%q): %v", q, err)
		}
		if res.ContractDigest != wantDigest {
			t.Errorf("Discover(%q) digest = %s, want ListTools' %s", q, res.ContractDigest, wantDigest)
		}
	}

	// Another authorised set has another digest.
	lb, err := d.ListTools(ctx, bob)
	if err != nil {
		t.Fatal(err)
	}
	one := sha256.Sum256(lb.Tools[0])
	sum := sha256.Sum256(one[:])
	if want := "sha256:" + hex.EncodeToString(sum[:]); lb.ContractDigest != want {
		t.Errorf("bob digest = %s, want %s", lb.ContractDigest, want)
	}
}

// SPEC CONTRACT-1: tools are served in their canonical form whatever the input's
// spelling (member order, white space), so two spellings of one catalog have one digest.
func TestCanonicalServing(t *testing.T) {
	ctx := t.Context()
	a := json.RawMessage(`{"name":"t1","description":"x","inputSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"boolean"}}}}`)
	b := json.RawMessage(" {\n \"inputSchema\" : { \"properties\":{\"a\":{\"type\":\"boolean\"},\"b\":{\"type\":\"string\"}},\"type\":\"object\"},\n\"description\":\"x\", \"name\":\"t1\"}\n")
	want := `{"description":"x","inputSchema":{"properties":{"a":{"type":"boolean"},"b":{"type":"string"}},"type":"object"},"name":"t1"}`
	var digests []string
	for _, raw := range []json.RawMessage{a, b} {
		d := newDiscoverer(newCatalog(t, raw), newStore(t, allow("*", "t1")), nil)
		l, err := d.ListTools(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Tools) != 1 || string(l.Tools[0]) != want {
			t.Fatalf("served %s, want %s", l.Tools, want)
		}
		digests = append(digests, l.ContractDigest)
	}
	if digests[0] != digests[1] {
		t.Errorf("digests differ for two spellings of one tool: %v", digests)
	}
}

// SPEC CONTRACT-2: a contract pin that differs answers contract_changed (409); the
// right pin passes; a pin is never checked before the grant decision.
func TestContractPin(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	d := newDiscoverer(cat, newStore(t, allow("alice", "model_search")), nil)
	l, err := d.ListTools(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"text":"llama"}`)
	if err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args, ContractPin: l.ContractDigest}); err != nil {
		t.Errorf("AuthorizeCall with the right pin: %v", err)
	}
	stale := "sha256:" + strings.Repeat("0", 64)
	err = d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args, ContractPin: stale})
	wantCode(t, "AuthorizeCall with a stale pin", err, discovery.CodeContractChanged)
	err = d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_delete", Arguments: args, ContractPin: stale})
	wantCode(t, "AuthorizeCall of an ungranted tool with a stale pin", err, discovery.CodeToolNotGranted)
}

// SPEC CONTRACT-3: a catalog over a limit on canonical bytes, nodes or depth is refused
// with a *CatalogError wrapping the *schemaguard.LimitError; a catalog exactly at the
// limit is accepted.
func TestCatalogLimits(t *testing.T) {
	tools := sampleTools()
	size := newCatalog(t, tools...).Size()
	if size.Bytes == 0 || size.Nodes == 0 || size.Depth == 0 {
		t.Fatalf("Size() = %+v, want every measure positive", size)
	}
	for _, tc := range []struct {
		limit  string
		at     schemaguard.Limits
		over   schemaguard.Limits
		wantMx int
	}{
		{"bytes", schemaguard.Limits{MaxBytes: size.Bytes}, schemaguard.Limits{MaxBytes: size.Bytes - 1}, size.Bytes - 1},
		{"nodes", schemaguard.Limits{MaxNodes: size.Nodes}, schemaguard.Limits{MaxNodes: size.Nodes - 1}, size.Nodes - 1},
		{"depth", schemaguard.Limits{MaxDepth: size.Depth}, schemaguard.Limits{MaxDepth: size.Depth - 1}, size.Depth - 1},
	} {
		if _, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{Limits: tc.at}); err != nil {
			t.Errorf("%s: NewCatalog at the limit: %v", tc.limit, err)
		}
		c, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{Limits: tc.over})
		if c != nil || err == nil {
			t.Fatalf("%s: NewCatalog over the limit = %v, %v, want a refusal", tc.limit, c, err)
		}
		var ce *discovery.CatalogError
		var le *schemaguard.LimitError
		if !errors.As(err, &ce) || !errors.As(err, &le) {
			t.Fatalf("%s: error %v does not wrap *CatalogError and *LimitError", tc.limit, err)
		}
		if ce.Index != -1 || le.Limit != tc.limit || le.Max != tc.wantMx {
			t.Errorf("%s: CatalogError.Index = %d, LimitError = %+v; want -1, {%s %d}", tc.limit, ce.Index, *le, tc.limit, tc.wantMx)
		}
		if !strings.HasPrefix(err.Error(), "discovery: ") {
			t.Errorf("%s: error text %q lacks the package prefix", tc.limit, err)
		}
	}
}

// NewCatalog refuses a malformed tool, a bad or duplicate name and a missing object
// schema, naming the tool's position and the rule, never its content.
func TestCatalogRefusals(t *testing.T) {
	good := toolDef("ok_tool", "fine")
	for _, tc := range []struct {
		name   string
		bad    json.RawMessage
		reason string
	}{
		{"malformed", json.RawMessage(`{"name":"x","description":"canary-malformed",`), "malformed"},
		{"empty name", toolDef("", "canary"), "name"},
		{"space in name", toolDef("bad name", "canary"), "name"},
		{"long name", toolDef(strings.Repeat("a", 129), "canary"), "name"},
		{"duplicate", toolDef("ok_tool", "canary-dup"), "duplicate name"},
		{"no schema", json.RawMessage(`{"name":"x","description":"canary"}`), "inputSchema"},
		{"array schema", toolDefSchema("x", "canary", []any{}), "inputSchema"},
	} {
		_, err := discovery.NewCatalog([]json.RawMessage{good, tc.bad}, nil)
		var ce *discovery.CatalogError
		if !errors.As(err, &ce) {
			t.Errorf("%s: NewCatalog error = %v, want a *CatalogError", tc.name, err)
			continue
		}
		if ce.Index != 1 || ce.Reason != tc.reason {
			t.Errorf("%s: CatalogError = {%d %q}, want {1 %q}", tc.name, ce.Index, ce.Reason, tc.reason)
		}
		if strings.Contains(err.Error(), "canary") {
			t.Errorf("%s: error text %q contains tool content", tc.name, err)
		}
	}
	if _, err := discovery.NewCatalog([]json.RawMessage{toolDef(strings.Repeat("a", 128), "x")}, nil); err != nil {
		t.Errorf("a 128-character name: %v", err)
	}
}

// SPEC GRANT-2: the Discoverer lists, discovers and authorises exactly what the
// decision grants: an own row decides, else the "*" row, else deny; a deciding allow
// row needs every one of its scopes; "*" rows give no scope; an administrator scope
// bypasses nothing.
func TestGrantDecisionThroughDiscoverer(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	rows := []grants.Row{
		allow("alice", "model_search", "models:read"),         // own allow, scope held
		allow("alice", "model_delete", "models:write"),        // own allow, scope missing
		deny("alice", "model_get"),                            // own deny beats * allow
		allow("*", "model_get"),                               //
		allow("alice", "model_tag"),                           // own allow beats * deny
		deny("*", "model_tag"),                                //
		allow("*", "dataset_search"),                          // * allow, no scope
		allow("*", "dataset_upload", "datasets:write"),        // * allow needs a scope
		allow("*", "dataset_preview", "models:read"),          // * allow, scope held
		allow("alice", "deployment_scale", "admin"),           // needs admin: held below
		allow("alice", "deployment_create", "deploy:write"),   // admin does not bypass
		allow("alice", "billing_usage", "models:read", "b:r"), // needs two, holds one
	}
	d := newDiscoverer(cat, newStore(t, rows...), nil)
	p := grants.Principal{ID: "alice", Scopes: []string{"models:read", "admin"}}
	want := []string{"dataset_preview", "dataset_search", "deployment_scale", "model_search", "model_tag"}

	l, err := d.ListTools(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, l.Tools); !slices.Equal(got, want) {
		t.Errorf("ListTools = %v, want %v", got, want)
	}
	for _, name := range cat.Names() {
		err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: name, Arguments: json.RawMessage(`{"text":"x"}`)})
		if slices.Contains(want, name) {
			if err != nil {
				t.Errorf("AuthorizeCall(%s) = %v, want granted", name, err)
			}
		} else {
			wantCode(t, "AuthorizeCall("+name+")", err, discovery.CodeToolNotGranted)
		}
		// The tool's own name as the query finds it only when granted.
		res, err := d.Discover(ctx, p, discovery.Request{Query: strings.ReplaceAll(name, "_", " ")})
		if err != nil {
			t.Fatalf("Discover(%s): %v", name, err)
		}
		found := slices.Contains(toolNames(t, res.Tools), name)
		if found != slices.Contains(want, name) {
			t.Errorf("Discover(%q) found %s = %v, want %v", name, name, found, !found)
		}
	}

	// "*" rows give nothing to a principal with no scope beyond the rows themselves,
	// and never grant a tool without a row.
	anon := grants.Principal{ID: "nobody"}
	l, err = d.ListTools(ctx, anon)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, l.Tools), []string{"dataset_search", "model_get"}; !slices.Equal(got, want) {
		t.Errorf("ListTools(nobody) = %v, want %v", got, want)
	}
}

// SPEC GRANT-1 (a row breaking the row model: empty tool, unknown effect, bad scope,
// revision < 1, duplicate key), GRANT-5: more than MaxRows applicable rows, a malformed row or a read error fail
// closed with 503 on every path: nothing listed, nothing discovered, nothing authorised,
// and the host check never runs.
func TestGrantReadFailsClosed(t *testing.T) {
	ctx := t.Context()
	base := newStore(t, allow("*", "model_search"), allow("alice", "model_get"))
	readers := map[string]grants.Reader{
		"error":         &grantstest.ErrReader{},
		"too many rows": &grantstest.TooManyRowsReader{Revision: 3},
	}
	for _, reason := range grantstest.MalformedReasons {
		readers["malformed "+reason] = &grantstest.MalformedReader{Base: base, Reason: reason}
	}
	for name, r := range readers {
		var checked atomic.Int64
		d := newDiscoverer(newCatalog(t, sampleTools()...), r, func(o *discovery.Options) {
			o.CheckCall = func(context.Context, grants.Principal, string, json.RawMessage) error {
				checked.Add(1)
				return nil
			}
		})
		l, err := d.ListTools(ctx, alice)
		wantCode(t, name+": ListTools", err, discovery.CodeGrantsUnavailable)
		if l != nil {
			t.Errorf("%s: ListTools listed %d tools", name, len(l.Tools))
		}
		res, err := d.Discover(ctx, alice, discovery.Request{Query: "model"})
		wantCode(t, name+": Discover", err, discovery.CodeGrantsUnavailable)
		if res != nil {
			t.Errorf("%s: Discover returned a page", name)
		}
		err = d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)})
		wantCode(t, name+": AuthorizeCall", err, discovery.CodeGrantsUnavailable)
		if checked.Load() != 0 {
			t.Errorf("%s: CheckCall ran", name)
		}
	}
}

// SPEC GRANT-6: no fallback: once storage fails, nothing earlier read is reused, and
// public scopes alone grant nothing.
func TestNoGrantFallback(t *testing.T) {
	ctx := t.Context()
	store := newStore(t, allow("alice", "model_search", "models:read"))
	r := &grantstest.FailAfterReader{Base: store, N: 3}
	d := newDiscoverer(newCatalog(t, sampleTools()...), r, nil)
	args := json.RawMessage(`{"text":"x"}`)
	if _, err := d.ListTools(ctx, alice); err != nil { // read 1
		t.Fatal(err)
	}
	if err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args}); err != nil { // read 2
		t.Fatal(err)
	}
	if err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args}); err != nil { // read 3
		t.Fatal(err)
	}
	// Storage is gone: the same principal, same scopes, same tool are refused with 503.
	err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args})
	wantCode(t, "AuthorizeCall after storage failed", err, discovery.CodeGrantsUnavailable)
	_, err = d.ListTools(ctx, alice)
	wantCode(t, "ListTools after storage failed", err, discovery.CodeGrantsUnavailable)
	_, err = d.Discover(ctx, alice, discovery.Request{Query: "model"})
	wantCode(t, "Discover after storage failed", err, discovery.CodeGrantsUnavailable)

	// A principal holding every scope the catalog could need, with no row, gets nothing.
	d = newDiscoverer(newCatalog(t, sampleTools()...), newStore(t), nil)
	all := grants.Principal{ID: "root", Scopes: []string{"models:read", "models:write", "admin", "*"}}
	l, err := d.ListTools(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Tools) != 0 {
		t.Errorf("ListTools with scopes and no rows = %v, want none", toolNames(t, l.Tools))
	}
	err = d.AuthorizeCall(ctx, all, discovery.Call{Tool: "model_search", Arguments: args})
	wantCode(t, "AuthorizeCall with scopes and no rows", err, discovery.CodeToolNotGranted)
}

// SPEC ERR-5: a Discoverer missing a collaborator answers 503 for the work that needs
// it and never panics: no grant reader, no catalog, a catalog source that yields
// nothing, a Compiler that answers (nil, nil), a reader that answers (nil, nil).
func TestMissingCollaborators(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	store := newStore(t, allow("alice", "model_search"))
	args := json.RawMessage(`{"text":"x"}`)
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model"}}`)

	type check struct {
		name string
		d    *discovery.Discoverer
		code discovery.Code
	}
	nilCompiler, err := discovery.NewCatalog(sampleTools(), &discovery.CatalogOptions{Compiler: nilCompilerT{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []check{
		{"nil Grants", newDiscoverer(cat, nil, nil), discovery.CodeGrantsUnavailable},
		{"nil Snapshot", newDiscoverer(cat, nilReader{}, nil), discovery.CodeGrantsUnavailable},
		{"nil Catalog", newDiscoverer(nil, store, nil), discovery.CodeCatalogUnavailable},
		{"empty SwappableCatalog", newDiscoverer(new(discovery.SwappableCatalog), store, nil), discovery.CodeCatalogUnavailable},
		{"source yielding nil", newDiscoverer(nilSource{}, store, nil), discovery.CodeCatalogUnavailable},
		{"source failing", newDiscoverer(errSource{}, store, nil), discovery.CodeCatalogUnavailable},
	} {
		_, err := c.d.ListTools(ctx, alice)
		wantCode(t, c.name+": ListTools", err, c.code)
		_, err = c.d.Discover(ctx, alice, discovery.Request{Query: "model"})
		wantCode(t, c.name+": Discover", err, c.code)
		err = c.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args})
		wantCode(t, c.name+": AuthorizeCall", err, c.code)
		resp, status := c.d.HandleJSONRPC(ctx, alice, msg)
		if status != 503 || !bytes.Contains(resp, []byte(`"error":"`+c.code+`"`)) || !bytes.Contains(resp, []byte(`"status":503`)) {
			t.Errorf("%s: HandleJSONRPC = %s, %d; want a 503 %s", c.name, resp, status, c.code)
		}
	}

	// A Compiler that answers nothing: discovery and listing work, calls fail closed.
	d := newDiscoverer(nilCompiler, store, nil)
	if _, err := d.Discover(ctx, alice, discovery.Request{Query: "model"}); err != nil {
		t.Errorf("Discover with a nil-answering Compiler: %v", err)
	}
	err = d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args})
	wantCode(t, "AuthorizeCall with a nil-answering Compiler", err, discovery.CodeValidationUnavailable)

	// The zero Discoverer and New(nil) never panic.
	for name, d := range map[string]*discovery.Discoverer{"zero": new(discovery.Discoverer), "New(nil)": discovery.New(nil)} {
		if _, err := d.Discover(ctx, alice, discovery.Request{Query: "x"}); !errors.Is(err, discovery.CodeMethodNotFound) {
			t.Errorf("%s: Discover = %v, want method_not_found", name, err)
		}
		if resp, status := d.HandleJSONRPC(ctx, alice, msg); status != 0 || resp != nil {
			t.Errorf("%s: HandleJSONRPC handled the message", name)
		}
		_, err := d.ListTools(ctx, alice)
		wantCode(t, name+": ListTools", err, discovery.CodeCatalogUnavailable)
	}
}

type nilCompilerT struct{}

func (nilCompilerT) Compile([]byte) (validate.Validator, error) { return nil, nil }

type nilReader struct{}

func (nilReader) ReadGrants(context.Context, string) (*grants.Snapshot, error) { return nil, nil }

type nilSource struct{}

func (nilSource) Catalog(context.Context) (*discovery.Catalog, error) { return nil, nil }

type errSource struct{}

func (errSource) Catalog(context.Context) (*discovery.Catalog, error) {
	return nil, errors.New("catalog store down")
}

// A SwappableCatalog swaps versions atomically: ListTools serves the new version after
// Store, and a tool's change changes the contract digest.
func TestSwappableCatalog(t *testing.T) {
	ctx := t.Context()
	var src discovery.SwappableCatalog
	src.Store(newCatalog(t, toolDef("a_tool", "one"), toolDef("b_tool", "two")))
	d := newDiscoverer(&src, newStore(t, allow("*", "a_tool"), allow("*", "b_tool")), nil)
	l1, err := d.ListTools(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	src.Store(newCatalog(t, toolDef("a_tool", "one, changed"), toolDef("b_tool", "two")))
	l2, err := d.ListTools(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if l1.ContractDigest == l2.ContractDigest {
		t.Errorf("contract digest unchanged after a granted tool changed")
	}
	if diff := cmp.Diff(toolNames(t, l1.Tools), toolNames(t, l2.Tools)); diff != "" {
		t.Errorf("names changed (-old +new):\n%s", diff)
	}
	if bytes.Equal(l1.Tools[0], l2.Tools[0]) || !bytes.Equal(l1.Tools[1], l2.Tools[1]) {
		t.Errorf("served tools do not follow the swapped version")
	}
}

// SPEC GRANT-2, CURSOR-2: the scopes a principal holds are compared exactly, whatever
// bytes the host passes: a single scope "a\x00b" is not the two scopes "a" and "b", in
// the decision, in any cache of decisions, and in a cursor's binding.
func TestScopesUnambiguous(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	both := grants.Principal{ID: "alice", Scopes: []string{"models:read", "models:write"}}
	forged := grants.Principal{ID: "alice", Scopes: []string{"models:read\x00models:write"}}
	call := discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"x"}`)}
	for _, order := range [][2]grants.Principal{{both, forged}, {forged, both}} {
		store := newStore(t, allow("alice", "model_delete", "models:read", "models:write"), allow("*", "model_search"))
		d := newDiscoverer(cat, store, nil)
		for _, p := range order {
			err := d.AuthorizeCall(ctx, p, call)
			if len(p.Scopes) == 2 && err != nil {
				t.Errorf("holder of both scopes refused after %q: %v", order[0].Scopes, err)
			}
			if len(p.Scopes) == 1 {
				wantCode(t, fmt.Sprintf("one NUL-joined scope after %q", order[0].Scopes), err, discovery.CodeToolNotGranted)
			}
		}
	}
	// A cursor issued to the holder of both scopes is not valid for the forged set.
	d := newDiscoverer(cat, newStore(t, allow("*", "model_search"), allow("*", "model_get"), allow("*", "model_tag")), nil)
	res, err := d.Discover(ctx, both, discovery.Request{Query: "model", Limit: 1})
	if err != nil || res.NextCursor == "" {
		t.Fatalf("first page: %v", err)
	}
	_, err = d.Discover(ctx, forged, discovery.Request{Query: "model", Limit: 1, Cursor: res.NextCursor})
	wantCode(t, "cursor of two scopes used with one NUL-joined scope", err, discovery.CodeInvalidCursor)
}

// SPEC DISC-4: ranking matches the query's words against names, titles and descriptions;
// by default the descriptions of a tool's parameters (with their names and enum values)
// count too, at a tenth of the weight, and CatalogOptions.IgnoreParamText leaves them out.
func TestRankParamText(t *testing.T) {
	ctx := t.Context()
	tools := []json.RawMessage{
		toolDefSchema("verdict_write", "Create or submit a verdict on a change.", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"event": map[string]any{"type": "string", "description": "What the review concludes.", "enum": []any{"APPROVE", "REQUEST_CHANGES"}},
			},
		}),
		toolDef("approve_deployment", "Approve a pending deployment."),
		toolDef("list_changes", "List the changes of a project."),
	}
	for _, tc := range []struct {
		opts *discovery.CatalogOptions
		want []string
	}{
		{nil, []string{"approve_deployment", "verdict_write"}},
		{&discovery.CatalogOptions{IgnoreParamText: true}, []string{"approve_deployment"}},
	} {
		cat, err := discovery.NewCatalog(tools, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		d := newDiscoverer(cat, allGranted(t, cat), nil)
		res, err := d.Discover(ctx, alice, discovery.Request{Query: "approve"})
		if err != nil {
			t.Fatal(err)
		}
		if got := toolNames(t, res.Tools); !slices.Equal(got, tc.want) {
			t.Errorf("options %+v: Discover(approve) = %v, want %v", tc.opts, got, tc.want)
		}
	}
}
