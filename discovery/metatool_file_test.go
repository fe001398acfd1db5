package discovery_test

import (
	"testing"

	"github.com/deferredtools/deferredtools/metatool"
)

// metaToolsFile declares the fixture's meta tools (metaDecls) as a file does.
const metaToolsFile = `{
  "issue": {"actions": [{"name": "create"}, {"name": "list", "readOnlyHint": true}, {"name": "close", "destructiveHint": true}]},
  "repo": {"argument": "method", "actions": [{"name": "get", "readOnlyHint": true}, {"name": "archive"}]}
}`

// The declarations metatool.Parse reads from a file compile the fixture as metaDecls
// does. (The file format's own rules are metatool's tests.)
func TestMetaToolsFile(t *testing.T) {
	decls, err := metatool.Parse([]byte(metaToolsFile))
	if err != nil {
		t.Fatalf("metatool.Parse: %v", err)
	}
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
}

func sameHint(a, b *bool) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
