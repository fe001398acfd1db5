package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Attack round 3 on retention (SPEC ERR-4, ERR-2): every byte the example writes (its
// answers, its log on stderr with the SDK's log, the SQLite grant database and its
// journal files) is searched for marker strings sent in queries, arguments, cursors,
// tool names, methods, _meta, pins, confirmation tokens and HTTP headers, over valid
// and invalid requests and every refusal path.

// markerPrefix starts every marker; each channel has its own suffix, so a failure says
// which input leaked.
const markerPrefix = "MKq7w"

func marker(kind string) string { return markerPrefix + kind }

// retentionLines are the requests of the attack: each carries a marker in another
// place, and together they reach every answer path of the example.
func retentionLines(cursor string) []string {
	m := marker
	return []string{
		`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`,
		discLine("2", `{"query":"model `+m("query")+`","limit":2}`),
		discLine("3", `{"query":"`+m("querybadlimit")+`","limit":99}`),
		discLine("4", `{"query":"model `+m("querycontrol")+`\u0085"}`),
		discLine("5", `{"query":"model","cursor":"`+m("cursorforged")+`"}`),
		discLine("6", `{"query":"model dataset deployment","limit":2,"cursor":"`+cursor+m("cursorlong")+`"}`),
		discLine("7", `{"query":"model dataset deployment `+m("cursorquery")+`","limit":2,"cursor":"`+cursor+`"}`),
		discLine("8", `{"query":"model","`+m("member")+`":1}`),
		discLine("9", `{"query":"model","_meta":{"`+m("metakey")+`":"`+m("metavalue")+`"}}`),
		callLine("10", "models_search", `{"query":"`+m("argvalid")+`"}`),
		callLine("11", "models_search", `{"query":"x","`+m("argkey")+`":"`+m("argextra")+`"}`),
		callLine("12", "models_search", `{"query":"x","page_size":"`+m("argtype")+`"}`),
		callLine("13", "billing_set_budget", `{"project":"`+m("argdenied")+`","monthly_limit":1}`),
		callLine("14", "no_such_"+m("toolname"), `{"a":"`+m("argunknown")+`"}`),
		callLine("15", "search_tools", `{"query":"`+m("toolquery")+`"}`),
		callLine("16", "search_tools", `{"query":"model","cursor":"`+m("toolcursor")+`"}`),
		callLine("17", "models_search", `{"query":"`+m("argdup")+`","query":"`+m("argdup2")+`"}`),
		`{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"models_search","arguments":{"query":"x"},"_meta":{"contract_digest":"` + m("pin") + `"}}}`,
		`{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"models_register","arguments":{"model":"acme/x","card":"` + m("safeargs") + `"}}}`,
		`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"models_register","arguments":{"model":"acme/x"},"_meta":{"deferredtools/confirmation":"` + m("confirm") + `"}}}`,
		`{"jsonrpc":"2.0","id":21,"method":"` + m("method") + `","params":{"a":"` + m("methodparams") + `"}}`,
		`{"jsonrpc":"2.0","id":22,"method":"prompts/get","params":{"name":"` + m("prompt") + `"}}`,
		`{"jsonrpc":"2.0","id":23,"method":"tools/list","params":{"cursor":"` + m("listcursor") + `"}}`,
		`{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"keys","arguments":{"action":"` + m("metaaction") + `","project":"p"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/` + m("notification") + `","params":{"a":"` + m("notificationparams") + `"}}`,
		`{"jsonrpc":"2.0","id":25,"method":"ping"}`,
	}
}

// grepMarkers fails for each marker found in b, naming where.
func grepMarkers(t *testing.T, where string, b []byte) {
	t.Helper()
	for rest := b; ; {
		i := bytes.Index(rest, []byte(markerPrefix))
		if i < 0 {
			return
		}
		end := min(len(rest), i+len(markerPrefix)+20)
		t.Errorf("%s holds the marker %q", where, rest[i:end])
		rest = rest[i+len(markerPrefix):]
	}
}

// grepDir greps every file of dir (the database and its journal files).
func grepDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil {
			grepMarkers(t, e.Name(), b)
		}
	}
}

