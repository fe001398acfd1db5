package metatool_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/metatool"
)

// Parse never panics; it answers declarations or a *metatool.Error, and what it accepts
// is JSON whose declarations encoding/json reads alike.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		declsFile, `{}`, `[]`, `{"m":{"actions":[]}}`, `{"m":{"actions":[{"name":"a"}],"actions":[]}}`,
		`{"m":{"Actions":[{"name":"a"}]}}`, `{"m":{"actions":[{"name":"a","readOnlyHint":1}]}}`, `{"m":{"argument":7,"actions":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		decls, err := metatool.Parse(text)
		if err != nil {
			var me *metatool.Error
			if !errors.As(err, &me) || !errors.Is(err, metatool.ErrRefused) || decls != nil {
				t.Fatalf("Parse(%q) = %v, %v; want nil and a *metatool.Error", text, decls, err)
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
			t.Fatalf("Parse(%q) accepted %d declarations; encoding/json: %v, %d", text, len(decls), err, len(ref))
		}
		for name, m := range decls {
			r := ref[name]
			if r.Argument != m.Argument || len(r.Actions) != len(m.Actions) {
				t.Fatalf("Parse(%q)[%q] = %+v; encoding/json reads %+v", text, name, m, r)
			}
			for k, a := range m.Actions {
				ra := r.Actions[k]
				if ra.Name != a.Name || !sameHint(ra.ReadOnlyHint, a.ReadOnlyHint) || !sameHint(ra.DestructiveHint, a.DestructiveHint) {
					t.Fatalf("Parse(%q)[%q] action %d = %+v; encoding/json reads %+v", text, name, k, a, ra)
				}
			}
		}
	})
}

func sameHint(a, b *bool) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
