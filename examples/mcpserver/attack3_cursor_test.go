package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/examples/internal/demo"
)

// Attack round 3 on cursors (SPEC CURSOR-1, CURSOR-2, CURSOR-6) from outside: the real
// example binary, several processes of it, over stdio and HTTP.

const cursorQuery = "model dataset deployment"

// firstCursor asks s for the first page of cursorQuery with limit 2 and returns its
// next cursor.
func firstCursor(t *testing.T, s *lineSession) string {
	t.Helper()
	a := decodeAnswer(t, "page 1", s.roundTrip(discLine("p1", `{"query":"`+cursorQuery+`","limit":2}`)))
	if a.Result == nil || a.Result.NextCursor == "" {
		t.Fatalf("page 1 has no next cursor: %+v", a)
	}
	return a.Result.NextCursor
}

func nextPage(cur string) string {
	return discLine("p2", `{"query":"`+cursorQuery+`","limit":2,"cursor":"`+cur+`"}`)
}

// SPEC CURSOR-1: a cursor holds only in the process that issued it: another process of
// the same binary, flags and grant database refuses it with invalid_cursor, and so does
// the issuing server after a restart, while the issuer itself, before the restart,
// continues with it. Breaks when what a cursor is bound to is shared by a second
// process. Without revision sync each process also draws its own random grant
// revision (CURSOR-5), bound into its cursors: a fixed cursor key planted alone did
// not fail this test, the revision refused the cursor anyway (the key itself is
// attacked in package cursor).
func TestAttack3CursorOtherProcessAndRestart(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "grants.db")
	a := startLines(t, "-db", db)
	b := startLines(t, "-db", db)
	cur := firstCursor(t, a)
	a.check([]attackCase{{name: "the issuer", line: nextPage(cur)}})
	b.check([]attackCase{{name: "another process", line: nextPage(cur), want: "invalid_cursor"}})
	a.in.Close()
	for range a.lines {
	}
	restarted := startLines(t, "-db", db)
	restarted.check([]attackCase{{name: "after a restart", line: nextPage(cur), want: "invalid_cursor"}})
}

// SPEC CURSOR-1, CURSOR-2: a cursor altered in any one character, cut short at any
// length or lengthened is refused with invalid_cursor (never a page, never another
// error), and the unaltered cursor still continues. Each position is changed to two
// other characters of the cursor's alphabet, so that a change of the last character's
// unused bits, which a lenient base64 decoder ignores, is among them. Breaks when part of
// the cursor is outside the MAC, or when a decoder reads two spellings as one cursor.
func TestAttack3CursorEveryPositionAltered(t *testing.T) {
	s := startLines(t)
	cur := firstCursor(t, s)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var cases []attackCase
	for i := range len(cur) {
		k := strings.IndexByte(alphabet, cur[i])
		for _, d := range []int{1, 32} {
			c := alphabet[(max(k, 0)+d)%len(alphabet)]
			altered := cur[:i] + string(c) + cur[i+1:]
			cases = append(cases, attackCase{name: fmt.Sprintf("position %d to %c", i, c), line: nextPage(altered), want: "invalid_cursor"})
		}
	}
	for _, n := range []int{0, 1, len(cur) / 2, len(cur) - 2, len(cur) - 1} {
		if n == 0 {
			continue // an empty cursor is no cursor: a first page
		}
		cases = append(cases, attackCase{name: fmt.Sprintf("cut to %d", n), line: nextPage(cur[:n]), want: "invalid_cursor"})
	}
	cases = append(cases,
		attackCase{name: "one more character", line: nextPage(cur + "A"), want: "invalid_cursor"},
		attackCase{name: "padded", line: nextPage(cur + "="), want: "invalid_cursor"},
		attackCase{name: "twice", line: nextPage(cur + cur), want: "invalid_cursor"},
		attackCase{name: "the cursor itself", line: nextPage(cur)},
	)
	s.check(cases)
}

// SPEC CURSOR-2 (query, limit): a cursor continues only the request that issued it:
// another limit, a query differing in case, in a space, in a trailing space or in word
// order each answer invalid_cursor. Breaks when the binding takes the analysed words of
// the query (equal after folding or splitting) instead of its text.
func TestAttack3CursorOtherQueryOrLimit(t *testing.T) {
	s := startLines(t)
	cur := firstCursor(t, s)
	other := func(query string, limit int) string {
		return discLine("o", fmt.Sprintf(`{"query":%q,"limit":%d,"cursor":%q}`, query, limit, cur))
	}
	s.check([]attackCase{
		{name: "limit 1", line: other(cursorQuery, 1), want: "invalid_cursor"},
		{name: "limit 16", line: other(cursorQuery, 16), want: "invalid_cursor"},
		{name: "no limit (16)", line: discLine("o", `{"query":"`+cursorQuery+`","cursor":"`+cur+`"}`), want: "invalid_cursor"},
		{name: "upper case", line: other(strings.ToUpper(cursorQuery), 2), want: "invalid_cursor"},
		{name: "two spaces", line: other(strings.Replace(cursorQuery, " ", "  ", 1), 2), want: "invalid_cursor"},
		{name: "trailing space", line: other(cursorQuery+" ", 2), want: "invalid_cursor"},
		{name: "word order", line: other("dataset model deployment", 2), want: "invalid_cursor"},
		{name: "the same", line: other(cursorQuery, 2)},
	})
}

