package metatool_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/deferredtools/deferredtools/metatool"
)

// declsFile declares two meta tools as a file does; declsCode is the same in code.
const declsFile = `{
  "issue": {"actions": [{"name": "create"}, {"name": "list", "readOnlyHint": true}, {"name": "close", "destructiveHint": true}]},
  "repo": {"argument": "method", "actions": [{"name": "get", "readOnlyHint": true}, {"name": "archive"}]}
}`

func declsCode() map[string]metatool.Tool {
	yes := func() *bool { b := true; return &b }
	return map[string]metatool.Tool{
		"issue": {Actions: []metatool.Action{{Name: "create"}, {Name: "list", ReadOnlyHint: yes()}, {Name: "close", DestructiveHint: yes()}}},
		"repo":  {Argument: "method", Actions: []metatool.Action{{Name: "get", ReadOnlyHint: yes()}, {Name: "archive"}}},
	}
}

func TestParse(t *testing.T) {
	decls, err := metatool.Parse([]byte(declsFile))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	// reflect.DeepEqual compares the hints' values, not their addresses.
	if want := declsCode(); !reflect.DeepEqual(decls, want) {
		t.Errorf("Parse(declsFile) = %+v, want %+v", decls, want)
	}
	for _, c := range []struct{ text, reason string }{
		{``, "malformed"},
		{`[]`, "malformed"},
		{`{"m":{"actions":[{"name":"a"}]}`, "malformed"},
		{`{"m":{"actions":[{"name":"\ud800"}]}}`, "malformed"},
		{"{\"m\":{\"actions\":[{\"name\":\"\xff\"}]}}", "malformed"},
		{`{}`, "empty"},
		{`{"m":{"actions":[{"name":"a"}]},"m":{"actions":[{"name":"b"}]}}`, "member"},
		{`{"m":{"Actions":[{"name":"a"}]}}`, "member"},
		{`{"m":{"argument":"action"}}`, "member"},
		{`{"m":{"actions":{"name":"a"}}}`, "member"},
		{`{"m":{"actions":[{"name":"a"}],"actions":[{"name":"a"}]}}`, "member"},
		{`{"m":{"argument":null,"actions":[{"name":"a"}]}}`, "member"},
		{`{"m":{"actions":[{"name":"a","readOnlyHint":"true"}]}}`, "member"},
		{`{"m":{"actions":[{"name":"a","readOnlyHint":true,"readOnlyHint":false}]}}`, "member"},
		{`{"m":{"actions":[{"name":"a","title":"A"}]}}`, "member"},
		{`{"m":{"actions":[{"readOnlyHint":true}]}}`, "member"},
		{`{"m":{"actions":["a"]}}`, "member"},
		{`{"m":[]}`, "member"},
	} {
		decls, err := metatool.Parse([]byte(c.text))
		var me *metatool.Error
		if !errors.As(err, &me) || me.Reason != c.reason || !errors.Is(err, metatool.ErrRefused) || decls != nil {
			t.Errorf("Parse(%s) = %v, %v; want a *metatool.Error %q", c.text, decls, err, c.reason)
			continue
		}
		if want := "metatool: declarations refused: " + c.reason; err.Error() != want {
			t.Errorf("Parse(%s): %q, want %q", c.text, err, want)
		}
	}
}
