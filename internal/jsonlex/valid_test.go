package jsonlex

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// refDepth is the nesting depth as go-sdk's checkMaxDepth counts it: brackets outside
// strings.
func refDepth(b []byte) int {
	depth, top, in, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case in && esc:
			esc = false
		case in && c == '\\':
			esc = true
		case in && c == '"':
			in = false
		case in:
		case c == '"':
			in = true
		case c == '{' || c == '[':
			depth++
			top = max(top, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return top
}

// members walks the object b (text Valid accepted) as mcpsdk's front does: SkipString
// and SkipValue find the boundaries, Unescape decodes each key.
func members(b []byte, fn func(key string, val []byte) bool) {
	i := SkipSpace(b, 1+SkipSpace(b, 0))
	for i < len(b) && b[i] != '}' {
		kend := SkipString(b, i)
		key := string(Unescape(nil, b[i+1:kend-1]))
		i = SkipSpace(b, SkipSpace(b, kend)+1)
		vend := SkipValue(b, i)
		if !fn(key, b[i:vend]) {
			return
		}
		if i = SkipSpace(b, vend); b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
	}
}

// Valid accepts exactly what encoding/json's Valid accepts (within its depth limit of
// 10,000) and measures depth as go-sdk does, whatever the input; on an object it
// accepted, SkipString, SkipValue and Unescape read the members as encoding/json does.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `"x"`, `-0.5e+7`, `01`, `1.`, `{"a" 1}`,
		`[1,]`, `{"a":1,}`, `{"a" : "x" , "b":[1,{"c":2}] ,"\u0061b":true}`, `{"k":-1.5e3,"m":null}`, "\"\\u00e9\"", `"\x"`, ` true `, `nul`, `[[[]]]`, "\"\xff\"", `{"a":1}{}`, "\"\x01\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		depth, ok := Valid(b)
		if refDepth(b) >= 10000 {
			return // encoding/json refuses these; Valid measures them
		}
		if want := json.Valid(b); ok != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", b, ok, want)
		}
		if ok && depth != refDepth(b) {
			t.Fatalf("Valid(%q) depth %d, want %d", b, depth, refDepth(b))
		}
		var want map[string]json.RawMessage
		if !ok || b[SkipSpace(b, 0)] != '{' || json.Unmarshal(b, &want) != nil {
			return
		}
		got := map[string]json.RawMessage{}
		dup := false
		members(b, func(key string, val []byte) bool {
			_, dup = got[key]
			got[key] = val
			return !dup
		})
		if dup {
			return // encoding/json keeps the last; the front refuses a repeated member
		}
		if len(got) != len(want) {
			t.Fatalf("members(%q) read %d members, encoding/json %d", b, len(got), len(want))
		}
		for k, v := range want {
			var cg, cw bytes.Buffer
			json.Compact(&cg, got[k])
			json.Compact(&cw, v)
			if !bytes.Equal(cg.Bytes(), cw.Bytes()) {
				t.Fatalf("members(%q)[%q] = %q, encoding/json %q", b, k, got[k], v)
			}
		}
	})
}

// Depth beyond encoding/json's own limit is measured, not refused, and costs no
// recursion.
func TestValidDeep(t *testing.T) {
	for _, n := range []int{63, 64, 65, 1000, 1001, 10000, 200000} {
		b := []byte(`{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
		if depth, ok := Valid(b); !ok || depth != n+1 {
			t.Errorf("depth %d: Valid = %d, %v, want %d, true", n, depth, ok, n+1)
		}
		if _, ok := Valid(b[:len(b)-2]); ok {
			t.Errorf("depth %d: Valid accepted an unclosed value", n)
		}
	}
}

// Valid's verdicts on the grammar's edges, each against encoding/json's.
func TestValid(t *testing.T) {
	for _, in := range []string{
		``, ` `, `{}`, ` [ ] `, `{"a":1}`, `{"a":1,}`, `{,}`, `[1,]`, `[,1]`, `{"a"}`, `{"a":}`, `{1:2}`,
		`"\u00e9"`, `"\u00G9"`, `"\x"`, "\"\x1f\"", "\"\xff\xfe\"", `"\ud800"`, `"abc`, `"\`,
		`0`, `-0`, `01`, `-`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`, `.5`, `+1`, `tru`, `true`, `nulls`, `false `,
		`{}{}`, `[]]`, `{"a":[}`, `[{]}`,
	} {
		t.Run(in, func(t *testing.T) {
			if _, got := Valid([]byte(in)); got != json.Valid([]byte(in)) {
				t.Errorf("Valid(%q) = %v, json.Valid = %v", in, got, !got)
			}
		})
	}
}

// Valid allocates nothing for a message nested at most 64 deep.
func TestValidNoAllocations(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w","arguments":{"a":[1,{"b":"\u00e9"}]}}}`)
	if n := testing.AllocsPerRun(100, func() { Valid(msg) }); n != 0 {
		t.Errorf("Valid allocates %v times", n)
	}
}
