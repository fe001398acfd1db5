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
