package discovery_test

import (
	"encoding/json"
	"errors"
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

// ParseMetaTools never panics; it answers declarations or a *MetaToolsError, and what
// it accepts is JSON whose declarations encoding/json reads alike.
func FuzzParseMetaTools(f *testing.F) {
	for _, s := range []string{
		metaToolsFile, `{}`, `[]`, `{"m":{"actions":[]}}`, `{"m":{"actions":[{"name":"a"}],"actions":[]}}`,
		`{"m":{"Actions":[{"name":"a"}]}}`, `{"m":{"actions":[{"name":"a","readOnlyHint":1}]}}`, `{"m":{"argument":7,"actions":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		decls, err := discovery.ParseMetaTools(text)
		if err != nil {
			var me *discovery.MetaToolsError
			if !errors.As(err, &me) || !errors.Is(err, discovery.ErrMetaTools) || decls != nil {
				t.Fatalf("ParseMetaTools(%q) = %v, %v; want nil and a *MetaToolsError", text, decls, err)
			}
			return
		}
		var ref map[string]struct {
			Argument string `json:"argument"`
			Actions  []struct {
				Name            string `json:"name"`
				ReadOnlyHint    *bool  `json:"readOnlyHint"`
				DestructiveHint *bool  `json:"destructiveHint"`
			} `json:"actions"`
		}
		if err := json.Unmarshal(text, &ref); err != nil || len(ref) != len(decls) {
			t.Fatalf("ParseMetaTools(%q) accepted %d declarations; encoding/json: %v, %d", text, len(decls), err, len(ref))
		}
		for name, m := range decls {
			r := ref[name]
			if r.Argument != m.Argument || len(r.Actions) != len(m.Actions) {
				t.Fatalf("ParseMetaTools(%q)[%q] = %+v; encoding/json reads %+v", text, name, m, r)
			}
			for k, a := range m.Actions {
				ra := r.Actions[k]
				if ra.Name != a.Name || !sameHint(ra.ReadOnlyHint, a.ReadOnlyHint) || !sameHint(ra.DestructiveHint, a.DestructiveHint) {
					t.Fatalf("ParseMetaTools(%q)[%q] action %d = %+v; encoding/json reads %+v", text, name, k, a, ra)
				}
			}
		}
	})
}

func sameHint(a, b *bool) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
