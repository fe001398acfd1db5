package observe_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
)

// OpDiscoverTool's doc: every form of the discovery tool's call (DiscoverTool,
// DiscoverToolPinned, DiscoverToolCall) reports one OpDiscoverTool event, served or
// refused (a stale pin: contract_changed).
func TestDiscoverToolFormsReportOpDiscoverTool(t *testing.T) {
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"model_search","description":"Search the model registry.","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store := grants.NewMemory()
	if _, err := store.Put(ctx, grants.Row{Principal: "ana", Tool: "model_search", Effect: grants.Allow}); err != nil {
		t.Fatal(err)
	}
	var events []observe.Event
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store,
		Observe: func(_ context.Context, e observe.Event) { events = append(events, e) }})
	ana := grants.Principal{ID: "ana"}
	args := json.RawMessage(`{"query":"model registry"}`)
	list, err := d.ListTools(ctx, ana)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		run  func() error
		code discovery.Code // "" when served
	}{
		{"DiscoverTool", func() error { _, err := d.DiscoverTool(ctx, ana, args); return err }, ""},
		{"DiscoverToolPinned", func() error { _, err := d.DiscoverToolPinned(ctx, ana, args, list.ContractDigest); return err }, ""},
		{"DiscoverToolPinned stale pin", func() error { _, err := d.DiscoverToolPinned(ctx, ana, args, "sha256:00"); return err }, discovery.CodeContractChanged},
		{"DiscoverToolCall", func() error {
			_, err := d.DiscoverToolCall(ctx, ana, discovery.Call{Arguments: args, ContractPin: list.ContractDigest})
			return err
		}, ""},
		{"DiscoverToolCall bad pin", func() error {
			_, err := d.DiscoverToolCall(ctx, ana, discovery.Call{Arguments: args, BadContractPin: true})
			return err
		}, discovery.CodeInvalidParams},
	}
	for _, c := range cases {
		events = events[:0]
		err := c.run()
		if (c.code == "") != (err == nil) || (c.code != "" && !errors.Is(err, c.code)) {
			t.Errorf("%s: error %v, want code %q", c.name, err, c.code)
		}
		if len(events) != 1 || events[0].Op != observe.OpDiscoverTool || events[0].Code != string(c.code) {
			t.Errorf("%s: events %+v, want one %s event with code %q", c.name, events, observe.OpDiscoverTool, c.code)
		}
	}
}
