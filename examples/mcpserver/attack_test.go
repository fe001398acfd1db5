package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// Attacks on the real example from outside, over stdio and HTTP, beyond what
// hostile_test.go sends: each case names the promise it checks and what would break it.

// attackCase is one line and the answer it must get: want is an error code word, ""
// for a result, "invalid_arguments" for an isError result naming keyword ("" for the
// bare "invalid arguments" text), "tool_text:X" for an isError result whose text is X.
type attackCase struct {
	name, line, want, keyword string
}

// check sends each case over s and checks its answer.
func (s *lineSession) check(cases []attackCase) {
	t := s.t
	t.Helper()
	for _, c := range cases {
		b := s.roundTrip(c.line)
		a := decodeAnswer(t, c.name, b)
		switch text, isText := strings.CutPrefix(c.want, "tool_text:"); {
		case c.want == "":
			if a.Error != nil || a.Result == nil || a.Result.IsError {
				t.Errorf("%s: %.300s, want a result", c.name, b)
			}
		case isText:
			if a.Result == nil || !a.Result.IsError || len(a.Result.Content) != 1 || a.Result.Content[0].Text != text {
				t.Errorf("%s: %.300s, want an isError result saying %q", c.name, b, text)
			}
		case c.want == "invalid_arguments":
			want := "invalid arguments"
			if c.keyword != "" {
				want = `invalid arguments: keyword "` + c.keyword + `" failed at schema location "`
			}
			if a.Result == nil || !a.Result.IsError || len(a.Result.Content) != 1 || !strings.HasPrefix(a.Result.Content[0].Text, want) {
				t.Errorf("%s: %.300s, want an isError result %q", c.name, b, want)
			}
		default:
			if a.Error == nil || a.Error.Message != c.want {
				t.Errorf("%s: %.300s, want the error %s", c.name, b, c.want)
			}
		}
	}
}

