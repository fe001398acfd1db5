package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// Attack round 3 on argument values (SPEC CALL-3, CALL-5, CALL-8) and on the canonical
// contract (CONTRACT-1..3), from outside: the real example binary serving a catalog
// written for the attack, and discovery.NewCatalog's limits.

// valuesCatalog is the attack's catalog: one tool with a property per attack, and one
// whose definition holds the JCS edge cases (member names ordered differently by UTF-16
// and UTF-8, escapes, number spellings).
const valuesCatalog = `[
{"name":"values_tool","description":"Takes values of every kind.","inputSchema":{"type":"object","additionalProperties":false,"properties":{
  "s3":{"type":"string","maxLength":3},
  "m3":{"type":"string","minLength":3},
  "b":{"type":"string"},
  "n":{"type":"integer","maximum":9007199254740992},
  "i":{"type":"integer"},
  "x":{"type":"number","minimum":0},
  "xe":{"type":"number","exclusiveMinimum":0},
  "obj":{"type":"object"},
  "arr":{"type":"array"}}}},
{"name":"jcs_tool","title":"J\u00c7S","description":"caf\u00e9 \/ tab\there \u001f \u007f \u2028 \"q\" \\","inputSchema":{"type":"object",
  "properties":{"\ue000":{"type":"string"},"😀":{"type":"string"},"B":{"type":"number","maximum":1E21,"minimum":-0.0},"_":{"type":"number","maximum":0.000001},
   "a":{"type":"number","maximum":1e-7,"minimum":-123456789012345678901234},"€":{"type":"number","maximum":4.50,"minimum":2e-3},"z":{"type":"integer","maximum":1.0e2,"minimum":333333333.33333329}}},
 "annotations":{"readOnlyHint":true,"title":"\u0041nnotated"},"_meta":{"z":[true,false,null],"a":{}}}
]`