// SPEC CURSOR-2 (principal, scopes) over HTTP, one process: alice's cursor is refused for
// a principal with her very scopes and authorised set (another ID), and for alice with
// one more scope that grants nothing (the same authorised set and contract digest):
// the binding holds the principal and the scope set themselves, not only what they
// decide. Alice herself continues with it. Breaks when the cursor binds the contract
// digest alone.
func TestAttack3CursorOtherPrincipalOrScopes(t *testing.T) {
	scopes := `["` + strings.Join(demo.Alice.Scopes, `","`) + `"]`
	more := `["` + strings.Join(demo.Alice.Scopes, `","`) + `","zz:grants-nothing"]`
	tokens := writeJSON(t, t.TempDir(), "tokens.json", map[string]any{
		"tok-alice":  map[string]any{"principal": "alice", "scopes": rawJSON(scopes)},
		"tok-twin":   map[string]any{"principal": "alice-twin", "scopes": rawJSON(scopes)},
		"tok-scoped": map[string]any{"principal": "alice", "scopes": rawJSON(more)},
	})
	url := httpTokens(t, tokens)
	post := func(token, params string) answer {
		h := &httpSession{t: t, url: url, token: token}
		return decodeAnswer(t, token, h.post(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":`+params+`}`))
	}
	first := post("tok-alice", `{"query":"`+cursorQuery+`","limit":2}`)
	if first.Result == nil || first.Result.NextCursor == "" {
		t.Fatalf("alice's first page: %+v", first)
	}
	cur := first.Result.NextCursor
	// The same authorised set: the same first page for each.
	for _, tok := range []string{"tok-twin", "tok-scoped"} {
		if p := post(tok, `{"query":"`+cursorQuery+`","limit":2}`); p.Result == nil || fmt.Sprint(p.Result.Tools) != fmt.Sprint(first.Result.Tools) {
			t.Fatalf("%s: another first page than alice's: the attack needs the same authorised set", tok)
		}
	}
	next := `{"query":"` + cursorQuery + `","limit":2,"cursor":"` + cur + `"}`
	for _, tok := range []string{"tok-twin", "tok-scoped"} {
		if a := post(tok, next); a.Error == nil || a.Error.Message != string(discovery.CodeInvalidCursor) {
			t.Errorf("%s with alice's cursor: %+v, want invalid_cursor", tok, a)
		}
	}
	if a := post("tok-alice", next); a.Result == nil || len(a.Result.Tools) == 0 {
		t.Errorf("alice with her cursor: %+v, want the next page", a)
	}
}

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// SPEC CURSOR-6: a cursor is opaque: neither its text nor its bytes decoded as base64
// (URL or standard alphabet, with or without padding) hold the query or any of its
// words, the principal's ID or any scope, in any case; no JSON either. The principal
// and scopes are made long and unusual so that a chance match is impossible. Breaks
// when a cursor carries its binding facts in clear beside their MAC.
func TestAttack3CursorHoldsNothingInClear(t *testing.T) {
	principal, scope := "principal-Qx7-unusual", "scope:Qx7-registry-read"
	s := startLines(t, "-principal", principal, "-scopes", strings.Join(append([]string{scope}, demo.Alice.Scopes...), ","))
	cur := firstCursor(t, s)
	secrets := append(strings.Fields(cursorQuery), cursorQuery, principal, scope, "alice")
	secrets = append(secrets, demo.Alice.Scopes...)
	texts := [][]byte{[]byte(cur)}
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		if b, err := enc.DecodeString(cur); err == nil {
			texts = append(texts, b)
		}
	}
	if len(texts) < 2 {
		t.Logf("the cursor is no base64 text: only its characters are searched")
	}
	for _, b := range texts {
		low := bytes.ToLower(b)
		for _, secret := range secrets {
			if bytes.Contains(low, []byte(strings.ToLower(secret))) {
				t.Errorf("the cursor carries %q in clear", secret)
			}
		}
		if bytes.Contains(b, []byte(`{"`)) || bytes.Contains(b, []byte(`":`)) {
			t.Errorf("the cursor holds JSON in clear: %q", b)
		}
	}
}
