package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// caseReason is the CatalogError.Reason of member names differing only by case.
const caseReason = "member names differing only by case"

// caseCatalog builds a Discoverer over tools with every tool granted to alice.
func caseCatalog(t *testing.T, tools []json.RawMessage, vis discovery.Visibility) (*discovery.Catalog, *discovery.Discoverer, error) {
	t.Helper()
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		return nil, nil, err
	}
	var rows []grants.Row
	for _, n := range cat.Names() {
		rows = append(rows, allow("alice", n))
	}
	d := newDiscoverer(cat, newStore(t, rows...), func(o *discovery.Options) { o.Visibility = vis })
	return cat, d, nil
}

// wantCaseRefusal checks err is the *CatalogError of tool index for member names
// differing only by case, and that its message quotes nothing of the tool.
func wantCaseRefusal(t *testing.T, err error, index int, content ...string) {
	t.Helper()
	var ce *discovery.CatalogError
	if !errors.As(err, &ce) {
		t.Fatalf("NewCatalog = %v, want a *CatalogError", err)
	}
	if ce.Index != index || ce.Reason != caseReason {
		t.Fatalf("NewCatalog = tool %d %q, want tool %d %q", ce.Index, ce.Reason, index, caseReason)
	}
	for _, c := range content {
		if strings.Contains(err.Error(), c) {
			t.Errorf("error %q quotes tool content %q", err, c)
		}
	}
}

// A tool holding inputSchema (strict) and inputschema (loose) must not be served with
// the strict schema and validated against the loose one: the catalog is refused. On a
// case-insensitive reader it was accepted and AuthorizeCall took arguments that break
// the advertised schema (SPEC CALL-2, CONTRACT-1).
func TestCatalogCaseTwinInputSchema(t *testing.T) {
	strict := `{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"],"additionalProperties":false}`
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"ok_tool","description":"d","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"twin_tool","description":"d","inputSchema":` + strict + `,"inputschema":{"type":"object"}}`),
	}
	_, d, err := caseCatalog(t, tools, discovery.Visibility{})
	if err == nil {
		callErr := d.AuthorizeCall(context.Background(), alice, discovery.Call{Tool: "twin_tool", Arguments: json.RawMessage(`{"n":"not a number","x":1}`)})
		t.Fatalf("NewCatalog accepted inputSchema + inputschema; AuthorizeCall with arguments breaking the served schema = %v", callErr)
	}
	wantCaseRefusal(t, err, 1, "twin_tool", "inputschema", "maximum")
}

// The Unicode case folding encoding/json applies (ſ is s, the Kelvin sign K is k) counts as case too.
func TestCatalogCaseTwinUnicodeFolding(t *testing.T) {
	for _, tool := range []string{
		`{"name":"t","inputSchema":{"type":"object"},"input\u017fchema":{}}`,
		`{"name":"t","inputSchema":{"type":"object"},"annotations":{"kind":1,"\u212aind":2}}`,
		`{"name":"t","inputSchema":{"type":"object"},"_meta":{"deferredtools/eager":true,"deferredtool\u017f/eager":false}}`,
	} {
		_, err := discovery.NewCatalog([]json.RawMessage{json.RawMessage(tool)}, nil)
		wantCaseRefusal(t, err, 0)
	}
}

// Twins are refused in the objects the library reads members of: the tool, its
// annotations and its _meta. Elsewhere (property names, enum values, nested _meta
// objects, unread members) names differing only by case are distinct and accepted.
func TestCatalogCaseTwins(t *testing.T) {
	for _, tc := range []struct {
		tool    string
		refused bool
	}{
		{`{"name":"t","Name":"u","inputSchema":{"type":"object"}}`, true},
		{`{"name":"t","description":"a","Description":"b","inputSchema":{"type":"object"}}`, true},
		{`{"name":"t","inputSchema":{"type":"object"},"x":1,"X":2}`, true}, // unread members too
		{`{"name":"t","inputSchema":{"type":"object"},"annotations":{"title":"a","TITLE":"b"}}`, true},
		{`{"name":"t","inputSchema":{"type":"object"},"_meta":{"deferredtools/eager":true,"DeferredTools/Eager":false}}`, true},
		{`{"name":"t","inputSchema":{"type":"object"},"_meta":{"a":1},"_Meta":{"a":2}}`, true},
		{`{"name":"t","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"ID":{"type":"string"}}}}`, false},
		{`{"name":"t","inputSchema":{"type":"object","properties":{"e":{"enum":[{"a":1,"A":2}]}}}}`, false},
		{`{"name":"t","inputSchema":{"type":"object"},"_meta":{"x":{"a":1,"A":2}}}`, false},
		{`{"name":"t","inputSchema":{"type":"object"},"annotations":{"x":{"a":1,"A":2}}}`, false},
		{`{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"a":1,"A":2}}`, false},
		{`{"name":"t","inputSchema":{"type":"object"},"annotations":"not an object","_meta":[1]}`, false},
	} {
		_, err := discovery.NewCatalog([]json.RawMessage{json.RawMessage(tc.tool)}, nil)
		if !tc.refused {
			if err != nil {
				t.Errorf("NewCatalog(%s) = %v, want accepted", tc.tool, err)
			}
			continue
		}
		var ce *discovery.CatalogError
		if !errors.As(err, &ce) || ce.Index != 0 || ce.Reason != caseReason {
			t.Errorf("NewCatalog(%s) = %v, want tool 0 refused: %s", tc.tool, err, caseReason)
		}
	}
}