func discLine(id, params string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"multillm.tools.discover","params":` + params + `}`
}

func callLine(id, name, args string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

// SPEC DISC-2, ERR-1: limit is "a JSON number with an integral value" 1..16, whatever
// its spelling: 16.0, 1.6e1, 160E-1 and 16 written with 20,000 zeros and e-20000 are
// 16; -0, 0.0, 17.0, 1e400 and values a float64 rounds onto an integer
// (1.00000000000000001, 16.000000000000001) are not in range or not integral. Breaks
// when limit is read as a float64 (the rounding cases pass) or when a spelling's
// exponent is capped instead of its value (the 20,000-zero 16 was refused).
func TestAttackDiscoverLimitSpellings(t *testing.T) {
	s := startLines(t)
	zeros := repeat("0", 20000)
	ok := []string{`16.0`, `1.6e1`, `160E-1`, `1.0`, `16` + zeros + `e-20000`, `0.` + zeros + `16e20002`}
	bad := []string{`-0`, `0.0`, `0`, `17.0`, `1e400`, `1e-400`, `1.00000000000000001`, `16.000000000000001`,
		`-1`, `"2"`, `null`, `true`, `[1]`, `{"n":1}`, `1` + zeros + `e-19998`}
	var cases []attackCase
	for i, l := range ok {
		cases = append(cases, attackCase{name: "limit " + l[:min(len(l), 12)], line: discLine(fmt.Sprint("ok", i), `{"query":"model","limit":`+l+`}`)})
	}
	for i, l := range bad {
		cases = append(cases, attackCase{name: "limit " + l[:min(len(l), 12)], line: discLine(fmt.Sprint("bad", i), `{"query":"model","limit":`+l+`}`), want: "invalid_params"})
	}
	s.check(cases)
}

// SPEC DISC-1, DISC-2, DISC-6: the query has no control character of category Cc, C1 ones
// included (U+0085, U+009F, DEL), escaped or raw; NBSP is no control character; the
// length counts code points also for escaped surrogate pairs; a lone surrogate (no
// single meaning) and members named twice, in another case or of the wrong type are
// invalid params. Breaks when only C0 characters are checked, when length counts
// UTF-16 units of escapes, or when _meta is skipped without its duplicates being seen.
func TestAttackDiscoverQueryAndMembers(t *testing.T) {
	s := startLines(t)
	pair := `\ud83d\ude00`
	s.check([]attackCase{
		{name: "U+0085 escaped", line: discLine("c1", `{"query":"model\u0085`+hostileCanary+`"}`), want: "invalid_params"},
		{name: "U+0085 raw", line: discLine("c2", `{"query":"model`+"\u0085"+hostileCanary+`"}`), want: "invalid_params"},
		{name: "U+009F escaped", line: discLine("c3", `{"query":"model\u009f"}`), want: "invalid_params"},
		{name: "DEL raw", line: discLine("c4", `{"query":"model`+"\x7f"+`"}`), want: "invalid_params"},
		{name: "U+001F escaped", line: discLine("c5", `{"query":"model\u001f"}`), want: "invalid_params"},
		{name: "NBSP", line: discLine("c6", `{"query":"model\u00a0search"}`)},
		{name: "500 escaped pairs", line: discLine("c7", `{"query":"`+repeat(pair, 500)+`"}`)},
		{name: "501 escaped pairs", line: discLine("c8", `{"query":"`+repeat(pair, 501)+`"}`), want: "invalid_params"},
		{name: "lone surrogate", line: discLine("c9", `{"query":"model\ud800"}`), want: "invalid_params"},
		{name: "reversed pair", line: discLine("c10", `{"query":"model\ude00\ud83d"}`), want: "invalid_params"},
		{name: "_meta twice", line: discLine("m1", `{"query":"model","_meta":{},"_meta":{"x":"`+hostileCanary+`"}}`), want: "invalid_params"},
		{name: "_Meta twin", line: discLine("m2", `{"query":"model","_meta":{},"_Meta":{}}`), want: "invalid_params"},
		{name: "Query", line: discLine("m3", `{"Query":"model"}`), want: "invalid_params"},
		{name: "query and Query", line: discLine("m4", `{"query":"model","Query":"`+hostileCanary+`"}`), want: "invalid_params"},
		{name: "escaped query twice", line: discLine("m5", `{"query":"model","\u0071uery":"`+hostileCanary+`"}`), want: "invalid_params"},
		{name: "query null", line: discLine("m6", `{"query":null}`), want: "invalid_params"},
		{name: "cursor null", line: discLine("m7", `{"query":"model","cursor":null}`), want: "invalid_params"},
		{name: "cursor number", line: discLine("m8", `{"query":"model","cursor":7}`), want: "invalid_params"},
		{name: "cursor nested 900", line: discLine("m9", `{"query":"model","cursor":`+repeat("[", 900)+repeat("]", 900)+`}`), want: "invalid_params"},
		{name: "cursor nested 5,000", line: discLine("m10", `{"query":"model","cursor":`+repeat("[", 5000)+repeat("]", 5000)+`}`), want: "invalid_request"},
		{name: "_meta nested 900", line: discLine("m11", `{"query":"model","_meta":{"x":`+repeat("[", 900)+repeat("]", 900)+`}}`)},
		{name: "params array", line: discLine("m12", `["model"]`), want: "invalid_params"},
		{name: "params null", line: discLine("m13", `null`), want: "invalid_params"},
		{name: "_meta progressToken", line: discLine("m14", `{"query":"model","limit":1,"_meta":{"progressToken":"p"}}`)},
	})
	// SPEC DISC-6: queries that match nothing (no word, only white space, a zero-width
	// space, punctuation, words of no tool) answer "tools":[] and no nextCursor.
	for i, q := range []string{repeat(" ", 500), `​`, "!!! ??? ...", "zzqqx " + hostileCanary, repeat("-", 500)} {
		b := s.roundTrip(discLine(fmt.Sprint("none", i), `{"query":"`+q+`","limit":1}`))
		if a := decodeAnswer(t, "no match", b); a.Result == nil || a.Result.Tools == nil || len(a.Result.Tools) != 0 || strings.Contains(string(b), "nextCursor") {
			t.Errorf("query %.20q: %.300s, want \"tools\":[] and no nextCursor", q, b)
		}
	}
}

// SPEC CALL-1, CALL-8, ERR-3 (nothing runs twice or unasked): notifications (no id) of
// tools/call, of the discover method and of unknown methods get no answer, run nothing
// and log none of their bytes; an id on a notification method is refused; the session
// goes on. Breaks when a notification is answered (the next answer would not be the
// ping's) or when the SDK's log line quotes the method or params (stderr is checked
// for the canary at the end).
func TestAttackNotifications(t *testing.T) {
	s := startLines(t)
	for i, line := range []string{
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"models_search","arguments":{"query":"` + hostileCanary + `"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"billing_set_budget","arguments":{"x":"` + hostileCanary + `"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search_tools","arguments":{"query":"` + hostileCanary + `"}}}`,
		`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"` + hostileCanary + `"}}`,
		`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"model","limit":99}}`,
		`{"jsonrpc":"2.0","method":"` + hostileCanary + `/x","params":{"a":"` + hostileCanary + `"}}`,
		`{"jsonrpc":"2.0","method":"notifications/` + hostileCanary + `","params":{"a":"` + hostileCanary + `"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + hostileCanary + `","reason":"` + hostileCanary + `"}}`,
		`{"jsonrpc":"2.0","method":"tools/list"}`,
	} {
		s.send(line)
		id := fmt.Sprintf(`"after%d"`, i)
		a := decodeAnswer(t, "ping", s.roundTrip(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`))
		if string(a.ID) != id || a.Error != nil {
			t.Errorf("notification %d was answered, or the session stopped: the next answer is %+v", i, a)
		}
	}
	s.check([]attackCase{{name: "initialized with an id", line: `{"jsonrpc":"2.0","id":"n","method":"notifications/initialized"}`, want: "invalid_request"}})
}

// SPEC CALL-2, CALL-3, CALL-5, CALL-8: an integer parameter (models_search's page_size, 1 to
// 100) is judged by the JSON value of its text: 1.0, 1E1, 100.0 and 1 written with
// 20,000 zeros and e-20000 are integers in range; 100.0000000000000001 and
// 0.99999999999999999 (a float64 rounds both to integers in range) and 1e-400 are not
// integers; 1e400 is above the maximum and -0 below the minimum. Duplicate members,
// also when spelled with an escape, are invalid; an escape spelling the same value as
// an enum member matches it; past CALL-5's depth or node bound the answer is 503,
// whatever the keywords. Breaks when arguments are decoded to float64 or a map before
// validation, or the bounds are checked after the keywords.
func TestAttackCallNumbers(t *testing.T) {
	s := startLines(t)
	arg := func(v string) string { return `{"query":"x","page_size":` + v + `}` }
	zeros := repeat("0", 20000)
	s.check([]attackCase{
		{name: "1.0", line: callLine("n1", "models_search", arg("1.0"))},
		{name: "1E1", line: callLine("n2", "models_search", arg("1E1"))},
		{name: "100.0", line: callLine("n3", "models_search", arg("100.0"))},
		{name: "1 with 20,000 zeros", line: callLine("n4", "models_search", arg("1"+zeros+"e-20000"))},
		{name: "100.0000000000000001", line: callLine("n5", "models_search", arg("100.0000000000000001")), want: "invalid_arguments", keyword: "type"},
		{name: "0.99999999999999999", line: callLine("n6", "models_search", arg("0.99999999999999999")), want: "invalid_arguments", keyword: "type"},
		{name: "1e-400", line: callLine("n7", "models_search", arg("1e-400")), want: "invalid_arguments", keyword: "type"},
		{name: "1e400", line: callLine("n8", "models_search", arg("1e400")), want: "invalid_arguments", keyword: "maximum"},
		{name: "101 with 20,000 zeros", line: callLine("n9", "models_search", arg("101"+zeros+"e-20000")), want: "invalid_arguments", keyword: "maximum"},
		{name: "-0", line: callLine("n10", "models_search", arg("-0")), want: "invalid_arguments", keyword: "minimum"},
		{name: "string", line: callLine("n11", "models_search", arg(`"`+hostileCanary+`"`)), want: "invalid_arguments", keyword: "type"},
		{name: "escaped duplicate", line: callLine("d1", "models_search", `{"query":"x","\u0071uery":"`+hostileCanary+`"}`), want: "invalid_arguments"},
		{name: "duplicate page_size", line: callLine("d2", "models_search", `{"query":"x","page_size":1,"page_size":1000}`), want: "invalid_arguments"},
		{name: "escaped enum value", line: callLine("d3", "models_search", `{"query":"x","task":"\u0074ext-generation"}`)},
		{name: "lone surrogate", line: callLine("d4", "models_search", `{"query":"\ud800`+hostileCanary+`"}`), want: "invalid_arguments"},
		{name: "arguments null", line: callLine("d5", "models_search", `null`), want: "invalid_arguments", keyword: "type"},
		{name: "arguments array", line: callLine("d6", "models_search", `["`+hostileCanary+`"]`), want: "invalid_arguments", keyword: "type"},
		// CALL-5: nesting past 32 and 8,192 nodes are bounds (503), checked while the
		// text is scanned, before any keyword; 30 deep is a plain verdict.
		{name: "depth 40", line: callLine("b1", "models_search", `{"query":"x","z":`+repeat("[", 40)+repeat("]", 40)+`}`), want: "tool_validation_unavailable"},
		{name: "depth 30", line: callLine("b2", "models_search", `{"query":"x","z":`+repeat("[", 30)+repeat("]", 30)+`}`), want: "invalid_arguments", keyword: "additionalProperties"},
		{name: "9,000 nodes", line: callLine("b3", "models_search", `{"query":"x","z":[`+strings.TrimSuffix(repeat("1,", 9000), ",")+`]}`), want: "tool_validation_unavailable"},
	})
}

// SPEC CALL-1, VIS-2: the tool name is the JSON string's value: an escape spelling a
// granted tool's name calls it, one spelling a denied tool's name is refused like the
// denied tool, and names that only look alike (case, a lone surrogate, NUL, a trailing
// space, a fullwidth letter) are unknown: tool_not_granted. Breaks when the front
// compares raw bytes for one decision and the SDK the decoded name for the other.
func TestAttackCallNames(t *testing.T) {
	s := startLines(t)
	s.check([]attackCase{
		{name: "escaped granted", line: callLine("e1", `models\u005fsearch`, `{"query":"x"}`)},
		{name: "escaped denied", line: callLine("e2", `billing\u005fset_budget`, `{"x":"`+hostileCanary+`"}`), want: "tool_not_granted"},
		{name: "all escaped denied", line: callLine("e3", `\u0062\u0069\u006c\u006c\u0069\u006e\u0067_set_budget`, `{}`), want: "tool_not_granted"},
		{name: "upper case", line: callLine("e4", "MODELS_SEARCH", `{"query":"x"}`), want: "tool_not_granted"},
		{name: "lone surrogate", line: callLine("e5", `models_search\ud800`, `{"query":"x"}`), want: "tool_not_granted"},
		{name: "NUL", line: callLine("e6", `models_search\u0000`, `{"query":"x"}`), want: "tool_not_granted"},
		{name: "trailing space", line: callLine("e7", "models_search ", `{"query":"x"}`), want: "tool_not_granted"},
		{name: "fullwidth", line: callLine("e8", "ｍodels_search", `{"query":"x"}`), want: "tool_not_granted"},
		{name: "empty", line: callLine("e9", "", `{}`), want: "tool_not_granted"},
	})
}

// SPEC DISC-1, ERR-1, ERR-2: the discovery tool's arguments of the wrong type or shape
// answer the isError result "invalid_params" (the model can correct them) and never
// the query; a stale contract pin in the call's _meta answers contract_changed as any
// tools/call does (SPEC CONTRACT-2); the right pin, a page. Breaks when the discovery
// tool skips the pin (it served the page) or echoes its arguments.
func TestAttackDiscoveryToolArguments(t *testing.T) {
	s := startLines(t)
	st := func(id, args string) string { return callLine(id, "search_tools", args) }
	bad := "tool_text:invalid_params"
	s.check([]attackCase{
		{name: "query number", line: st("t1", `{"query":5}`), want: bad},
		{name: "limit string", line: st("t2", `{"query":"`+hostileCanary+`","limit":"5"}`), want: bad},
		{name: "limit 99", line: st("t3", `{"query":"`+hostileCanary+`","limit":99}`), want: bad},
		{name: "arguments array", line: st("t4", `["`+hostileCanary+`"]`), want: bad},
		{name: "arguments null", line: st("t5", `null`), want: bad},
		{name: "arguments missing", line: `{"jsonrpc":"2.0","id":"t6","method":"tools/call","params":{"name":"search_tools"}}`, want: bad},
		{name: "_meta in arguments", line: st("t7", `{"query":"`+hostileCanary+`","_meta":{}}`), want: bad},
		{name: "query twice", line: st("t8", `{"query":"model","query":"`+hostileCanary+`"}`), want: bad},
		{name: "query control", line: st("t9", `{"query":"\u0085`+hostileCanary+`"}`), want: bad},
		{name: "forged cursor", line: st("t10", `{"query":"model","cursor":"`+hostileCanary+`"}`), want: "tool_text:invalid_cursor"},
		{name: "limit 1.0", line: st("t11", `{"query":"model","limit":1.0}`)},
	})
	// The pin: alice's contract digest from tools/list.
	var list struct {
		Result struct {
			Meta struct {
				Digest string `json:"contract_digest"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal(s.roundTrip(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`), &list); err != nil || list.Result.Meta.Digest == "" {
		t.Fatalf("tools/list: no contract digest (%v)", err)
	}
	pinned := func(id, pin string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"search_tools","arguments":{"query":"model"},"_meta":{"contract_digest":"` + pin + `"}}}`
	}
	s.check([]attackCase{
		{name: "stale pin", line: pinned("p1", "sha256:"+repeat("0", 64)), want: "contract_changed"},
		{name: "canary pin", line: pinned("p2", hostileCanary), want: "contract_changed"},
		{name: "right pin", line: pinned("p3", list.Result.Meta.Digest)},
	})
}

// SPEC CURSOR-2, ERR-2: a discover cursor is no tools/list cursor (invalid_params,
// content-free), and a discover cursor given with another limit spelled differently
// but equal (2 and 2.0) continues, since the binding is of the value. Breaks when a
// cursor's binding takes the limit's text, or when the SDK's tools/list error quotes
// the cursor.
func TestAttackCursorAcrossMethods(t *testing.T) {
	s := startLines(t)
	a := decodeAnswer(t, "page 1", s.roundTrip(discLine("p1", `{"query":"model dataset deployment","limit":2}`)))
	if a.Result == nil || a.Result.NextCursor == "" {
		t.Fatalf("page 1 has no next cursor: %+v", a)
	}
	cur := a.Result.NextCursor
	b := s.roundTrip(`{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{"cursor":"` + cur + `"}}`)
	if e := decodeAnswer(t, "tools/list with a discover cursor", b).Error; e == nil || e.Message != "invalid_params" {
		t.Errorf("tools/list with a discover cursor: %.300s, want invalid_params", b)
	}
	if strings.Contains(string(b), cur[:16]) {
		t.Errorf("the refusal carries the cursor: %.300s", b)
	}
	s.check([]attackCase{
		{name: "limit 2.0", line: discLine("p2", `{"query":"model dataset deployment","limit":2.0,"cursor":"`+cur+`"}`)},
		{name: "limit 20e-1", line: discLine("p3", `{"query":"model dataset deployment","limit":20e-1,"cursor":"`+cur+`"}`)},
		{name: "limit 3", line: discLine("p4", `{"query":"model dataset deployment","limit":3,"cursor":"`+cur+`"}`), want: "invalid_cursor"},
		{name: "query with NBSP", line: discLine("p5", `{"query":"model\u00a0dataset deployment","limit":2,"cursor":"`+cur+`"}`), want: "invalid_cursor"},
	})
}

// SPEC ERR-2: the SDK's own errors of methods the example does not serve (resources,
// prompts, completion, subscriptions) and of a second initialize quote URIs, names and
// versions; on the wire they are content-free, and stderr holds none of them. Breaks
// when the outgoing rewrite misses one of the SDK's error paths.
func TestAttackOtherMethodsQuoteNothing(t *testing.T) {
	s := startLines(t)
	c := hostileCanary
	s.check([]attackCase{
		{name: "resources/read", line: `{"jsonrpc":"2.0","id":"r1","method":"resources/read","params":{"uri":"file:///` + c + `"}}`, want: "invalid_params"},
		{name: "prompts/get", line: `{"jsonrpc":"2.0","id":"r2","method":"prompts/get","params":{"name":"` + c + `","arguments":{"a":"` + c + `"}}}`, want: "invalid_params"},
		{name: "completion/complete", line: `{"jsonrpc":"2.0","id":"r3","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"` + c + `"},"argument":{"name":"a","value":"` + c + `"}}}`, want: "method_not_found"},
		{name: "resources/subscribe", line: `{"jsonrpc":"2.0","id":"r4","method":"resources/subscribe","params":{"uri":"` + c + `"}}`, want: "method_not_found"},
		{name: "resources/templates/list", line: `{"jsonrpc":"2.0","id":"r5","method":"resources/templates/list","params":{"cursor":"` + c + `"}}`, want: "invalid_params"},
		{name: "initialize again", line: `{"jsonrpc":"2.0","id":"r6","method":"initialize","params":{"protocolVersion":"` + c + `","capabilities":{},"clientInfo":{"name":"` + c + `","version":"` + c + `"}}}`, want: "internal_error"},
		{name: "logging/setLevel", line: `{"jsonrpc":"2.0","id":"r7","method":"logging/setLevel","params":{"level":"debug"}}`},
		{name: "tools/call, denied, after debug logging", line: callLine("r8", "billing_set_budget", `{"x":"`+c+`"}`), want: "tool_not_granted"},
		{name: "tools/call, invalid, after debug logging", line: callLine("r9", "models_search", `{"query":"`+c+`","`+c+`":1}`), want: "invalid_arguments", keyword: "additionalProperties"},
	})
}

// writeJSON writes v into a file of dir and returns its path.
func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// SPEC PAGE-1, PAGE-3: a discover response of exactly 65,536 bytes, envelope included,
// is served; a tool one byte longer is never truncated: tool_schema_too_large (413).
// The catalog is made so that the response to id 1 is exactly the bound. Breaks on an
// off-by-one in the page accounting, or a bound counted without the envelope.
func TestAttackPageExactlyAtTheBound(t *testing.T) {
	dir := t.TempDir()
	// {"jsonrpc":"2.0","id":1,"result":{"tools":[TOOL],"ttlMs":0,"cacheScope":"private","_meta":{"contract_digest":"sha256:<64>"}}}
	frame := len(`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttlMs":0,"cacheScope":"private","_meta":{"contract_digest":""}}}`) + len("sha256:") + 64
	tool := func(name, word string, n int) map[string]any {
		return map[string]any{"name": name, "description": word + " " + repeat("x", n), "inputSchema": map[string]any{"type": "object"}}
	}
	canonLen := func(m map[string]any) int { b, _ := json.Marshal(m); return len(b) } // sorted keys, nothing escaped: canonical
	fit := tool("fit_tool", "exactfit", 0)
	fit["description"] = "exactfit " + repeat("x", discovery.MaxResponseBytes-frame-canonLen(fit))
	over := tool("over_tool", "oneover", 0)
	over["description"] = "oneover " + repeat("x", discovery.MaxResponseBytes-frame-canonLen(over)+1)
	catalog := writeJSON(t, dir, "catalog.json", []any{fit, over})
	rows := writeJSON(t, dir, "grants.json", []map[string]any{
		{"principal": "*", "tool": "fit_tool", "scopes": []string{}, "effect": "allow", "revision": 1},
		{"principal": "*", "tool": "over_tool", "scopes": []string{}, "effect": "allow", "revision": 1},
	})
	s := startLines(t, "-catalog", catalog, "-grants", rows)
	b := s.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"exactfit"}}`)
	a := decodeAnswer(t, "exact fit", b)
	if a.Error != nil || a.Result == nil || len(a.Result.Tools) != 1 || len(b) != discovery.MaxResponseBytes {
		t.Errorf("exact fit: %d bytes %.200s, want the tool in a response of exactly %d bytes", len(b), b, discovery.MaxResponseBytes)
	}
	b = s.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"oneover"}}`)
	if a := decodeAnswer(t, "one over", b); a.Error == nil || a.Error.Message != string(discovery.CodeSchemaTooLarge) || a.Error.Data.Status != 413 {
		t.Errorf("one byte over: %d bytes %.200s, want tool_schema_too_large", len(b), b)
	}
	// The same tools as a tools/list result: unbounded (SPEC PAGE-5).
	if b := s.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); len(b) <= 2*discovery.MaxResponseBytes-frame {
		t.Errorf("tools/list: %d bytes, want both tools whole", len(b))
	}
}

