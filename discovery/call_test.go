package discovery_test

import (
	"context"
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
	"github.com/deferredtools/deferredtools/validate"
)

// SPEC CALL-1, VIS-2: a denied, ungranted, unknown, scope-lacking or withheld tool is
// refused with one identical tool_not_granted (403), whatever the arguments (valid,
// invalid, not JSON at all), decided before the arguments are looked at.
func TestCallRefusalIsUniform(t *testing.T) {
	ctx := t.Context()
	cat, cc := countingCatalog(t, sampleTools()...)
	store := newStore(t,
		allow("alice", "model_search", "models:read"),
		deny("alice", "model_get"),
		allow("*", "model_get"),
		allow("alice", "model_delete", "models:write"),
		allow("alice", "deployment_scale"),
	)
	var checked atomic.Int64
	d := newDiscoverer(cat, store, func(o *discovery.Options) {
		o.Visibility.Exclude = []string{"deployment_scale"}
		o.CheckCall = func(context.Context, grants.Principal, string, json.RawMessage) error {
			checked.Add(1)
			return nil
		}
	})
	refusedTools := map[string]string{
		"model_get":        "denied by an own row",
		"dataset_search":   "no row",
		"model_delete":     "scope missing",
		"deployment_scale": "withheld by visibility",
		"no_such_tool":     "unknown",
		"":                 "empty name",
		"MODEL_SEARCH":     "unknown (names are exact)",
	}
	argsList := []string{
		`{"text":"hello"}`,
		`{"text":"hello","count":3}`,
		`{}`,
		``,
		`{"text":7,"extra":true}`,
		`{"text":"` + strings.Repeat("x", 5000) + `"}`,
		`{`,
		`not json at all`,
		`null`,
		`[1,2,3]`,
		`{"text":"a","text":"b"}`,
		"{\"text\":\"\xff\"}",
	}
	var first *discovery.Error
	var firstWire string
	for name, why := range refusedTools {
		for _, a := range argsList {
			err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: name, Arguments: json.RawMessage(a)})
			e := wantCode(t, fmt.Sprintf("%s (%s) with %.20s", name, why, a), err, discovery.CodeToolNotGranted)
			if e == nil {
				continue
			}
			wire := string(discovery.AppendJSONRPCError(nil, json.RawMessage(`1`), err))
			if first == nil {
				first, firstWire = e, wire
				continue
			}
			if e.Keyword != first.Keyword || e.Path != first.Path || e.Error() != first.Error() || wire != firstWire {
				t.Errorf("%s (%s): refusal %+v / %s differs from %+v / %s", name, why, e, wire, first, firstWire)
			}
		}
	}
	if n := cc.validated.Load(); n != 0 {
		t.Errorf("%d validations ran for refused calls: arguments were looked at", n)
	}
	if n := checked.Load(); n != 0 {
		t.Errorf("CheckCall ran %d times for refused calls", n)
	}
	// The granted tool itself is callable, so the refusals above come from the grant.
	if err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"hello"}`)}); err != nil {
		t.Errorf("granted call: %v", err)
	}
}

// SPEC CALL-1: every call rereads grants: a revocation refuses the very next call, a
// new grant allows it, and each call is one read.
func TestCallRereadsGrants(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	store := newStore(t, allow("alice", "model_search"))
	r := &grantstest.CountingReader{Base: store}
	d := newDiscoverer(cat, r, nil)
	call := discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)}
	for i := range 3 {
		if err := d.AuthorizeCall(ctx, alice, call); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if got := r.Calls(); got != 3 {
		t.Errorf("3 calls made %d grant reads, want 3", got)
	}
	if err := store.Delete(ctx, "alice", "model_search"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "call after revocation", d.AuthorizeCall(ctx, alice, call), discovery.CodeToolNotGranted)
	store.Put(ctx, deny("alice", "model_search"))
	store.Put(ctx, allow("*", "model_search"))
	wantCode(t, "call after an own deny row", d.AuthorizeCall(ctx, alice, call), discovery.CodeToolNotGranted)
	store.Put(ctx, allow("alice", "model_search"))
	if err := d.AuthorizeCall(ctx, alice, call); err != nil {
		t.Errorf("call after a new grant: %v", err)
	}
}

// callSchema exercises the validator through the Discoverer.
var callSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":  map[string]any{"type": "string", "minLength": 1, "maxLength": 8},
		"count": map[string]any{"type": "integer", "minimum": 1, "maximum": 10},
		"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"a", "b"}}},
		"mode":  map[string]any{"enum": []any{"fast", "slow"}},
	},
	"required":             []any{"name"},
	"additionalProperties": false,
}

// SPEC CALL-2, CALL-3 (type, required, minLength, maxLength, minimum, maximum, items,
// enum, additionalProperties through the Discoverer), CALL-8 (one JSON object, no
// duplicate keys): a granted call is validated against the tool's full input schema, whether
// or not it was ever listed or discovered by this caller; invalid arguments answer
// invalid_arguments (400) with the failing keyword and schema path, never a value.
// Absent arguments are validated as {}.
func TestCallValidatesArguments(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, append(sampleTools(), toolDefSchema("job_run", "Run a job.", callSchema))...)
	// A fresh Discoverer: nothing was ever listed or discovered.
	d := newDiscoverer(cat, newStore(t, allow("alice", "job_run")), nil)
	for _, ok := range []string{
		`{"name":"x"}`,
		`{"name":"12345678","count":10,"tags":["a","b"],"mode":"slow"}`,
		`{"name":"x","count":1.0}`,
		` {"name" : "x"} `,
	} {
		if err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "job_run", Arguments: json.RawMessage(ok)}); err != nil {
			t.Errorf("AuthorizeCall(%s) = %v, want nil", ok, err)
		}
	}
	for _, tc := range []struct {
		args    string
		keyword string
		path    string
	}{
		{``, "required", "/name"},
		{`{}`, "required", "/name"},
		{`{"name":""}`, "minLength", "/name"},
		{`{"name":"123456789"}`, "maxLength", "/name"},
		{`{"name":7}`, "type", "/name"},
		{`{"name":"x","count":0}`, "minimum", "/count"},
		{`{"name":"x","count":11}`, "maximum", "/count"},
		{`{"name":"x","count":2.5}`, "type", "/count"},
		{`{"name":"x","tags":["c"]}`, "enum", "/tags/0"},
		{`{"name":"x","mode":"medium"}`, "enum", "/mode"},
		{`[]`, "type", ""},
		{`"x"`, "type", ""},
	} {
		err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "job_run", Arguments: json.RawMessage(tc.args)})
		e := wantCode(t, "AuthorizeCall("+tc.args+")", err, discovery.CodeInvalidArguments)
		if e == nil {
			continue
		}
		if e.Keyword != tc.keyword || e.Path != tc.path {
			t.Errorf("AuthorizeCall(%s): Keyword, Path = %q, %q; want %q, %q", tc.args, e.Keyword, e.Path, tc.keyword, tc.path)
		}
		if !errors.Is(err, validate.ErrInvalid) {
			t.Errorf("AuthorizeCall(%s): errors.Is(err, validate.ErrInvalid) = false", tc.args)
		}
	}
	// An undeclared member is refused without naming it.
	err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "job_run", Arguments: json.RawMessage(`{"name":"x","secret":"v"}`)})
	if e := wantCode(t, "undeclared member", err, discovery.CodeInvalidArguments); e != nil && (e.Keyword == "" || strings.Contains(e.Path, "secret")) {
		t.Errorf("undeclared member: Keyword, Path = %q, %q", e.Keyword, e.Path)
	}
	// Arguments that are not one JSON object, or repeat a key (SPEC CALL-8), are
	// invalid too, never resolved silently.
	for _, bad := range []string{`{`, `{"name":"x"} {}`, `{"name":"x","name":"y"}`, "{\"name\":\"\xff\"}", `nope`} {
		err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "job_run", Arguments: json.RawMessage(bad)})
		wantCode(t, "AuthorizeCall("+bad+")", err, discovery.CodeInvalidArguments)
	}
}

// SPEC CALL-4, CALL-5: a granted tool whose schema the Compiler cannot enforce, or a
// validation over a bound, answers tool_validation_unavailable (503), never a pass.
func TestCallValidationUnavailable(t *testing.T) {
	ctx := t.Context()
	unsupported := toolDefSchema("uses_ref", "Uses $ref.", map[string]any{
		"type": "object", "$defs": map[string]any{"x": map[string]any{"type": "string"}},
		"properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/x"}},
	})
	deep := map[string]any{"type": "string"}
	for range 40 {
		deep = map[string]any{"type": "array", "items": deep}
	}
	deepTool := toolDefSchema("deep_tool", "Deep arrays.", map[string]any{"type": "object", "properties": map[string]any{"a": deep}})
	cat := newCatalog(t, unsupported, deepTool, toolDef("plain", "Plain."))
	d := newDiscoverer(cat, newStore(t, allow("*", "uses_ref"), allow("*", "deep_tool"), allow("*", "plain")), nil)
	err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "uses_ref", Arguments: json.RawMessage(`{"a":"x"}`)})
	wantCode(t, "unsupported schema", err, discovery.CodeValidationUnavailable)
	if !errors.Is(err, validate.ErrUnsupported) {
		t.Errorf("unsupported schema: errors.Is(err, validate.ErrUnsupported) = false")
	}
	err = d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "deep_tool", Arguments: json.RawMessage(`{}`)})
	wantCode(t, "schema over the depth bound", err, discovery.CodeValidationUnavailable)
	deepArgs := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	err = d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "plain", Arguments: json.RawMessage(`{"text":"x","count":` + deepArgs + `}`)})
	var e *discovery.Error
	if !errors.As(err, &e) || (e.Code != discovery.CodeValidationUnavailable && e.Code != discovery.CodeInvalidArguments) {
		t.Errorf("arguments over the depth bound: %v, want a refusal", err)
	}
	// Still listed and discoverable: only calls need a validator.
	l, err := d.ListTools(ctx, alice)
	if err != nil || len(l.Tools) != 3 {
		t.Errorf("ListTools: %v, %d tools", err, len(l.Tools))
	}
}

// SPEC CALL-6: the host check runs after the grant decision and argument validation
// succeed, sees the call, and its error comes back unchanged; it never runs for a call
// the library refused.
func TestCallHostCheck(t *testing.T) {
	ctx := t.Context()
	order := new(callOrder)
	cc := &countingCompiler{base: validate.NewCompiler(nil), order: order}
	cat, err := discovery.NewCatalog(append(sampleTools(), toolDefSchema("job_run", "Run a job.", callSchema)), &discovery.CatalogOptions{Compiler: cc})
	if err != nil {
		t.Fatal(err)
	}
	hostErr := errors.New("host: needs the management scope")
	type seen struct {
		p    grants.Principal
		tool string
		args string
	}
	var calls []seen
	var answer error
	d := newDiscoverer(cat, newStore(t, allow("alice", "job_run"), allow("alice", "model_search")), func(o *discovery.Options) {
		o.CheckCall = func(_ context.Context, p grants.Principal, tool string, args json.RawMessage) error {
			order.add("check")
			calls = append(calls, seen{p, tool, string(args)})
			return answer
		}
	})
	if err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "job_run", Arguments: json.RawMessage(`{"name":"x"}`)}); err != nil {
		t.Fatalf("allowed call: %v", err)
	}
	if got := order.get(); !slices.Equal(got, []string{"validate", "check"}) {
		t.Errorf("steps %v, want validate then check", got)
	}
	if len(calls) != 1 || calls[0].p.ID != "alice" || calls[0].tool != "job_run" || calls[0].args != `{"name":"x"}` {
		t.Errorf("CheckCall saw %+v", calls)
	}
	// Absent arguments reach the host as the {} they were validated as.
	if err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "job_run", Arguments: nil}); err == nil {
		t.Errorf("absent arguments passed a schema that requires a property")
	}
	if last := calls[len(calls)-1]; last.tool != "model_search" || last.args != `{"text":"x"}` {
		t.Errorf("CheckCall saw %+v last", last)
	}
	answer = hostErr
	err = d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "job_run", Arguments: json.RawMessage(`{"name":"x"}`)})
	if err != hostErr {
		t.Errorf("host refusal = %v (%T), want the host's error unchanged", err, err)
	}
	n := len(calls)
	for _, c := range []discovery.Call{
		{Tool: "model_get", Arguments: json.RawMessage(`{"text":"x"}`)},                                                 // 403
		{Tool: "job_run", Arguments: json.RawMessage(`{}`)},                                                             // 400
		{Tool: "job_run", Arguments: json.RawMessage(`{"name":"x"}`), ContractPin: "sha256:" + strings.Repeat("1", 64)}, // 409
	} {
		if err := d.AuthorizeCall(ctx, alice, c); err == nil || err == hostErr {
			t.Errorf("AuthorizeCall(%s, %s) = %v, want the library's refusal", c.Tool, c.Arguments, err)
		}
	}
	if len(calls) != n {
		t.Errorf("CheckCall ran for %d refused calls", len(calls)-n)
	}
}

// SPEC CALL-7: a host may choose the full draft 2020-12 validator through
// CatalogOptions.Compiler; the Discoverer then enforces schemas the bounded one
// refuses ($ref, $defs), still grant first and with the same error model.
func TestCallFullValidator(t *testing.T) {
	ctx := t.Context()
	withRef := toolDefSchema("uses_ref", "Uses $ref.", map[string]any{
		"type":       "object",
		"$defs":      map[string]any{"name": map[string]any{"type": "string", "minLength": 2}},
		"properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/name"}},
		"required":   []any{"a"},
	})
	tools := []json.RawMessage{withRef, toolDef("plain", "Plain.")}
	bounded := newCatalog(t, tools...)
	full, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{Compiler: validate.NewFull(nil)})
	if err != nil {
		t.Fatal(err)
	}
	store := newStore(t, allow("alice", "uses_ref"), allow("alice", "plain"))
	db := newDiscoverer(bounded, store, nil)
	df := newDiscoverer(full, store, nil)
	ok := discovery.Call{Tool: "uses_ref", Arguments: json.RawMessage(`{"a":"xy"}`)}
	wantCode(t, "bounded validator, $ref", db.AuthorizeCall(ctx, alice, ok), discovery.CodeValidationUnavailable)
	if err := df.AuthorizeCall(ctx, alice, ok); err != nil {
		t.Errorf("full validator, valid $ref arguments: %v", err)
	}
	err = df.AuthorizeCall(ctx, alice, discovery.Call{Tool: "uses_ref", Arguments: json.RawMessage(`{"a":"x"}`)})
	wantCode(t, "full validator, invalid $ref arguments", err, discovery.CodeInvalidArguments)
	err = df.AuthorizeCall(ctx, bob, ok)
	wantCode(t, "full validator, ungranted", err, discovery.CodeToolNotGranted)
	err = df.AuthorizeCall(ctx, alice, discovery.Call{Tool: "plain", Arguments: json.RawMessage(`{"text":7}`)})
	wantCode(t, "full validator, plain tool", err, discovery.CodeInvalidArguments)
}

// SPEC ERR-3: authorising a call never retries anything: a failing host check runs
// exactly once per AuthorizeCall, and AuthorizeCall executes nothing itself.
func TestCallNeverRetries(t *testing.T) {
	ctx := t.Context()
	var n atomic.Int64
	d := newDiscoverer(newCatalog(t, sampleTools()...), newStore(t, allow("alice", "model_search")), func(o *discovery.Options) {
		o.CheckCall = func(context.Context, grants.Principal, string, json.RawMessage) error {
			n.Add(1)
			return errors.New("host: upstream busy")
		}
	})
	for i := range 3 {
		if err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)}); err == nil {
			t.Fatal("the host's refusal was not returned")
		}
		if got := n.Load(); got != int64(i+1) {
			t.Fatalf("after %d calls the host check ran %d times", i+1, got)
		}
	}
}

// SPEC DISC-1, DISC-2, PLAN-1: the discovery tool's definition is a valid tool whose
// input schema states the discover params (query of 1..500 characters, limit 1..16, a
// cursor, nothing else); a catalog accepts it, and the bounded validator enforces it.
func TestToolDefinition(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct{ in, name string }{{"", discovery.DefaultToolName}, {"find_tools", "find_tools"}} {
		def := discovery.ToolDefinition(tc.in)
		var v struct {
			Name        string
			InputSchema struct {
				Type       string
				Required   []string
				Properties map[string]struct {
					Type                 string
					MinLength, MaxLength *int
					Minimum, Maximum     *int
				}
				AdditionalProperties *bool
			}
			Annotations struct{ ReadOnlyHint bool }
		}
		if err := json.Unmarshal(def, &v); err != nil {
			t.Fatalf("ToolDefinition(%q): %v", tc.in, err)
		}
		ps := v.InputSchema.Properties
		if v.Name != tc.name || v.InputSchema.Type != "object" || !slices.Equal(v.InputSchema.Required, []string{"query"}) ||
			v.InputSchema.AdditionalProperties == nil || *v.InputSchema.AdditionalProperties || len(ps) != 3 ||
			ps["query"].Type != "string" || *ps["query"].MinLength != 1 || *ps["query"].MaxLength != discovery.MaxQueryLength ||
			ps["limit"].Type != "integer" || *ps["limit"].Minimum != 1 || *ps["limit"].Maximum != discovery.MaxLimit ||
			ps["cursor"].Type != "string" || !v.Annotations.ReadOnlyHint {
			t.Errorf("ToolDefinition(%q) = %s", tc.in, def)
		}
		cat, err := discovery.NewCatalog([]json.RawMessage{def}, nil)
		if err != nil {
			t.Fatalf("NewCatalog(ToolDefinition(%q)): %v", tc.in, err)
		}
		d := newDiscoverer(cat, newStore(t, allow("*", tc.name)), nil)
		for args, ok := range map[string]bool{
			`{"query":"model search"}`:                     true,
			`{"query":"model","limit":16,"cursor":"c"}`:    true,
			`{"query":""}`:                                 false,
			`{"query":"model","limit":17}`:                 false,
			`{"query":"model","limit":1.5}`:                false,
			`{"query":"model","other":1}`:                  false,
			`{}`:                                           false,
			`{"query":"` + strings.Repeat("q", 501) + `"}`: false,
		} {
			err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: tc.name, Arguments: json.RawMessage(args)})
			if ok && err != nil {
				t.Errorf("call %s(%.40s) = %v", tc.name, args, err)
			}
			if !ok {
				wantCode(t, fmt.Sprintf("call %s(%.40s)", tc.name, args), err, discovery.CodeInvalidArguments)
			}
		}
	}
}

// ToolDefinition returns valid JSON whatever name the host passes: the name is encoded
// as a JSON string (strconv.Quote's \x escapes are not JSON).
func TestToolDefinitionAnyName(t *testing.T) {
	for _, name := range []string{`a"b`, `a\b`, "é", "a\x00b", "a\x7fb", "tab\tname", "\U0001F600", "\u2028"} {
		def := discovery.ToolDefinition(name)
		var v struct{ Name string }
		if err := json.Unmarshal(def, &v); err != nil || v.Name != name {
			t.Errorf("ToolDefinition(%q): name %q, error %v; want valid JSON naming %q", name, v.Name, err, name)
		}
	}
}
