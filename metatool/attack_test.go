package metatool_test

// Attacks on meta tool declarations from outside: hostile declaration files for Parse,
// and hostile action names for discovery.NewCatalog, against metatool's doc.

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/metatool"
)

// Parse's doc: "an unknown, repeated or mistyped member refuses the text with an
// *Error". A member repeated under another spelling of the same name (a JSON escape)
// is repeated: at the top level, in a declaration and in an action. Breaks if
// repetition were checked on the raw key bytes.
func TestAttackParseRepeatedByEscape(t *testing.T) {
	for _, text := range []string{
		`{"m":{"actions":[{"name":"a"}]},"\u006d":{"actions":[{"name":"b"}]}}`,
		`{"m":{"actions":[{"name":"a"}],"\u0061ctions":[{"name":"b"}]}}`,
		`{"m":{"argument":"op","argum\u0065nt":"action","actions":[{"name":"a"}]}}`,
		`{"m":{"actions":[{"name":"a","n\u0061me":"b"}]}}`,
		`{"m":{"actions":[{"name":"a","readOnlyHint":true,"readOnly\u0048int":false}]}}`,
	} {
		decls, err := metatool.Parse([]byte(text))
		var me *metatool.Error
		if !errors.As(err, &me) || me.Reason != "member" || decls != nil {
			t.Errorf("Parse(%s) = %v, %v; want a *metatool.Error \"member\"", text, decls, err)
		}
	}
	// An escaped spelling alone is the member itself.
	decls, err := metatool.Parse([]byte(`{"\u006d":{"\u0061rgument":"op","actions":[{"n\u0061me":"\u0061"}]}}`))
	if err != nil || decls["m"].Argument != "op" || len(decls["m"].Actions) != 1 || decls["m"].Actions[0].Name != "a" {
		t.Errorf("Parse(escaped names) = %+v, %v; want m with argument op and action a", decls, err)
	}
}

// Parse's doc: text that is not in the format is refused with an *Error, never a
// crash: a member value nested a million levels deep (valid JSON, 2 MB) is refused
// as "member". Breaks on any recursive walk of the value, which a deep enough nesting
// turns into a fatal stack overflow (its cost: BenchmarkParseDeepValue).
func TestAttackParseDeepValue(t *testing.T) {
	const depth = 1 << 20
	for _, wrap := range [][2]string{
		{`{"m":{"actions":[{"name":"a"}],"x":`, `}}`},
		{`{"m":{"actions":`, `}}`},
		{`{"m":{"actions":[{"name":"a","readOnlyHint":`, `}]}}`},
	} {
		text := wrap[0] + strings.Repeat("[", depth) + strings.Repeat("]", depth) + wrap[1]
		decls, err := metatool.Parse([]byte(text))
		var me *metatool.Error
		if !errors.As(err, &me) || me.Reason != "member" || decls != nil {
			t.Errorf("Parse(%s...) = %v, %v; want a *metatool.Error \"member\"", wrap[0], decls, err)
		}
	}
}

// Action.Name's doc: "1 to 64 characters from A-Z, a-z, 0-9, '_' and '-' (no '.')".
// Declarations that Parse accepts from a file but name actions outside that rule
// refuse the catalog (discovery.NewCatalog, "meta tool: actions"), and one of exactly
// 64 characters is accepted. Breaks on an off-by-one bound or a rule read as Unicode
// letters.
func TestAttackActionNamesFromAFile(t *testing.T) {
	long64 := strings.Repeat("a", 64)
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{long64, true}, {"a-b_C9", true},
		{long64 + "a", false}, {"", false}, {"é", false}, {"a b", false}, {"../x", false},
		{"a.b", false}, {"a\u0000", false}, {"ａ", false}, {"a\n", false},
	} {
		quoted, _ := json.Marshal(c.name)
		decls, err := metatool.Parse([]byte(`{"m":{"actions":[{"name":` + string(quoted) + `},{"name":"other"}]}}`))
		if err != nil {
			t.Fatalf("Parse(action %q) = %v", c.name, err)
		}
		def, _ := json.Marshal(map[string]any{"name": "m", "description": "A meta tool.", "inputSchema": map[string]any{
			"type": "object", "required": []any{"action"},
			"properties": map[string]any{"action": map[string]any{"type": "string", "enum": []any{c.name, "other"}}},
		}})
		_, err = discovery.NewCatalog([]json.RawMessage{def}, &discovery.CatalogOptions{MetaTools: decls})
		var ce *discovery.CatalogError
		switch {
		case c.ok && err != nil:
			t.Errorf("action %q: NewCatalog = %v, want it accepted", c.name, err)
		case !c.ok && (!errors.As(err, &ce) || ce.Reason != "meta tool: actions"):
			t.Errorf("action %q: NewCatalog = %v, want a *CatalogError \"meta tool: actions\"", c.name, err)
		case !c.ok && strings.Contains(err.Error(), c.name) && c.name != "":
			t.Errorf("action %q: error %q quotes the action", c.name, err)
		}
	}
}

// BenchmarkParseDeepValue measures Parse refusing a member value nested a million
// levels deep (2 MB): go test -run '^$' -bench ParseDeepValue ./metatool
func BenchmarkParseDeepValue(b *testing.B) {
	const depth = 1 << 20
	text := []byte(`{"m":{"actions":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}`)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := metatool.Parse(text); err == nil {
			b.Fatal("Parse accepted a deep value")
		}
	}
}
