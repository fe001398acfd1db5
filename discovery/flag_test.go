package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// SPEC FLAG-1: off by default; unset or empty is off; a value strconv.ParseBool accepts
// decides; any other value is off with exactly one warning that names the setting and
// never the value.
func TestSwitchFromEnv(t *testing.T) {
	for _, tc := range []struct {
		value string
		set   bool
		want  bool
		warn  bool
	}{
		{set: false, want: false},
		{value: "", set: true, want: false},
		{value: "true", set: true, want: true},
		{value: "TRUE", set: true, want: true},
		{value: "1", set: true, want: true},
		{value: "t", set: true, want: true},
		{value: "false", set: true, want: false},
		{value: "0", set: true, want: false},
		{value: "F", set: true, want: false},
		{value: "yes-canary-4417", set: true, want: false, warn: true},
		{value: "on", set: true, want: false, warn: true},
		{value: " true", set: true, want: false, warn: true},
		{value: "enabled\u00e9", set: true, want: false, warn: true},
	} {
		rec := newLogRecorder()
		var asked []string
		lookup := func(k string) (string, bool) {
			asked = append(asked, k)
			return tc.value, tc.set
		}
		got := discovery.SwitchFromEnv(lookup, slog.New(rec))
		if got != tc.want {
			t.Errorf("SwitchFromEnv(%q, set %v) = %v, want %v", tc.value, tc.set, got, tc.want)
		}
		if !slices.Equal(asked, []string{"DEFERRED_TOOLS_ENABLED"}) {
			t.Errorf("SwitchFromEnv(%q) looked up %q, want DEFERRED_TOOLS_ENABLED once", tc.value, asked)
		}
		logs := rec.all()
		wantN := 0
		if tc.warn {
			wantN = 1
		}
		if len(logs) != wantN {
			t.Errorf("SwitchFromEnv(%q) logged %d records %q, want %d", tc.value, len(logs), logs, wantN)
			continue
		}
		if tc.warn {
			if !strings.HasPrefix(logs[0], "WARN ") || !strings.Contains(logs[0], "DEFERRED_TOOLS_ENABLED") {
				t.Errorf("SwitchFromEnv(%q) logged %q, want a warning naming DEFERRED_TOOLS_ENABLED", tc.value, logs[0])
			}
			if v := strings.TrimSpace(tc.value); strings.Contains(logs[0], v) {
				t.Errorf("SwitchFromEnv(%q) logged the value: %q", tc.value, logs[0])
			}
		}
	}
}

// SPEC FLAG-1: nil lookup reads the process environment, nil logger logs to
// slog.Default; the default is off.
func TestSwitchFromEnvDefaults(t *testing.T) {
	rec := newLogRecorder()
	old := slog.Default()
	slog.SetDefault(slog.New(rec))
	t.Cleanup(func() { slog.SetDefault(old) })

	t.Setenv("DEFERRED_TOOLS_ENABLED", "true")
	if !discovery.SwitchFromEnv(nil, nil) {
		t.Errorf("SwitchFromEnv(nil, nil) with true = false")
	}
	t.Setenv("DEFERRED_TOOLS_ENABLED", "maybe-canary-9921")
	if discovery.SwitchFromEnv(nil, nil) {
		t.Errorf("SwitchFromEnv(nil, nil) with garbage = true")
	}
	logs := rec.all()
	if len(logs) != 1 || !strings.Contains(logs[0], "DEFERRED_TOOLS_ENABLED") || strings.Contains(logs[0], "maybe-canary-9921") {
		t.Errorf("default logger got %q, want one warning naming the setting only", logs)
	}
	if discovery.New(nil).Enabled() {
		t.Errorf("New(nil).Enabled() = true, want off by default")
	}
}

