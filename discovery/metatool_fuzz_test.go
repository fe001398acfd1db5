package discovery_test

import (
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
)

// SPEC CALL-1, CALL-8: the action gate reads the action argument as encoding/json
// does (escapes decoded, the name compared exactly) and refuses whenever that reading
// is not one string: duplicates, other types, text that is not one JSON object.
func FuzzReadAction(f *testing.F) {
	for _, s := range []string{
		`{"action":"list"}`, `{"action":"list","action":"list"}`, `{"\u0061ction":"li\u0073t"}`,
		`{"Action":"list"}`, `{"action":7}`, `{"action":null}`, ` {"x":[{"action":"a"}],"action":"b"} `,
		`{"action":"list"`, `[]`, `"action"`, `{"action":"\ud800"}`, `{"action":"a\u0000"}`, `{"action":"é"}`,
	} {
		f.Add([]byte(s), "action")
	}
	f.Add([]byte(`{"method":"get"}`), "method")
	f.Fuzz(func(t *testing.T, args []byte, arg string) {
		got, ok := discovery.ReadAction(args, arg)
		want, wantOK := refAction(args, arg)
		if ok != wantOK || got != want {
			t.Fatalf("ReadAction(%q, %q) = %q, %v; encoding/json reads %q, %v", args, arg, got, ok, want, wantOK)
		}
	})
}
