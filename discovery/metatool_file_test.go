package discovery_test

import (
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
)

// metaToolsFile declares the fixture's meta tools (metaDecls) as a file does.
const metaToolsFile = `{
  "issue": {"actions": [{"name": "create"}, {"name": "list", "readOnlyHint": true}, {"name": "close", "destructiveHint": true}]},
  "repo": {"argument": "method", "actions": [{"name": "get", "readOnlyHint": true}, {"name": "archive"}]}
}`

func TestParseMetaTools(t *testing.T) {
	decls, err := discovery.ParseMetaTools([]byte(metaToolsFile))
	if err != nil {
		t.Fatalf("ParseMetaTools: %v", err)
	}
	// The file's declarations compile the fixture as metaDecls does.
	a, b := metaCatalog(t, decls), metaCatalog(t, metaDecls())
	for _, name := range []string{"issue", "repo"} {
		ma, _ := a.MetaTool(name)
		mb, _ := b.MetaTool(name)
		if ma.Argument != mb.Argument || len(ma.Actions) != len(mb.Actions) {
			t.Fatalf("%s: file %+v, code %+v", name, ma, mb)
		}
		for k := range ma.Actions {
			x, y := ma.Actions[k], mb.Actions[k]
			if x.Name != y.Name || !sameHint(x.ReadOnlyHint, y.ReadOnlyHint) || !sameHint(x.DestructiveHint, y.DestructiveHint) {
				t.Errorf("%s action %d: file %+v, code %+v", name, k, x, y)
			}
		}
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
		decls, err := discovery.ParseMetaTools([]byte(c.text))
		var me *discovery.MetaToolsError
		if !errors.As(err, &me) || me.Reason != c.reason || !errors.Is(err, discovery.ErrMetaTools) || decls != nil {
			t.Errorf("ParseMetaTools(%s) = %v, %v; want a *MetaToolsError %q", c.text, decls, err, c.reason)
			continue
		}
		if want := "discovery: meta tools refused: " + c.reason; err.Error() != want {
			t.Errorf("ParseMetaTools(%s): %q, want %q", c.text, err, want)
		}
	}
}
