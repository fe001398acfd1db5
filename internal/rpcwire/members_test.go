package rpcwire

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// Members keeps a name read once and exactly, and reports one spelled twice or in
// another case (escapes resolved, Unicode folding as encoding/json's) as ambiguous,
// leaving it out.
func TestMembers(t *testing.T) {
	names := []string{"name", "arguments", "_meta"}
	for _, c := range []struct {
		in        string
		m         map[string]string
		ambiguous []string
	}{
		{`{"name":"a","arguments":{"name":"b"},"x":1}`, map[string]string{"name": `"a"`, "arguments": `{"name":"b"}`}, nil},
		{`{"n\u0061me":"a"}`, map[string]string{"name": `"a"`}, nil},
		{`{"name":"a","Name":"b"}`, map[string]string{}, []string{"name"}},
		{`{"Name":"b","name":"a"}`, map[string]string{}, []string{"name"}},
		{`{"NAME":"b"}`, map[string]string{}, []string{"name"}},
		{`{"name":"a","\u004eame":"b","arguments":{}}`, map[string]string{"arguments": `{}`}, []string{"name"}},
		{`{"name":"a","name":"a"}`, map[string]string{}, []string{"name"}},
		{`{"name":"a","_META":{},"arguments":[],"Arguments":[]}`, map[string]string{"name": `"a"`}, []string{"_meta", "arguments"}},
		{"{\"name\":\"a\",\"_meta\":{},\"_\u212aeta\":1}", map[string]string{"name": `"a"`, "_meta": `{}`}, nil}, // Kelvin sign: "_Keta" is no twin of _meta
		{"{\"argument\u017f\":1,\"name\":\"a\"}", map[string]string{"name": `"a"`}, []string{"arguments"}},       // long s folds to s
	} {
		m, ambiguous := Members([]byte(c.in), names)
		got := map[string]string{}
		for k, v := range m {
			got[k] = string(v)
		}
		if !maps.Equal(got, c.m) || !slices.Equal(slices.Sorted(maps.Keys(ambiguous)), slices.Sorted(slices.Values(c.ambiguous))) {
			t.Errorf("Members(%s) = %v, %v, want %v, %v", c.in, got, ambiguous, c.m, c.ambiguous)
		}
		if _, ok := ExactMembers([]byte(c.in), names); ok != (len(c.ambiguous) == 0) {
			t.Errorf("ExactMembers(%s) ok = %v, want %v", c.in, ok, len(c.ambiguous) == 0)
		}
	}
	if m, _ := Members([]byte(`["name"]`), names); m != nil {
		t.Errorf("Members of an array = %v, want nil", m)
	}
}

// Match finds the name a key folds to and says whether it is that name exactly.
func TestMatch(t *testing.T) {
	for _, c := range []struct {
		key, name string
		exact     bool
	}{
		{"method", "method", true}, {"Method", "method", false}, {"METHOD", "method", false},
		{"methods", "", false}, {"", "", false}, {"\u0130d", "", false}, {"\u212a", "", false},
	} {
		if name, exact := Match(c.key, EnvelopeMembers); name != c.name || exact != c.exact {
			t.Errorf("Match(%q) = %q, %v, want %q, %v", c.key, name, exact, c.name, c.exact)
		}
	}
}

// FuzzMembers checks ExactMembers against encoding/json, the decoder that matches
// member names case-insensitively and keeps the last of repeated ones: whenever
// ExactMembers reads an object without doubt, encoding/json reads the same raw value
// for each name (absent ones absent), so no decoder can read another message.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","arguments":{"x":1},"_meta":{}}`,
		`{"name":"a","Name":"b"}`,
		`{"n\u0061me":"a","ARGUMENTS":[]}`,
		`{"argument\u017f":1,"name":"x"}`,
		`{"_meta":1,"_meta":2}`,
		`{"\u212aey":1,"name":"\ud800"}`,
		`[]`, `"x"`, `{}`,
	} {
		f.Add([]byte(s))
	}
	names := []string{"name", "arguments", "_meta"}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, ok := jsonlex.Valid(b); !ok || !json.Valid(b) {
			return
		}
		m, ok := ExactMembers(b, names)
		if !ok {
			return
		}
		var std struct {
			Name      json.RawMessage `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Meta      json.RawMessage `json:"_meta"`
		}
		if err := json.Unmarshal(b, &std); err != nil {
			return // a value encoding/json cannot hold in a RawMessage: nothing read
		}
		for name, got := range map[string]json.RawMessage{"name": std.Name, "arguments": std.Arguments, "_meta": std.Meta} {
			if !bytes.Equal(got, m[name]) {
				t.Errorf("ExactMembers(%q)[%s] = %q, encoding/json reads %q", b, name, m[name], got)
			}
		}
	})
}

// AmbiguousMeta reports a _meta naming the pin or safe mode's token twice or in
// another case, and nothing else (SPEC CONTRACT-2: one pin, read one way).
func TestAmbiguousMeta(t *testing.T) {
	for _, c := range []struct {
		meta string
		want bool
	}{
		{`{"contract_digest":"a","deferredtools/confirmation":"b","x":1,"x":2}`, false},
		{`{"contract_digest":"a","contract_digest":"b"}`, true},
		{`{"contract_digest":"a","Contract_Digest":"b"}`, true},
		{`{"CONTRACT_DIGEST":"a"}`, true},
		{`{"deferredtools/confirmation":"a","deferredtools\/confirmation":"b"}`, true},
		{`{"Deferredtools/Confirmation":"a"}`, true},
		{``, false}, {`5`, false}, {`null`, false}, {`["contract_digest","contract_digest"]`, false},
	} {
		if got := AmbiguousMeta([]byte(c.meta)); got != c.want {
			t.Errorf("AmbiguousMeta(%s) = %v, want %v", c.meta, got, c.want)
		}
	}
}
