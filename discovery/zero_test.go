package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/nopanic"
)

// entryPoints are the Discoverer's entry points that need a catalog and grants, each
// answering the error of its decision (HandleJSONRPC's as an error of its status).
var entryPoints = []struct {
	name string
	call func(d *discovery.Discoverer) error
}{
	{"Discover", func(d *discovery.Discoverer) error {
		_, err := d.Discover(context.Background(), alice, discovery.Request{Query: "echo"})
		return err
	}},
	{"DiscoverTool", func(d *discovery.Discoverer) error {
		_, err := d.DiscoverTool(context.Background(), alice, json.RawMessage(`{"query":"echo"}`))
		return err
	}},
	{"ListTools", func(d *discovery.Discoverer) error { _, err := d.ListTools(context.Background(), alice); return err }},
	{"AuthorizeTool", func(d *discovery.Discoverer) error { return d.AuthorizeTool(context.Background(), alice, "echo") }},
	{"AuthorizeToolThen", func(d *discovery.Discoverer) error {
		_, err := d.AuthorizeToolThen(context.Background(), alice, "echo")
		return err
	}},
	{"AuthorizeCall", func(d *discovery.Discoverer) error {
		return d.AuthorizeCall(context.Background(), alice, discovery.Call{Tool: "echo", Arguments: json.RawMessage(`{"text":"a"}`)})
	}},
	{"HandleJSONRPC", func(d *discovery.Discoverer) error {
		_, status := d.HandleJSONRPC(context.Background(), alice,
			[]byte(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"echo"}}`))
		return fmt.Errorf("status %d", status)
	}},
}

// A Discoverer whose collaborator is a nil or zero value of the library's own
// implementations (a nil *grants.Memory, a nil *SwappableCatalog, a Catalog not built by
// NewCatalog) answers 503 for the work that needs it, grants_unavailable or
// catalog_unavailable, at every entry point, as for a nil interface
// (TestMissingCollaborators): it never panics and never skips the check (SPEC ERR-5,
// FLAG-3).
func TestMissingCollaboratorsNilAndZero(t *testing.T) {
	cat := newCatalog(t, toolDef("echo", "Echo a text back."))
	store := newStore(t, allow("*", "echo"))
	var nilMemory *grants.Memory
	var nilSwappable *discovery.SwappableCatalog
	var nilCatalog *discovery.Catalog
	for _, c := range []struct {
		name    string
		catalog discovery.CatalogSource
		grants  grants.Reader
		want    discovery.Code
	}{
		{"nil Grants", cat, nil, discovery.CodeGrantsUnavailable},
		{"nil *grants.Memory", cat, nilMemory, discovery.CodeGrantsUnavailable},
		{"nil Catalog", nil, store, discovery.CodeCatalogUnavailable},
		{"nil *Catalog", nilCatalog, store, discovery.CodeCatalogUnavailable},
		{"nil *SwappableCatalog", nilSwappable, store, discovery.CodeCatalogUnavailable},
		{"zero SwappableCatalog", new(discovery.SwappableCatalog), store, discovery.CodeCatalogUnavailable},
		{"zero Catalog", new(discovery.Catalog), store, discovery.CodeCatalogUnavailable},
	} {
		d := newDiscoverer(c.catalog, c.grants, nil)
		for _, e := range entryPoints {
			err := nopanic.Call(func() error {
				return e.call(d)
			})
			want := error(c.want)
			if e.name == "HandleJSONRPC" {
				want = fmt.Errorf("status %d", c.want.Status())
				if err.Error() == want.Error() {
					continue
				}
			} else if errors.Is(err, c.want) {
				continue
			}
			t.Errorf("%s: %s = %v, want %v", c.name, e.name, err, want)
		}
	}
}

// A ListResult built by literal (a host's test double, say) answers from what it holds:
// Tool finds nothing without a Catalog, SafeModeHolds is false, AppendSafeModeHolds
// appends false per tool, AppendDigests hashes Tools. None panics.
func TestListResultZero(t *testing.T) {
	for _, r := range []*discovery.ListResult{
		{},
		{Tools: []json.RawMessage{toolDef("echo", "Echo a text back.")}, ContractDigest: "sha256:x"},
	} {
		err := nopanic.Call(func() error {
			if def, ok := r.Tool("echo"); ok || def != nil {
				return fmt.Errorf("Tool(echo) = %s, %v; want nil, false", def, ok)
			}
			if r.SafeModeHolds("echo") {
				return fmt.Errorf("SafeModeHolds(echo) = true")
			}
			if got := r.AppendSafeModeHolds(nil); len(got) != len(r.Tools) {
				return fmt.Errorf("AppendSafeModeHolds = %v, want %d falses", got, len(r.Tools))
			}
			if got := r.AppendDigests(nil); len(got) != len(r.Tools) {
				return fmt.Errorf("AppendDigests = %d digests, want %d", len(got), len(r.Tools))
			}
			return nil
		})
		if err != nil {
			t.Errorf("ListResult with %d tools: %v", len(r.Tools), err)
		}
	}
}