// SPEC DISC-3, CALL-2: a catalog tool named like the discovery tool would be served by
// discover with its own schema while tools/list and tools/call serve the discovery
// tool under that name: a schema served that is not the one enforced. The example
// refuses such flags at start (exit status 1, one line naming the flag and the tool),
// and serves the catalog's tool once the discovery tool is renamed. Breaks when the
// clash is let through (discover served the catalog's search_tools, and calling it
// with that schema's arguments answered the discovery tool's invalid_params).
func TestAttackDiscoveryToolNameClash(t *testing.T) {
	dir := t.TempDir()
	catalog := writeJSON(t, dir, "catalog.json", []map[string]any{
		{"name": "search_tools", "description": "Search the tools of the warehouse by SKU.", "inputSchema": map[string]any{
			"type": "object", "properties": map[string]any{"sku": map[string]any{"type": "string"}}, "required": []string{"sku"}}},
		{"name": "inventory_get", "description": "Get one inventory item.", "inputSchema": map[string]any{"type": "object"}},
	})
	rows := writeJSON(t, dir, "grants.json", []map[string]any{
		{"principal": "*", "tool": "search_tools", "scopes": []string{}, "effect": "allow", "revision": 1},
		{"principal": "*", "tool": "inventory_get", "scopes": []string{}, "effect": "allow", "revision": 1},
	})
	cmd := command(t, true, "-catalog", catalog, "-grants", rows)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), "-discovery-tool") || !strings.Contains(string(out), `"search_tools"`) {
		t.Errorf("a catalog tool named like the discovery tool: exit %d (%v), output:\n%s\nwant exit status 1 naming -discovery-tool and the tool", code, err, out)
	}
	// Renamed, each name is one tool, served as enforced.
	s := startLines(t, "-catalog", catalog, "-grants", rows, "-discovery-tool", "find_tools")
	b := s.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"warehouse sku"}}`)
	if a := decodeAnswer(t, "discover", b); a.Result == nil || len(a.Result.Tools) == 0 || !strings.Contains(string(a.Result.Tools[0]), `"sku"`) {
		t.Errorf("discover: %.300s, want the catalog's search_tools", b)
	}
	s.check([]attackCase{
		{name: "the catalog's search_tools", line: callLine("c1", "search_tools", `{"sku":"a1"}`)},
		{name: "the catalog's search_tools, invalid", line: callLine("c2", "search_tools", `{}`), want: "invalid_arguments", keyword: "required"},
		{name: "the discovery tool", line: callLine("c3", "find_tools", `{"query":"inventory"}`)},
	})
}

// SPEC ERR-2, VIS-3 over HTTP: a body that is not application/json, methods other than
// POST, GET and DELETE without a session, a session id that names nothing, and another
// principal's session id (bob's token on alice's session: POST, GET and DELETE) answer
// the bare status text, quoting no header or body; alice's session survives bob's
// DELETE; a tools/call with bob's token on alice's session is decided for bob. Breaks
// when the SDK's plain-text errors (which quote the Host, methods, bodies) pass, or
// when a session can be ended by another principal.
func TestAttackHTTPForeignSessionsAndForms(t *testing.T) {
	url := httpPrincipals(t)
	alice := &httpSession{t: t, url: url, token: "tok-alice"}
	alice.initialize()
	do := func(method, token, session, contentType, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "application/json, text/event-stream")
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		req.Header.Set("X-Attack", hostileCanary)
		client := &http.Client{Timeout: 5 * time.Second}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if strings.Contains(string(b), hostileCanary) || strings.Contains(fmt.Sprint(resp.Header), hostileCanary) {
			t.Errorf("%s: the answer carries client bytes: %.300s", method, b)
		}
		return resp, string(b)
	}
	discover := `{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"` + hostileCanary + `"}}`
	for _, c := range []struct {
		name, method, token, session, contentType, body string
		status                                          int
	}{
		{"discover as text/plain", http.MethodPost, "tok-alice", alice.sessionID, "text/plain", discover, http.StatusUnsupportedMediaType},
		{"tools/call as a form", http.MethodPost, "tok-alice", alice.sessionID, "application/x-www-form-urlencoded", `x=` + hostileCanary, http.StatusUnsupportedMediaType},
		{"PUT", http.MethodPut, "tok-alice", alice.sessionID, "application/json", discover, http.StatusMethodNotAllowed},
		{"PATCH", http.MethodPatch, "tok-alice", "", "application/json", discover, http.StatusMethodNotAllowed},
		{"GET without a session", http.MethodGet, "tok-alice", "", "", "", http.StatusBadRequest},
		{"DELETE without a session", http.MethodDelete, "tok-alice", "", "", "", http.StatusBadRequest},
		{"DELETE of no session", http.MethodDelete, "tok-alice", hostileCanary, "", "", http.StatusNotFound},
		{"bob lists on alice's session", http.MethodPost, "tok-bob", alice.sessionID, "application/json", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"x":"` + hostileCanary + `"}}`, http.StatusForbidden},
		{"bob listens on alice's session", http.MethodGet, "tok-bob", alice.sessionID, "", "", http.StatusForbidden},
		{"bob ends alice's session", http.MethodDelete, "tok-bob", alice.sessionID, "", "", http.StatusForbidden},
	} {
		resp, body := do(c.method, c.token, c.session, c.contentType, c.body)
		if resp.StatusCode != c.status || strings.TrimSpace(body) != http.StatusText(c.status) {
			t.Errorf("%s: %d %q, want %d and its bare status text", c.name, resp.StatusCode, body, c.status)
		}
	}
	// Alice's session survived bob's DELETE.
	if a := decodeAnswer(t, "alice's ping", alice.post(`{"jsonrpc":"2.0","id":"alive","method":"ping"}`)); a.Error != nil || string(a.ID) != `"alive"` || alice.lastStatus != http.StatusOK {
		t.Errorf("alice's session ended after bob's DELETE: HTTP %d %+v", alice.lastStatus, a)
	}
	// bob on alice's session calls a tool alice may call and he may not: decided for bob.
	bobOnAlice := &httpSession{t: t, url: url, token: "tok-bob", sessionID: alice.sessionID}
	b := bobOnAlice.post(callLine("c", "models_register", `{"x":"`+hostileCanary+`"}`))
	if a := decodeAnswer(t, "bob's call on alice's session", b); a.Error == nil || a.Error.Message != string(discovery.CodeToolNotGranted) {
		t.Errorf("bob's call of models_register on alice's session: HTTP %d %.300s, want tool_not_granted", bobOnAlice.lastStatus, b)
	}
}

