package grants_test

import (
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// SPEC GRANT-2: Deciding names the row Resolve decides by: the principal's own, else the
// "*" row, else none.
func TestDeciding(t *testing.T) {
	snap := &grants.Snapshot{Revision: 3, Rows: []grants.Row{
		{Principal: "*", Tool: "both", Effect: grants.Allow, Revision: 1},
		{Principal: "alice", Tool: "both", Effect: grants.Deny, Revision: 2},
		{Principal: "*", Tool: "any", Effect: grants.Allow, Revision: 1},
		{Principal: "alice", Tool: "own", Effect: grants.Allow, Scopes: []string{"s"}, Revision: 3},
	}}
	for _, tc := range []struct {
		principal, tool string
		want            string // "principal/revision", "" for none
	}{
		{"alice", "both", "alice/2"},
		{"alice", "any", "*/1"},
		{"alice", "own", "alice/3"},
		{"alice", "none", ""},
		{"*", "both", "*/1"},
	} {
		t.Run(tc.principal+"/"+tc.tool, func(t *testing.T) {
			r, ok := grants.Deciding(snap, tc.principal, tc.tool)
			got := ""
			if ok {
				got = r.Principal + "/" + string(rune('0'+r.Revision))
			}
			if got != tc.want {
				t.Errorf("Deciding(%q, %q) = %q, want %q", tc.principal, tc.tool, got, tc.want)
			}
		})
	}
	if _, ok := grants.Deciding(nil, "alice", "both"); ok {
		t.Error("Deciding(nil) found a row")
	}
}