// SPEC FLAG-2: while off, nothing changes and the grant store is never read: the
// discover method answers method_not_found (-32601) like any unknown method,
// HandleJSONRPC leaves every message to the host, ListTools serves the whole catalog
// as it is, and every call is allowed without a host check added.
func TestSwitchOff(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	var checked atomic.Int64
	d := discovery.New(&discovery.Options{
		Catalog: cat,
		Grants:  forbiddenReader{t},
		CheckCall: func(context.Context, grants.Principal, string, json.RawMessage) error {
			checked.Add(1)
			return nil
		},
	})
	if d.Enabled() {
		t.Fatal("Enabled() = true for a zero Options.Enabled")
	}
	res, err := d.Discover(ctx, alice, discovery.Request{Query: "model"})
	if res != nil {
		t.Errorf("Discover returned a page while off")
	}
	if e := wantCode(t, "Discover while off", err, discovery.CodeMethodNotFound); e != nil && e.Code.JSONRPCCode() != -32601 {
		t.Errorf("JSON-RPC code = %d, want -32601", e.Code.JSONRPCCode())
	}
	if !errors.Is(err, discovery.CodeMethodNotFound) {
		t.Errorf("errors.Is(err, ErrMethodNotFound) = false")
	}
	_, err = d.DiscoverParams(ctx, alice, json.RawMessage(`{"query":"model"}`))
	wantCode(t, "DiscoverParams while off", err, discovery.CodeMethodNotFound)
	_, err = d.DiscoverParams(ctx, alice, json.RawMessage(`{"bogus":1}`))
	wantCode(t, "DiscoverParams with bad params while off", err, discovery.CodeMethodNotFound)

	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model"}}`,
		`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"model"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`not json`,
	} {
		if resp, status := d.HandleJSONRPC(ctx, alice, []byte(msg)); status != 0 || resp != nil {
			t.Errorf("HandleJSONRPC(%s) while off = %s, %d; want nil, 0", msg, resp, status)
		}
	}

	l, err := d.ListTools(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, l.Tools), cat.Names(); !slices.Equal(got, want) {
		t.Errorf("ListTools while off = %v, want the whole catalog %v", got, want)
	}
	for i, name := range cat.Names() {
		def, _ := cat.Tool(name)
		if string(l.Tools[i]) != string(def) {
			t.Errorf("ListTools while off serves %s differently from the catalog", name)
		}
	}
	for _, c := range []discovery.Call{
		{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)},
		{Tool: "model_search", Arguments: json.RawMessage(`{"no":"schema"}`)},
		{Tool: "not_in_catalog", Arguments: json.RawMessage(`{`)},
	} {
		if err := d.AuthorizeCall(ctx, alice, c); err != nil {
			t.Errorf("AuthorizeCall(%s) while off = %v, want nil", c.Tool, err)
		}
	}
	if checked.Load() != 0 {
		t.Errorf("CheckCall ran %d times while off: the library added a check", checked.Load())
	}
}

// SPEC FLAG-3: while on, grant storage is required: no Reader, or a Reader whose
// storage (or table) is missing, answers 503 before anything executes: no validation,
// no host check, no page.
func TestSwitchOnRequiresStorage(t *testing.T) {
	ctx := t.Context()
	for name, r := range map[string]grants.Reader{
		"no reader":         nil,
		"storage missing":   &grantstest.ErrReader{},
		"table missing":     &grantstest.ErrReader{Err: errors.Join(grants.ErrUnavailable, errors.New(`relation "tool_grants" does not exist`))},
		"revision unusable": &grantstest.NoRevisionReader{Base: newStore(t, allow("alice", "model_search"))},
	} {
		cat, cc := countingCatalog(t, sampleTools()...)
		var checked atomic.Int64
		d := newDiscoverer(cat, r, func(o *discovery.Options) {
			o.RevisionSync = name == "revision unusable"
			o.CheckCall = func(context.Context, grants.Principal, string, json.RawMessage) error {
				checked.Add(1)
				return nil
			}
		})
		err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)})
		wantCode(t, name+": AuthorizeCall", err, discovery.CodeGrantsUnavailable)
		_, err = d.Discover(ctx, alice, discovery.Request{Query: "model"})
		wantCode(t, name+": Discover", err, discovery.CodeGrantsUnavailable)
		_, err = d.ListTools(ctx, alice)
		wantCode(t, name+": ListTools", err, discovery.CodeGrantsUnavailable)
		resp, status := d.HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","id":"a","method":"multillm.tools.discover","params":{"query":"model"}}`))
		want := `{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"grants_unavailable","data":{"error":"grants_unavailable","status":503}}}`
		if status == 0 || string(resp) != want {
			t.Errorf("%s: HandleJSONRPC = %s, %d; want %s", name, resp, status, want)
		}
		if !json.Valid(resp) {
			t.Errorf("%s: the 503 body is not JSON", name)
		}
		if n := cc.validated.Load(); n != 0 {
			t.Errorf("%s: %d validations ran", name, n)
		}
		if n := checked.Load(); n != 0 {
			t.Errorf("%s: CheckCall ran %d times", name, n)
		}
	}
}