// startValues starts the example over stdio serving valuesCatalog, every tool granted to
// everyone, and returns the session and the catalog file's path.
func startValues(t *testing.T) (*lineSession, string) {
	t.Helper()
	dir := t.TempDir()
	catalog := filepath.Join(dir, "catalog.json")
	if err := os.WriteFile(catalog, []byte(valuesCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	rows := writeJSON(t, dir, "grants.json", []map[string]any{
		{"principal": "*", "tool": "values_tool", "scopes": []string{}, "effect": "allow", "revision": 1},
		{"principal": "*", "tool": "jcs_tool", "scopes": []string{}, "effect": "allow", "revision": 1},
	})
	return startLines(t, "-catalog", catalog, "-grants", rows), catalog
}

func valuesCall(id, args string) string { return callLine(id, "values_tool", args) }

// SPEC CALL-3, CALL-5 from the wire: minLength and maxLength count code points, whatever
// the spelling (raw UTF-8 or escaped surrogate pairs) and whatever UTF-16 or bytes
// count; a combining mark is a code point of its own (no grapheme counting); a lone
// surrogate escape is no character at all: invalid arguments. The 262,144-unit bound
// (UTF-16 units of every string, keys included) holds exactly at the bound with
// astral characters (2 units each) and answers tool_validation_unavailable one unit
// over. Breaks when lengths count bytes or UTF-16 units, or graphemes, or when the
// bound counts code points.
func TestAttack3StringLengths(t *testing.T) {
	s, _ := startValues(t)
	emoji, pair, astral := "😀", `\ud83d\ude00`, "𐀀" // U+1F600 raw, escaped; U+10000
	arg := func(k, v string) string { return `{"` + k + `":"` + v + `"}` }
	// {"b":"<emoji x 131071>a"}: 1 + 262,142 + 1 units = 262,144; one more "a" is over.
	atBound := arg("b", repeat(emoji, 131071)+"a")
	atBoundEscaped := arg("b", repeat(pair, 131071)+"a")
	s.check([]attackCase{
		{name: "3 emoji raw", line: valuesCall("l1", arg("s3", repeat(emoji, 3)))},
		{name: "4 emoji raw", line: valuesCall("l2", arg("s3", repeat(emoji, 4))), want: "invalid_arguments", keyword: "maxLength"},
		{name: "3 escaped pairs", line: valuesCall("l3", arg("s3", repeat(pair, 3)))},
		{name: "4 escaped pairs", line: valuesCall("l4", arg("s3", repeat(pair, 4))), want: "invalid_arguments", keyword: "maxLength"},
		{name: "3 U+10000", line: valuesCall("l5", arg("s3", repeat(astral, 3)))},
		{name: "4 U+10000 escaped", line: valuesCall("l6", arg("s3", repeat(`\ud800\udc00`, 4))), want: "invalid_arguments", keyword: "maxLength"},
		{name: "e, combining acute, e", line: valuesCall("l7", arg("s3", `e\u0301e`))},
		{name: "two e with combining acute", line: valuesCall("l8", arg("s3", "e\u0301e\u0301")), want: "invalid_arguments", keyword: "maxLength"},
		{name: "lone high surrogate", line: valuesCall("l9", arg("s3", `\ud83d`)), want: "invalid_arguments"},
		{name: "lone low surrogate", line: valuesCall("l10", arg("s3", `\ude00`)), want: "invalid_arguments"},
		{name: "minLength: 2 emoji", line: valuesCall("m1", arg("m3", repeat(emoji, 2))), want: "invalid_arguments", keyword: "minLength"},
		{name: "minLength: 3 emoji", line: valuesCall("m2", arg("m3", repeat(pair, 3)))},
		{name: "minLength: e and a combining mark", line: valuesCall("m3", arg("m3", `e\u0301`)), want: "invalid_arguments", keyword: "minLength"},
		{name: "262,144 units", line: valuesCall("u1", atBound)},
		{name: "262,144 units, escaped", line: valuesCall("u2", atBoundEscaped)},
		{name: "262,145 units", line: valuesCall("u3", arg("b", repeat(emoji, 131071)+"aa")), want: "tool_validation_unavailable"},
		{name: "262,145 units, an astral one last", line: valuesCall("u4", arg("b", repeat(pair, 131072))+``), want: "tool_validation_unavailable"},
	})
}

// SPEC CALL-8 from the wire: numbers keep their JSON value: 9007199254740993 is over a
// maximum of 9007199254740992 (a float64 reads them as one number), 1e999999 is over
// it without a big-number blow-up, -0 is an integer not below 0, 1.0 is an integer,
// 1e-999999 is above an exclusive minimum of 0 (a float64 underflows it to 0), -0 is
// not. Duplicate keys are invalid at any depth, inside arrays, and when one spelling
// escapes the other (also a surrogate pair against the raw character); keys differing
// in case are two keys. Breaks when numbers are decoded to float64 or duplicate keys
// resolved by a map.
func TestAttack3NumbersAndDuplicates(t *testing.T) {
	s, _ := startValues(t)
	s.check([]attackCase{
		{name: "2^53", line: valuesCall("n1", `{"n":9007199254740992}`)},
		{name: "2^53+1", line: valuesCall("n2", `{"n":9007199254740993}`), want: "invalid_arguments", keyword: "maximum"},
		{name: "2^53+1 as 9007199254740993.0", line: valuesCall("n3", `{"n":9007199254740993.0}`), want: "invalid_arguments", keyword: "maximum"},
		{name: "1e999999", line: valuesCall("n4", `{"n":1e999999}`), want: "invalid_arguments", keyword: "maximum"},
		{name: "-1e999999", line: valuesCall("n5", `{"n":-1e999999}`)},
		{name: "-0 integer", line: valuesCall("n6", `{"i":-0}`)},
		{name: "1.0 integer", line: valuesCall("n7", `{"i":1.0}`)},
		{name: "1.5 integer", line: valuesCall("n8", `{"i":1.5}`), want: "invalid_arguments", keyword: "type"},
		{name: "-0 minimum 0", line: valuesCall("n9", `{"x":-0}`)},
		{name: "-0.0 minimum 0", line: valuesCall("n10", `{"x":-0.0}`)},
		{name: "-1e-999999 minimum 0", line: valuesCall("n11", `{"x":-1e-999999}`), want: "invalid_arguments", keyword: "minimum"},
		{name: "1e-999999 exclusiveMinimum 0", line: valuesCall("n12", `{"xe":1e-999999}`)},
		{name: "-0 exclusiveMinimum 0", line: valuesCall("n13", `{"xe":-0}`), want: "invalid_arguments", keyword: "exclusiveMinimum"},
		{name: "duplicate at depth 3", line: valuesCall("d1", `{"obj":{"a":{"k":1,"k":2}}}`), want: "invalid_arguments"},
		{name: "duplicate in an array", line: valuesCall("d2", `{"arr":[1,{"k":1,"k":1}]}`), want: "invalid_arguments"},
		{name: "duplicate, escaped", line: valuesCall("d3", `{"obj":{"a":1,"\u0061":2}}`), want: "invalid_arguments"},
		{name: "duplicate, escaped surrogate pair", line: valuesCall("d4", `{"obj":{"😀":1,"\ud83d\ude00":2}}`), want: "invalid_arguments"},
		{name: "duplicate, same value", line: valuesCall("d5", `{"i":1,"i":1}`), want: "invalid_arguments"},
		{name: "duplicate, 30 deep", line: valuesCall("d6", `{"obj":`+repeat(`{"a":`, 28)+`{"k":1,"\u006b":1}`+repeat("}", 28)+`}`), want: "invalid_arguments"},
		{name: "keys differing in case", line: valuesCall("d7", `{"obj":{"a":1,"A":2}}`)},
	})
}

// SPEC CONTRACT-1, CONTRACT-2, DISC-3 from the wire: the contract digest tools/list
// reports equals the discover method's and the discovery tool's, and equals
// "sha256:" + SHA-256 over the tools' SHA-256 digests of their RFC 8785 forms in name
// order, computed here by an independent JCS (attack3_jcs_test.go: UTF-16 member
// order, which puts U+1F600 before U+E000 where UTF-8 byte order does not; ECMAScript
// number forms 1e+21, 0.000001, 1e-7, -1.2345678901234568e+23, 4.5, 0.002, 100,
// 333333333.3333333, and 0 for -0.0; only the escapes RFC 8785 allows). discover serves
// each tool as exactly those canonical bytes. Breaks when members are sorted by bytes,
// numbers written as Go writes them, or the digest is taken over anything else.
func TestAttack3ContractDigestIndependentJCS(t *testing.T) {
	jcsSelfCheck(t)
	s, _ := startValues(t)
	var defs []json.RawMessage
	if err := json.Unmarshal([]byte(valuesCatalog), &defs); err != nil {
		t.Fatal(err)
	}
	type named struct {
		name  string
		canon []byte
	}
	var tools []named
	for _, d := range defs {
		v, err := jcsParse(d)
		if err != nil {
			t.Fatal(err)
		}
		var n struct{ Name string }
		json.Unmarshal(d, &n)
		tools = append(tools, named{n.Name, jcs(v)})
	}
	slices.SortFunc(tools, func(a, b named) int { return strings.Compare(a.name, b.name) })
	h := sha256.New()
	for _, tl := range tools {
		sum := sha256.Sum256(tl.canon)
		h.Write(sum[:])
	}
	want := "sha256:" + hex.EncodeToString(h.Sum(nil))

	var list struct {
		Result struct {
			Meta struct {
				Digest string `json:"contract_digest"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal(s.roundTrip(`{"jsonrpc":"2.0","id":"l","method":"tools/list"}`), &list); err != nil {
		t.Fatal(err)
	}
	var page struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
			Meta  struct {
				Digest string `json:"contract_digest"`
			} `json:"_meta"`
		} `json:"result"`
	}
	b := s.roundTrip(discLine("d", `{"query":"values every kind caf annotated"}`))
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatal(err)
	}
	if list.Result.Meta.Digest != want || page.Result.Meta.Digest != want {
		t.Errorf("contract digest: tools/list %s, discover %s, want %s (independent JCS)", list.Result.Meta.Digest, page.Result.Meta.Digest, want)
	}
	if len(page.Result.Tools) != len(tools) {
		t.Fatalf("discover served %d tools, want %d: %.300s", len(page.Result.Tools), len(tools), b)
	}
	for _, served := range page.Result.Tools {
		var n struct{ Name string }
		json.Unmarshal(served, &n)
		i := slices.IndexFunc(tools, func(x named) bool { return x.name == n.Name })
		if i < 0 || !bytes_equal(served, tools[i].canon) {
			t.Errorf("%s served as\n%s\nwant its RFC 8785 form\n%s", n.Name, served, tools[i].canon)
		}
	}
	tool := s.roundTrip(callLine("st", "search_tools", `{"query":"values every kind"}`))
	if !strings.Contains(string(tool), want) {
		t.Errorf("the discovery tool's page does not carry the contract digest %s: %.300s", want, tool)
	}
}

func bytes_equal(a, b []byte) bool { return string(a) == string(b) }

// jcsSelfCheck runs the independent JCS on RFC 8785's own example (section 3.2.3's
// input and output, and Appendix B's numbers), so that a wrong oracle cannot pass.
func jcsSelfCheck(t *testing.T) {
	t.Helper()
	in := `{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	v, err := jcsParse([]byte(in))
	if err != nil || string(jcs(v)) != want {
		t.Fatalf("the test's JCS: %s (%v)\nwant %s", jcs(v), err, want)
	}
	sorting := `{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`
	order := []string{"\r", "1", "\u0080", "ö", "€", "😀", "\ufb33"} // RFC 8785 section 3.2.3
	v, _ = jcsParse([]byte(sorting))
	var got map[string]any
	out := jcs(v)
	json.Unmarshal(out, &got)
	pos := -1
	for _, k := range order {
		p := strings.Index(string(out), `"`+strings.ReplaceAll(k, "\r", `\r`)+`":`)
		if p <= pos {
			t.Fatalf("the test's JCS orders members wrongly: %s", out)
		}
		pos = p
	}
	for _, c := range []struct {
		in   float64
		want string
	}{{1e21, "1e+21"}, {1e20, "100000000000000000000"}, {1e-7, "1e-7"}, {0.000001, "0.000001"}, {-5e-324, "-5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"}, {123.456, "123.456"}} {
		if got := esNumber(c.in); got != c.want {
			t.Fatalf("the test's JCS writes %v as %s, want %s", c.in, got, c.want)
		}
	}
}

// SPEC CONTRACT-3 through the public API: discovery.NewCatalog measures the canonical
// form (here measured independently: JCS bytes, every JSON value a node, nesting
// depth) and refuses a catalog one over each configured limit with a *CatalogError
// ("limit: bytes", "limit: nodes", "limit: depth"), accepting it exactly at the limit.
// The example refuses a tool nested one level past the default depth at start (exit 1,
// naming the limit, quoting nothing of the tool) and serves one at the default. Breaks
// on an off-by-one, or a limit measured on the text as given (the catalog here is
// spelled with white space, escapes and long number forms that canonicalisation
// shrinks).
func TestAttack3CatalogLimits(t *testing.T) {
	var defs []json.RawMessage
	if err := json.Unmarshal([]byte(valuesCatalog), &defs); err != nil {
		t.Fatal(err)
	}
	bytesTotal, nodes, depth := 0, 0, 0
	for _, d := range defs {
		v, _ := jcsParse(d)
		bytesTotal += len(jcs(v))
		n, dp := jcsMeasure(v)
		nodes += n
		depth = max(depth, dp)
	}
	for _, c := range []struct {
		name   string
		limits schemaguard.Limits
		reason string
	}{
		{"bytes at the limit", schemaguard.Limits{MaxBytes: bytesTotal}, ""},
		{"bytes one over", schemaguard.Limits{MaxBytes: bytesTotal - 1}, "limit: bytes"},
		{"nodes at the limit", schemaguard.Limits{MaxNodes: nodes}, ""},
		{"nodes one over", schemaguard.Limits{MaxNodes: nodes - 1}, "limit: nodes"},
		{"depth at the limit", schemaguard.Limits{MaxDepth: depth}, ""},
		{"depth one over", schemaguard.Limits{MaxDepth: depth - 1}, "limit: depth"},
	} {
		_, err := discovery.NewCatalog(defs, &discovery.CatalogOptions{Limits: c.limits})
		var ce *discovery.CatalogError
		switch {
		case c.reason == "" && err != nil:
			t.Errorf("%s (%d bytes, %d nodes, depth %d): %v, want the catalog", c.name, bytesTotal, nodes, depth, err)
		case c.reason != "" && (!errors.As(err, &ce) || ce.Reason != c.reason || ce.Index != -1):
			t.Errorf("%s (%d bytes, %d nodes, depth %d): %v, want a CatalogError %q", c.name, bytesTotal, nodes, depth, err, c.reason)
		}
	}
	// The binary at the default depth (64): a tool nesting arrays in its _meta to depth
	// 64 starts; one more level is refused at start.
	for _, extra := range []int{0, 1} {
		levels := schemaguard.DefaultMaxDepth - 2 + extra // the tool object and _meta are two
		tool := `{"name":"deep_tool","description":"Deep.","inputSchema":{"type":"object"},"_meta":{"x":` + repeat(`[`, levels) + `"` + hostileCanary + `"` + repeat(`]`, levels) + `}}`
		path := filepath.Join(t.TempDir(), "catalog.json")
		os.WriteFile(path, []byte("["+tool+"]"), 0o600)
		cmd := command(t, true, "-catalog", path)
		cmd.Stdin = strings.NewReader("")
		out, _ := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		switch {
		case extra == 0 && code != 0:
			t.Errorf("a tool at depth 64: exit %d:\n%s", code, out)
		case extra == 1 && (code != 1 || !strings.Contains(string(out), "depth") || strings.Contains(string(out), hostileCanary)):
			t.Errorf("a tool at depth 65: exit %d:\n%s\nwant exit 1 naming the depth limit and quoting nothing", code, out)
		}
	}
	_ = context.Background
}