// A member spelled in another case is another member: a lone InputSchema is no
// inputSchema, and a lone Name is no name (SPEC CALL-2).
func TestCatalogWrongCaseMemberIsAbsent(t *testing.T) {
	for _, tc := range []struct{ tool, reason string }{
		{`{"name":"t","description":"d","InputSchema":{"type":"object"}}`, "inputSchema"},
		{`{"name":"t","INPUTSCHEMA":{"type":"object"}}`, "inputSchema"},
		{`{"Name":"t","inputSchema":{"type":"object"}}`, "name"},
	} {
		_, err := discovery.NewCatalog([]json.RawMessage{json.RawMessage(tc.tool)}, nil)
		var ce *discovery.CatalogError
		if !errors.As(err, &ce) || ce.Index != 0 || ce.Reason != tc.reason {
			t.Errorf("NewCatalog(%s) = %v, want tool 0 refused: %s", tc.tool, err, tc.reason)
		}
	}
}

// readOnlyHint is read by its exact name: "readOnlyHint":false with "readonlyhint":true
// is refused, and a lone ReadOnlyHint or Annotations is not read, so neither slips a
// tool past Visibility.ReadOnly (SPEC VIS-1).
func TestCatalogReadOnlyHintExact(t *testing.T) {
	_, d, err := caseCatalog(t, []json.RawMessage{
		json.RawMessage(`{"name":"writer","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"readonlyhint":true}}`),
	}, discovery.Visibility{ReadOnly: true})
	if err == nil {
		list, _ := d.ListTools(context.Background(), alice)
		t.Fatalf("NewCatalog accepted readOnlyHint:false + readonlyhint:true; read-only ListTools serves %d tools", len(list.Tools))
	}
	wantCaseRefusal(t, err, 0, "writer", "readonlyhint")

	_, d, err = caseCatalog(t, []json.RawMessage{
		json.RawMessage(`{"name":"reader","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`),
		json.RawMessage(`{"name":"writer_a","inputSchema":{"type":"object"},"annotations":{"ReadOnlyHint":true}}`),
		json.RawMessage(`{"name":"writer_b","inputSchema":{"type":"object"},"Annotations":{"readOnlyHint":true}}`),
	}, discovery.Visibility{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	list, err := d.ListTools(context.Background(), alice)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, list.Tools); !slices.Equal(got, []string{"reader"}) {
		t.Errorf("read-only ListTools = %v, want [reader]: only an exact readOnlyHint is read", got)
	}
	for _, name := range []string{"writer_a", "writer_b"} {
		wantCode(t, "read-only call to "+name, d.AuthorizeCall(context.Background(), alice, discovery.Call{Tool: name}), discovery.CodeToolNotGranted)
	}
}

// With the default compiler, a schema holding "type" and "Type" cannot be served one
// way and enforced another: the bounded validator reads keywords exactly and refuses
// the unknown keyword "Type", so every call answers tool_validation_unavailable (SPEC
// CALL-2, CALL-4). NewCatalog does not look for twins inside inputSchema, where
// property names like "id" and "ID" are distinct: keywords are the Compiler's to read.
func TestCatalogSchemaKeywordCaseTwinFailsClosed(t *testing.T) {
	ctx := context.Background()
	for _, schema := range []string{
		`{"type":"object","Type":"string"}`,
		`{"Type":"object","type":"string"}`,
		`{"type":"object","properties":{"s":{"type":"string","maxLength":3,"maxlength":1000}}}`,
	} {
		_, d, err := caseCatalog(t, []json.RawMessage{json.RawMessage(`{"name":"t","inputSchema":` + schema + `}`)}, discovery.Visibility{})
		if err != nil {
			t.Fatalf("NewCatalog with inputSchema %s: %v, want accepted (the compiler decides)", schema, err)
		}
		for _, args := range []string{`{}`, `"x"`, `{"s":"abc"}`, `{"s":"abcdef"}`} {
			err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "t", Arguments: json.RawMessage(args)})
			wantCode(t, "call with schema "+schema+" and arguments "+args, err, discovery.CodeValidationUnavailable)
		}
	}
}