// One bad stdio line never ends the session (README "One bad message never ends a
// session"), whatever its framing: a UTF-8 byte order mark, a lone CR, a CR inside a
// line (two messages on it), a NUL, a CR inside a string, {} and null each get one
// content-free error with a null id; leading and trailing white space and CRCRLF
// endings are accepted; the messages around them are served. Breaks when the line
// reader splits on CR or the front reads a BOM the SDK refuses.
func TestAttackStdioFraming(t *testing.T) {
	s := startLines(t)
	for _, line := range []string{
		"\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":"bom","method":"ping","params":{"x":"` + hostileCanary + `"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}` + "\r" + `{"jsonrpc":"2.0","id":"y","method":"ping"}`,
		"\x00" + hostileCanary,
		`{"jsonrpc":"2.0","id":"mid` + "\r" + hostileCanary + `","method":"ping"}`,
		`{}`,
		`null`,
	} {
		b := s.roundTrip(line)
		if a := decodeAnswer(t, "bad line", b); a.Error == nil || string(a.ID) != "null" || (a.Error.Message != "parse_error" && a.Error.Message != "invalid_request") {
			t.Errorf("line %.40q: %.300s, want one parse_error or invalid_request with a null id", line, b)
		}
	}
	s.send("\r")
	s.send("")
	s.check([]attackCase{
		{name: "leading and trailing white space", line: "  \t" + `{"jsonrpc":"2.0","id":"ws","method":"ping"}` + " \t"},
		{name: "CRCRLF", line: `{"jsonrpc":"2.0","id":"crcr","method":"ping"}` + "\r\r"},
		{name: "after them", line: discLine("d", `{"query":"model","limit":1}`)},
	})
}

// SPEC GRANT-1, GRANT-2 over HTTP: a principal is its exact ID and scope strings: a
// token whose principal is "bob " (a trailing space) is not bob (bob's own deny row does
// not apply, the "*" rows do), "*" as a principal ID gains no scope, a scope holding a
// space is one scope (not two), and scopes compare exactly (REGISTRY:READ is not
// registry:read). Each principal's contract digest on the wire is the one the library
// computes for exactly that principal. Breaks when IDs are trimmed or folded or scope
// strings split.
func TestAttackHTTPPrincipalLookalikes(t *testing.T) {
	principals := map[string]struct {
		ID     string   `json:"principal"`
		Scopes []string `json:"scopes"`
	}{
		"tok-space-scope": {"carol", []string{"registry:read registry:write"}},
		"tok-upper-scope": {"dave", []string{"REGISTRY:READ"}},
		"tok-star":        {"*", []string{"registry:read"}},
		"tok-bob-space":   {"bob ", []string{"registry:read", "billing:admin"}},
		"tok-bob":         {"bob", []string{"registry:read", "billing:admin"}},
	}
	tokens := writeJSON(t, t.TempDir(), "tokens.json", principals)
	url := httpTokens(t, tokens)
	d := demoDiscoverer(t)
	digests := map[string]string{}
	for tok, p := range principals {
		h := &httpSession{t: t, url: url, token: tok}
		b := h.post(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model dataset billing deployment logs","limit":1}}`)
		var page struct {
			Result struct {
				Meta struct {
					Digest string `json:"contract_digest"`
				} `json:"_meta"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatalf("%s: %.300s", tok, b)
		}
		want, err := d.ListTools(context.Background(), grants.Principal{ID: p.ID, Scopes: p.Scopes})
		if err != nil {
			t.Fatal(err)
		}
		if page.Result.Meta.Digest != want.ContractDigest {
			t.Errorf("%s (principal %q, scopes %q): contract %s on the wire, want %s", tok, p.ID, p.Scopes, page.Result.Meta.Digest, want.ContractDigest)
		}
		digests[tok] = page.Result.Meta.Digest
	}
	if digests["tok-bob"] == digests["tok-bob-space"] {
		t.Error(`"bob " has bob's contract: bob's own deny row applied to another principal`)
	}
	empty := "sha256:" + fmt.Sprintf("%x", sha256.Sum256(nil))
	for _, tok := range []string{"tok-space-scope", "tok-upper-scope"} {
		if digests[tok] != empty {
			t.Errorf("%s: contract %s, want the empty contract %s (no scope matches exactly)", tok, digests[tok], empty)
		}
	}
}

// SPEC FLAG-1, FLAG-2: DEFERRED_TOOLS_ENABLED decides by strconv.ParseBool; any other
// value (yes, " true", "true ", a canary) is off with exactly one warning naming the
// setting and never the value; unset, empty and 0 are off without a warning; TRUE, 1
// and t are on (the discover method answers a page; off, it is the SDK's, see
// TestStdioSubprocessSwitchOff). Breaks when the value is trimmed or folded beyond
// ParseBool, or quoted in the warning.
func TestAttackSwitchValues(t *testing.T) {
	for _, c := range []struct {
		value string
		on    bool
		warn  bool
	}{
		{"yes", false, true}, {" true", false, true}, {"true ", false, true}, {hostileCanary, false, true},
		{"on", false, true}, {"", false, false}, {"0", false, false}, {"TRUE", true, false}, {"1", true, false}, {"t", true, false},
	} {
		cmd := command(t, false)
		cmd.Env = append(cmd.Env, discovery.SwitchVariable+"="+c.value)
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"0"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model"}}` + "\n")
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", c.value, err)
		}
		warnings := strings.Count(stderr.String(), "level=WARN")
		if !strings.Contains(stderr.String(), "mcpserver: "+switchState(c.on)+"\n") {
			t.Errorf("%q: stderr does not say discovery is %v:\n%s", c.value, c.on, stderr.String())
		}
		if (warnings == 1) != c.warn || warnings > 1 || (c.warn && !strings.Contains(stderr.String(), "setting="+discovery.SwitchVariable)) {
			t.Errorf("%q: %d warnings, want %v, naming the setting:\n%s", c.value, warnings, c.warn, stderr.String())
		}
		if strings.Contains(stderr.String(), hostileCanary) {
			t.Errorf("%q: stderr quotes the value:\n%s", c.value, stderr.String())
		}
		if c.on && !strings.Contains(string(out), `"id":1,"result":{"tools":[`) {
			t.Errorf("%q: the discover method answered %s, want a page", c.value, out)
		}
	}
}
