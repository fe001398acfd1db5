package safemode_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/safemode"
)

// toolDef returns a tool definition with the given name and description.
func toolDef(name, description string) json.RawMessage {
	b, err := json.Marshal(map[string]any{"name": name, "description": description, "inputSchema": map[string]any{"type": "object"}})
	if err != nil {
		panic(err)
	}
	return b
}

// DefaultPreview: the name and the description's first sentence, then the sorted
// argument names, at most 32 of at most 64 printable bytes, the others counted; never
// a value.
func TestDefaultPreview(t *testing.T) {
	long := strings.Repeat("x", 65)
	for _, tc := range []struct {
		desc, args, want string
	}{
		{"Delete it. Then more.", `{"b":1,"a":"v"}`, "t: Delete it.\nArguments given: a, b"},
		{"Version 1.2 is gone! Really", `{}`, "t: Version 1.2 is gone!\nArguments given: none"},
		{"", ``, "t\nArguments given: none"},
		{"Multi\n  line\tdescription", `{"` + long + `":1,"ok":2}`, "t: Multi line description\nArguments given: ok, and 1 more"},
		{"No stop", `{"a\u0007":1}`, "t: No stop\nArguments given: and 1 more"},
		{"Bad \xffbytes. x", "{\"a\xffb\":1,\"ok\":2}", "t: Bad bytes.\nArguments given: ok, and 1 more"}, // a name not UTF-8 is counted
	} {
		def := toolDef("t", tc.desc)
		if got := safemode.DefaultPreview(def, json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("DefaultPreview(%q, %s) = %q, want %q", tc.desc, tc.args, got, tc.want)
		}
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"n%02d":1`, i)
	}
	b.WriteString("}")
	got := safemode.DefaultPreview(toolDef("t", strings.Repeat("word ", 200)), json.RawMessage(b.String()))
	if !strings.HasSuffix(got, ", and 8 more") || len(strings.SplitN(got, "\n", 2)[0]) > len("t: ")+300 {
		t.Errorf("DefaultPreview with 40 names and a long sentence = %q", got)
	}
}

// DefaultPreview is exported for hosts' own Preview functions, which may hand it any
// bytes: a definition or arguments that are not JSON are read as holding nothing, and
// never panic (a truncated object did: tooldef's readers take valid JSON only).
func TestDefaultPreviewMalformed(t *testing.T) {
	def := json.RawMessage(`{"name":"t","description":"Delete it.","inputSchema":{"type":"object"}}`)
	for _, c := range []struct{ def, args, want string }{
		{string(def), `{"a`, "t: Delete it.\nArguments given: none"},
		{string(def), `{`, "t: Delete it.\nArguments given: none"},
		{string(def), `{"a":`, "t: Delete it.\nArguments given: none"},
		{string(def), `{"a":1,`, "t: Delete it.\nArguments given: none"},
		{string(def), `{"a":[`, "t: Delete it.\nArguments given: none"},
		{string(def), `{"a":1}{"b":2}`, "t: Delete it.\nArguments given: none"},
		{string(def), `[1]`, "t: Delete it.\nArguments given: none"},
		{`{"name":"t","description":"x`, `{"a":1}`, "\nArguments given: a"},
		{`{"name":`, `{"a":1}`, "\nArguments given: a"},
		{`{`, `{}`, "\nArguments given: none"},
		{`junk`, `{}`, "\nArguments given: none"},
	} {
		var got string
		func() {
			defer func() {
				if r := recover(); r != nil {
					got = fmt.Sprint("panic: ", r)
				}
			}()
			got = safemode.DefaultPreview(json.RawMessage(c.def), json.RawMessage(c.args))
		}()
		if got != c.want {
			t.Errorf("DefaultPreview(%q, %q) = %q, want %q", c.def, c.args, got, c.want)
		}
	}
}

// DefaultPreview never panics, whatever bytes it is given, and answers two lines: the
// tool, then the arguments given.
func FuzzDefaultPreview(f *testing.F) {
	def := `{"name":"t","description":"Delete it. More.","inputSchema":{"type":"object"}}`
	for _, s := range [][2]string{
		{def, `{"b":"secret","a":1}`}, {def, `{"a`}, {`{"name":"t","description":"x`, `{}`},
		{def, `{"` + strings.Repeat("n", 70) + `":1}`}, {`junk`, `[`}, {def, `{"a\u0007":"v"}`}, {def, "{\"a\xff\":1}"},
		{`{"name":"t\nArguments given: none","description":"d\nx"}`, `{}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, def, args []byte) {
		got := safemode.DefaultPreview(def, args)
		if i := strings.LastIndexByte(got, '\n'); i < 0 || !strings.HasPrefix(got[i+1:], "Arguments given: ") {
			t.Fatalf("DefaultPreview(%q, %q) = %q: no line of arguments last", def, args, got)
		}
		if n := strings.Count(got, "\n"); n != 1 {
			t.Fatalf("DefaultPreview(%q, %q) = %q: %d lines, want 2", def, args, got, n+1)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("DefaultPreview(%q, %q) = %q: not UTF-8", def, args, got)
		}
	})
}
