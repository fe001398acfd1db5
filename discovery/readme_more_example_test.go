package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/metatool"
	"github.com/deferredtools/deferredtools/safemode"
)

// readmeSafeMode is the README's "Safe mode" snippet: a Discoverer in safe mode, and a
// call of tool name with args made again with the token when safe mode holds it. It
// reports whether the call was held first.
func readmeSafeMode(ctx context.Context, catalog *discovery.Catalog, store grants.Reader, p grants.Principal, name string, args json.RawMessage) (bool, error) {
	d := discovery.New(&discovery.Options{
		Enabled: true, Catalog: catalog, Grants: store,
		SafeMode: safemode.Options{
			Enabled: true,
			Exempt:  []string{"gitlab_issue"}, // tools that preview each action themselves
			Preview: nil,                      // or func(ctx, p, tool, args) (string, error): your own text
		},
	})
	token := ""
	for {
		err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: name, Arguments: args, Confirmation: token})
		var held *discovery.ConfirmationRequired
		if errors.As(err, &held) {
			// show held.Text() (held.Preview), hand out held.Token; run nothing
		}
		if held == nil || token != "" {
			return token != "", err
		}
		fmt.Println(held.Preview) // a person confirms: the same call again, with the token
		token = held.Token
	}
}

// readmeMetaTools is the README's "Meta tools" snippet: a catalog whose meta tools file
// declares.
func readmeMetaTools(tools []json.RawMessage, file []byte) (*discovery.Catalog, error) {
	metaTools, err := metatool.Parse(file) // or build the map in code
	if err != nil {
		return nil, err
	}
	catalog, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{MetaTools: metaTools})
	return catalog, err
}

// The README's "Safe mode" and "Meta tools" snippets: a meta tool's mutating action is
// held, then runs with its token; its read-only action runs at once.
func Example_readmeSafeModeMetaTools() {
	ctx := context.Background()
	tools := []json.RawMessage{json.RawMessage(`{"name":"keys","description":"List, create or revoke API keys.",` +
		`"inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["list","create","revoke"]},` +
		`"label":{"type":"string"}},"required":["action"]}}`)}
	catalog, err := readmeMetaTools(tools, []byte(`{"keys":{"argument":"action","actions":[`+
		`{"name":"list","readOnlyHint":true},{"name":"create"},{"name":"revoke","destructiveHint":true}]}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	store := grants.NewMemory()
	store.Put(ctx, grants.Row{Principal: "alice", Tool: "keys.list", Effect: grants.Allow})
	store.Put(ctx, grants.Row{Principal: "alice", Tool: "keys.create", Effect: grants.Allow})
	alice := grants.Principal{ID: "alice"}

	wasHeld, err := readmeSafeMode(ctx, catalog, store, alice, "keys", json.RawMessage(`{"action":"create","label":"ci"}`))
	fmt.Println("create: held, then confirmed:", wasHeld, err)
	wasHeld, err = readmeSafeMode(ctx, catalog, store, alice, "keys", json.RawMessage(`{"action":"list"}`))
	fmt.Println("list: held:", wasHeld, err)
	_, err = readmeSafeMode(ctx, catalog, store, alice, "keys", json.RawMessage(`{"action":"revoke"}`))
	fmt.Println("revoke:", err)
	// Output:
	// keys: List, create or revoke API keys.
	// Arguments given: action, label
	// create: held, then confirmed: true <nil>
	// list: held: false <nil>
	// revoke: discovery: tool_not_granted
}
