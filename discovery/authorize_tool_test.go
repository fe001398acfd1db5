package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// SPEC CALL-1, VIS-2, GRANT-6: AuthorizeTool decides on the name alone exactly as
// AuthorizeCall does before it reads the arguments: granted names pass, denied, unknown,
// scope-lacking and withheld ones answer the same tool_not_granted, and every decision
// rereads grants, so a revocation applies to the very next call.
func TestAuthorizeTool(t *testing.T) {
	ctx := t.Context()
	cat, _ := countingCatalog(t, sampleTools()...)
	store := newStore(t,
		allow("alice", "model_search", "models:read"),
		deny("alice", "model_get"),
		allow("*", "model_get"),
		allow("alice", "model_delete", "models:write"),
		allow("alice", "deployment_scale"),
	)
	counted := &countReads{Reader: store}
	d := newDiscoverer(cat, counted, func(o *discovery.Options) {
		o.Visibility.Exclude = []string{"deployment_scale"}
	})
	for tool, want := range map[string]discovery.Code{
		"model_search":     "",
		"model_get":        discovery.CodeToolNotGranted, // own deny row
		"dataset_search":   discovery.CodeToolNotGranted, // no row
		"model_delete":     discovery.CodeToolNotGranted, // scope missing
		"deployment_scale": discovery.CodeToolNotGranted, // withheld by visibility
		"no_such_tool":     discovery.CodeToolNotGranted,
		"":                 discovery.CodeToolNotGranted,
	} {
		err := d.AuthorizeTool(ctx, alice, tool)
		callErr := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: tool, Arguments: json.RawMessage(`{"text":"hello"}`)})
		if want == "" {
			if err != nil {
				t.Errorf("AuthorizeTool(%q) = %v, want nil", tool, err)
			}
			continue
		}
		wantCode(t, fmt.Sprintf("AuthorizeTool(%q)", tool), err, want)
		var a, b *discovery.Error
		if errors.As(err, &a) && errors.As(callErr, &b) && (a.Code != b.Code || a.Code.Status() != b.Code.Status() || a.Code.JSONRPCCode() != b.Code.JSONRPCCode()) {
			t.Errorf("AuthorizeTool(%q) = %+v, AuthorizeCall = %+v: they must agree", tool, a, b)
		}
	}
	before := counted.n
	if err := d.AuthorizeTool(ctx, alice, "model_search"); err != nil {
		t.Fatal(err)
	}
	if counted.n != before+1 {
		t.Errorf("AuthorizeTool read grants %d times, want 1 (reread on every call)", counted.n-before)
	}
	if _, err := store.Put(ctx, deny("alice", "model_search")); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "AuthorizeTool after revocation", d.AuthorizeTool(ctx, alice, "model_search"), discovery.CodeToolNotGranted)
}

// SPEC FLAG-2, FLAG-3, GRANT-5: switched off, AuthorizeTool allows everything and reads
// no grant; switched on with failing storage it answers grants_unavailable (503).
func TestAuthorizeToolSwitchAndStorage(t *testing.T) {
	ctx := t.Context()
	cat, _ := countingCatalog(t, sampleTools()...)
	counted := &countReads{Reader: newStore(t)}
	off := newDiscoverer(cat, counted, func(o *discovery.Options) { o.Enabled = false })
	if err := off.AuthorizeTool(ctx, alice, "no_such_tool"); err != nil || counted.n != 0 {
		t.Errorf("switched off: AuthorizeTool = %v with %d grant reads, want nil and none", err, counted.n)
	}
	broken := newDiscoverer(cat, &grantstest.ErrReader{Err: grants.ErrUnavailable}, nil)
	wantCode(t, "AuthorizeTool with storage down", broken.AuthorizeTool(ctx, alice, "model_search"), discovery.CodeGrantsUnavailable)
}

type countReads struct {
	grants.Reader
	n int
}

func (r *countReads) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	r.n++
	return r.Reader.ReadGrants(ctx, id)
}

