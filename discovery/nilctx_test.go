package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/observe"
)

// Every Discoverer entry point refuses a nil context before it reads, decides or
// observes anything, with or without the switch: internal_error (500) wrapping
// ErrNilContext, its text fixed, instead of a panic deep in a grant read or a host's
// CatalogSource (net/http's NewRequestWithContext likewise answers an error). A call
// func handed out by AuthorizeToolThen does the same. HandleJSONRPC answers a discover
// request so given with an internal_error response; Observe sees no event. (SPEC
// ERR-1, ERR-2: the code and status of the table, a fixed text.)
func TestNilContextRefused(t *testing.T) {
	var nilCtx context.Context // a nil interface, as a caller's zero value would pass
	cat := newCatalog(t, toolDef("echo", "Echo a text back."))
	store := newStore(t, allow("*", "echo"))
	for _, enabled := range []bool{true, false} {
		events := 0
		d := newDiscoverer(cat, store, func(o *discovery.Options) {
			o.Enabled = enabled
			o.Observe = func(context.Context, observe.Event) { events++ }
		})
		// then is a call func handed out for a granted tool, called with a nil context.
		then, err := d.AuthorizeToolThen(context.Background(), alice, "echo")
		if err != nil {
			t.Fatal(err)
		}
		events = 0
		args := json.RawMessage(`{"text":"a"}`)
		for _, c := range []struct {
			name string
			call func() error
		}{
			{"Discover", func() error { _, err := d.Discover(nilCtx, alice, discovery.Request{Query: "echo"}); return err }},
			{"DiscoverParams", func() error {
				_, err := d.DiscoverParams(nilCtx, alice, json.RawMessage(`{"query":"echo"}`))
				return err
			}},
			{"DiscoverTool", func() error { _, err := d.DiscoverTool(nilCtx, alice, json.RawMessage(`{"query":"echo"}`)); return err }},
			{"DiscoverToolPinned", func() error {
				_, err := d.DiscoverToolPinned(nilCtx, alice, json.RawMessage(`{"query":"echo"}`), "pin")
				return err
			}},
			{"DiscoverFramed", func() error {
				_, err := d.DiscoverFramed(nilCtx, alice, json.RawMessage(`{"query":"echo"}`), 1)
				return err
			}},
			{"ListTools", func() error { _, err := d.ListTools(nilCtx, alice); return err }},
			{"Catalog", func() error { _, err := d.Catalog(nilCtx); return err }},
			{"AuthorizeTool", func() error { return d.AuthorizeTool(nilCtx, alice, "echo") }},
			{"AuthorizeToolThen", func() error { _, err := d.AuthorizeToolThen(nilCtx, alice, "echo"); return err }},
			{"AuthorizeActionThen", func() error { _, err := d.AuthorizeActionThen(nilCtx, alice, "echo", args); return err }},
			{"AuthorizeCall", func() error { return d.AuthorizeCall(nilCtx, alice, discovery.Call{Tool: "echo", Arguments: args}) }},
			{"AuthorizeToolThen's call", func() error { return then(nilCtx, alice, discovery.Call{Tool: "echo", Arguments: args}) }},
		} {
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				return c.call()
			}()
			var de *discovery.Error
			if !errors.Is(err, discovery.ErrNilContext) || !errors.As(err, &de) || de.Code != discovery.CodeInternal ||
				de.Code.Status() != http.StatusInternalServerError || err.Error() != "discovery: internal_error" {
				t.Errorf("switch %v: %s(nil ctx) = %v, want internal_error wrapping ErrNilContext", enabled, c.name, err)
			}
		}
		msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"` + discovery.DefaultMethod + `","params":{"query":"echo"}}`)
		resp, status := func() (resp []byte, status int) {
			defer func() {
				if r := recover(); r != nil {
					status = -1
				}
			}()
			return d.HandleJSONRPC(nilCtx, alice, msg)
		}()
		switch {
		case !enabled && (status != 0 || resp != nil):
			t.Errorf("switch off: HandleJSONRPC(nil ctx) = %d %s, want 0: the host's message", status, resp)
		case enabled:
			var r struct {
				ID    int
				Error struct{ Code int }
			}
			if status != http.StatusInternalServerError || json.Unmarshal(resp, &r) != nil || r.ID != 7 || r.Error.Code != -32603 {
				t.Errorf("HandleJSONRPC(nil ctx) = %d %s, want 500 and an internal_error response", status, resp)
			}
		}
		if events != 0 {
			t.Errorf("switch %v: Observe saw %d events of nil-context calls, want none", enabled, events)
		}
	}
}
