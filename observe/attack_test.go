package observe_test

// Attacks on observe's promise from outside: "An Event holds no content: never a
// query, arguments, a cursor, a tool name, a JSON-RPC id or a principal's ID or
// scopes, only what kind of decision it was, its outcome, what was served and the
// catalog version read, so it can be logged or exported as it is."

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
)

// Event has exactly the documented members, none of them able to hold content but
// Op and Code (words) and CatalogDigest (a digest). Breaks when a field is added (say,
// the tool's name) without this promise being revisited.
func TestAttackEventFields(t *testing.T) {
	want := map[string]string{"Op": "observe.Op", "Code": "string", "Duration": "time.Duration",
		"Tools": "int", "Bytes": "int", "CatalogDigest": "string"}
	typ := reflect.TypeFor[observe.Event]()
	if typ.NumField() != len(want) {
		t.Errorf("Event has %d fields, want %d: a new field must keep the no-content promise", typ.NumField(), len(want))
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if want[f.Name] != f.Type.String() {
			t.Errorf("Event.%s is %s, want %q", f.Name, f.Type, want[f.Name])
		}
	}
}

// Driven through a Discoverer with client text in every input, every Event's strings
// are an Op constant, a Code constant or empty, and a catalog digest of the documented
// form (sha256: and 64 lowercase hex digits) or empty. Breaks if CatalogDigest or
// Code ever carried anything else.
func TestAttackEventStringsAreWords(t *testing.T) {
	const canary = "zq9canary"
	var events []observe.Event
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"` + canary + `_tool","description":"A ` + canary + ` tool.","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	if _, err := store.Put(context.Background(), grants.Row{Principal: canary, Tool: canary + "_tool", Effect: grants.Allow}); err != nil {
		t.Fatal(err)
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store,
		Observe: func(_ context.Context, e observe.Event) { events = append(events, e) }})
	ctx := context.Background()
	p := grants.Principal{ID: canary, Scopes: []string{canary}}
	d.Discover(ctx, p, discovery.Request{Query: canary})
	d.Discover(ctx, p, discovery.Request{Query: canary, Cursor: canary})
	d.DiscoverTool(ctx, p, json.RawMessage(`{"query":"`+canary+`"}`))
	d.HandleJSONRPC(ctx, p, []byte(`{"jsonrpc":"2.0","id":"`+canary+`","method":"multillm.tools.discover","params":{"query":"`+canary+`"}}`))
	d.ListTools(ctx, p)
	d.AuthorizeTool(ctx, p, canary+"_other")
	d.AuthorizeCall(ctx, p, discovery.Call{Tool: canary + "_tool", Arguments: json.RawMessage(`{"q":"` + canary + `"}`)})
	d.AuthorizeCall(ctx, p, discovery.Call{Tool: canary + "_tool", Arguments: json.RawMessage(`{"q":1}`), ContractPin: canary})
	ops := map[observe.Op]bool{observe.OpDiscover: true, observe.OpDiscoverTool: true, observe.OpList: true, observe.OpAuthorizeTool: true, observe.OpAuthorizeCall: true}
	codes := map[string]bool{"": true}
	for _, c := range discovery.Codes() {
		codes[string(c)] = true
	}
	digest := regexp.MustCompile(`^(sha256:[0-9a-f]{64})?$`)
	if len(events) < 8 {
		t.Fatalf("%d events, want one per decision (8)", len(events))
	}
	for _, e := range events {
		if !ops[e.Op] || !codes[e.Code] || !digest.MatchString(e.CatalogDigest) {
			t.Errorf("event %+v: op, code or digest outside the documented words", e)
		}
		if strings.Contains(fmt.Sprintf("%#v", e), canary) {
			t.Errorf("event %+v carries client text", e)
		}
	}
}