// SPEC CALL-1, CALL-2, CALL-6, GRANT-6: AuthorizeToolThen reads grants once and its call
// decides the rest exactly as AuthorizeCall does (arguments, contract pin, CheckCall)
// without reading them again; a second use, or a use for another principal or tool,
// is AuthorizeCall itself and rereads; a refused name returns no call; switched off,
// nothing is read and every call is allowed.
func TestAuthorizeToolThen(t *testing.T) {
	ctx := t.Context()
	cat, _ := countingCatalog(t, sampleTools()...)
	store := newStore(t, allow("alice", "model_search"), allow("alice", "model_get"))
	counted := &countReads{Reader: store}
	checked := 0
	d := newDiscoverer(cat, counted, func(o *discovery.Options) {
		o.CheckCall = func(context.Context, grants.Principal, string, json.RawMessage) error { checked++; return nil }
	})
	list, err := d.ListTools(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	good := discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"hello"}`)}
	for _, tc := range []struct {
		name string
		c    discovery.Call
		want discovery.Code // "" for allowed
	}{
		{"granted", good, ""},
		{"pin kept", discovery.Call{Tool: "model_search", Arguments: good.Arguments, ContractPin: list.ContractDigest}, ""},
		{"pin changed", discovery.Call{Tool: "model_search", Arguments: good.Arguments, ContractPin: "sha256:x"}, discovery.CodeContractChanged},
		{"invalid arguments", discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"count":0}`)}, discovery.CodeInvalidArguments},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, checks := counted.n, checked
			call, err := d.AuthorizeToolThen(ctx, alice, tc.c.Tool)
			if err != nil {
				t.Fatalf("AuthorizeToolThen = %v, want nil", err)
			}
			err = call(ctx, alice, tc.c)
			if counted.n != before+1 {
				t.Errorf("AuthorizeToolThen and its call read grants %d times, want once", counted.n-before)
			}
			want := d.AuthorizeCall(ctx, alice, tc.c)
			if tc.want == "" {
				if err != nil || want != nil || checked != checks+2 {
					t.Errorf("call = %v, AuthorizeCall = %v, CheckCall ran %d times; want nil, nil, 2", err, want, checked-checks)
				}
				return
			}
			wantCode(t, "call", err, tc.want)
			wantCode(t, "AuthorizeCall", want, tc.want)
		})
	}

	// A second use, or a use for another tool or principal, rereads grants.
	call, err := d.AuthorizeToolThen(ctx, alice, "model_search")
	if err != nil {
		t.Fatal(err)
	}
	if err := call(ctx, alice, good); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(ctx, deny("alice", "model_search")); err != nil {
		t.Fatal(err)
	}
	before := counted.n
	wantCode(t, "second use after revocation", call(ctx, alice, good), discovery.CodeToolNotGranted)
	if counted.n != before+1 {
		t.Errorf("a second use read grants %d times, want once", counted.n-before)
	}
	call, _ = d.AuthorizeToolThen(ctx, alice, "model_get")
	before = counted.n
	wantCode(t, "use for another tool", call(ctx, alice, good), discovery.CodeToolNotGranted)
	call, _ = d.AuthorizeToolThen(ctx, alice, "model_get")
	wantCode(t, "use for another principal", call(ctx, grants.Principal{ID: "mallory"}, discovery.Call{Tool: "model_get", Arguments: good.Arguments}), discovery.CodeToolNotGranted)
	if counted.n != before+3 {
		t.Errorf("two decisions and two foreign uses read grants %d times, want 3", counted.n-before)
	}

	if call, err := d.AuthorizeToolThen(ctx, alice, "model_search"); call != nil || err == nil {
		t.Errorf("AuthorizeToolThen(revoked tool) = call %v, %v; want no call and tool_not_granted", call != nil, err)
	}
	off := newDiscoverer(cat, counted, func(o *discovery.Options) { o.Enabled = false })
	before = counted.n
	call, err = off.AuthorizeToolThen(ctx, alice, "no_such_tool")
	if err != nil || call(ctx, alice, discovery.Call{Tool: "no_such_tool"}) != nil || counted.n != before {
		t.Errorf("switched off: AuthorizeToolThen = %v, its call refused or grants read; want every call allowed, no read", err)
	}
}
