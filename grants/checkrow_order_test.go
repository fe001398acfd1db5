package grants_test

import (
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// CheckRow's doc: "The rules are checked in that order": principal, tool, effect,
// revision, then scopes. A row breaking several rules is refused for the first.
func TestCheckRowRuleOrder(t *testing.T) {
	broken := grants.Row{Principal: "", Tool: "", Effect: "maybe", Revision: 0, Scopes: []string{"bad scope"}}
	for _, want := range []string{"principal", "tool", "effect", "revision", "scope"} {
		var me *grants.MalformedError
		if err := grants.CheckRow(broken); !errors.As(err, &me) || me.Reason != want {
			t.Fatalf("CheckRow(%+v) = %v, want reason %q", broken, err, want)
		}
		switch want { // mend the rule just reported; the next one decides
		case "principal":
			broken.Principal = "alice"
		case "tool":
			broken.Tool = "t"
		case "effect":
			broken.Effect = grants.Deny
		case "revision":
			broken.Revision = 1
		case "scope":
			broken.Scopes = []string{"ok"}
		}
	}
	if err := grants.CheckRow(broken); err != nil {
		t.Errorf("CheckRow of the mended row = %v", err)
	}
}