// SPEC ERR-4, ERR-2 over stdio: the example with a SQLite grant store, safe mode, the
// demo's meta tools and the client's log level at debug answers every request of
// retentionLines; afterwards no marker is in any answer, in stderr or in any file of
// the database's directory. Breaks when a query, cursor, argument, name or token is
// logged, stored or quoted.
func TestAttack3NothingRetainedStdio(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-db", "sqlite:" + filepath.Join(dir, "grants.db"), "-safe-mode", "-meta-tools", "../internal/demo/metatools.json"}
	s := procLines(t, command(t, true, args...))
	a := decodeAnswer(t, "page 1", s.roundTrip(discLine("c", `{"query":"model dataset deployment","limit":2}`)))
	if a.Result == nil || a.Result.NextCursor == "" {
		t.Fatal("no cursor")
	}
	var out bytes.Buffer
	for _, line := range retentionLines(a.Result.NextCursor) {
		if strings.Contains(line, `"notifications/`) {
			s.send(line)
			continue
		}
		b := s.roundTrip(line)
		out.Write(b)
		out.WriteByte('\n')
	}
	s.in.Close()
	for b := range s.lines {
		out.Write(b)
	}
	grepMarkers(t, "stdout", out.Bytes())
	grepMarkers(t, "stderr", []byte(s.stderr.String()))
	grepDir(t, dir)
	if !strings.Contains(out.String(), `"id":25,"result":{}`) {
		t.Errorf("the last request was not answered:\n%.3000s", out.String())
	}
}

// SPEC ERR-4, ERR-2 over streamable HTTP: the same requests, each also carrying markers
// in a header of its own and the User-Agent, with the SDK's log on stderr; no marker
// is in any answer (body or header), in stderr or in the database's directory.
func TestAttack3NothingRetainedHTTP(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.json")
	if err := os.WriteFile(tokens, []byte(`{"tok-alice":{"principal":"alice","scopes":["registry:read","registry:write","data:read"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dbDir := filepath.Join(dir, "db")
	os.Mkdir(dbDir, 0o700)
	url, stderr := procHTTP(t, command(t, true, "-http", "127.0.0.1:0", "-tokens", tokens, "-db", "sqlite:"+filepath.Join(dbDir, "grants.db"), "-safe-mode"))
	h := &markedHTTP{rawHTTP{t: t, url: url, token: "tok-alice"}}
	h.do(http.MethodPost, "application/json", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+marker("client")+`","version":"`+marker("clientversion")+`"}}}`)
	h.do(http.MethodPost, "application/json", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	first := h.do(http.MethodPost, "application/json", discLine("c", `{"query":"model dataset deployment","limit":2}`))
	_, after, _ := strings.Cut(first.body, `"nextCursor":"`)
	cursor, _, _ := strings.Cut(after, `"`)
	if cursor == "" {
		t.Fatalf("no cursor: %.300s", first.body)
	}
	var out strings.Builder
	for _, line := range retentionLines(cursor) {
		a := h.do(http.MethodPost, "application/json", line)
		out.WriteString(strings.Join(a.header, "\n") + "\n" + a.body + "\n")
	}
	a := h.do(http.MethodPost, "text/plain", `{"x":"`+marker("textbody")+`"}`)
	out.WriteString(a.body)
	a = h.do(http.MethodDelete, "", "")
	out.WriteString(a.body)
	grepMarkers(t, "the answers", []byte(out.String()))
	grepMarkers(t, "stderr", []byte(stderr.String()))
	grepDir(t, dbDir)
}

// markedHTTP is rawHTTP adding markers in headers of every request.
type markedHTTP struct{ rawHTTP }

func (h *markedHTTP) do(method, contentType, body string) httpAnswer {
	h.t.Helper()
	return h.rawHTTP.doWith(method, contentType, body, map[string]string{
		"User-Agent": marker("useragent"), "X-Request-Note": marker("header"), "Referer": "http://" + marker("referer") + "/",
	})
}
