package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
)

// Attack round 3 on the switch (SPEC FLAG-1..3), from outside: the real example binary
// against the same go-sdk server without the library.

// bareVariable makes the test binary, started by a test, serve the example's catalog as
// a plain go-sdk server: no Discoverer, no adapter, the same tools, handlers, logger and
// HTTP chain as the example's. Its value is "stdio" or "http:TOKENSFILE".
const bareVariable = "ATTACK3_BARE_SERVER"

func init() {
	if mode, ok := os.LookupEnv(bareVariable); ok {
		if err := runBare(mode); err != nil {
			fmt.Fprintln(os.Stderr, "bare:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// runBare is the example's run without the library: what the host had before.
func runBare(mode string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	tools, err := loadCatalog(os.Getenv("ATTACK3_BARE_CATALOG"))
	if err != nil {
		return err
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		return err
	}
	server, err := newServer(cat, logger)
	if err != nil {
		return err
	}
	tokens, isHTTP := strings.CutPrefix(mode, "http:")
	if !isHTTP {
		err := server.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(os.Stdin), Writer: nopWriteCloser{os.Stdout}})
		if err == nil || ctx.Err() != nil || strings.Contains(err.Error(), "EOF") {
			return nil
		}
		return err
	}
	verify, err := loadTokens(tokens)
	if err != nil {
		return err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Logger: logger, SessionTimeout: 10 * time.Minute,
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(os.Stderr, "mcpserver: listening on http://%s/\n", ln.Addr())
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// bareCommand is the bare server's command: the test binary itself.
func bareCommand(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(s string) bool { return strings.HasPrefix(s, discovery.SwitchVariable+"=") }),
		append([]string{bareVariable + "=" + mode}, env...)...)
	return cmd
}

// procLines starts cmd as a stdio server and initializes a session with it (startLines
// is procLines of the example with the switch on); when the test ends it closes the
// server's input, waits for it and gives each of after its exit error and stderr.
func procLines(t *testing.T, cmd *exec.Cmd, after ...func(err error, stderr string)) *lineSession {
	t.Helper()
	s := &lineSession{t: t, lines: make(chan []byte, 16), stderr: &lockedBuffer{}}
	cmd.Stderr = s.stderr
	s.in, _ = cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.in.Close()
		err := cmd.Wait()
		for _, f := range after {
			f(err, s.stderr.String())
		}
	})
	go func() {
		r := bufio.NewReaderSize(out, 4<<20)
		for {
			b, err := r.ReadBytes('\n')
			if err != nil {
				close(s.lines)
				return
			}
			s.lines <- b[:len(b)-1]
		}
	}()
	s.roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"attack3","version":"0"}}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// procHTTP starts cmd as an HTTP server (it prints "listening on URL" on stderr) and
// returns its URL and its stderr; the server is interrupted when the test ends, and
// then each of after is given its whole stderr.
func procHTTP(t *testing.T, cmd *exec.Cmd, after ...func(stderr string)) (string, *lockedBuffer) {
	t.Helper()
	stderr := &lockedBuffer{}
	pipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`listening on (http://\S+)`)
		r := bufio.NewReader(pipe)
		for {
			line, err := r.ReadString('\n')
			stderr.Write([]byte(line))
			if m := re.FindStringSubmatch(line); m != nil {
				addr <- m[1]
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		for _, f := range after {
			f(stderr.String())
		}
	})
	select {
	case url := <-addr:
		return url, stderr
	case <-time.After(30 * time.Second):
		t.Fatalf("the HTTP server did not start; stderr:\n%s", stderr)
		return "", nil
	}
}

// SPEC FLAG-1: strconv.ParseBool decides, nothing more lenient or stricter: " true",
// "1 ", "yes", "on", "0x1", "+1", "01", an Arabic-Indic and a fullwidth digit one, "tRUE"
// and a tab before true are off with exactly one warning that names the setting and
// never the value; "TRUE", "True", "T" and "t" are on; "F", "FALSE" and "false" are off
// without a warning. Breaks when the value is trimmed, case-folded past ParseBool's
// spellings, read as a number (0x1, unicode digits) or quoted in the warning.
func TestAttack3SwitchValues(t *testing.T) {
	for _, c := range []struct {
		value    string
		on, warn bool
	}{
		{" true", false, true}, {"1 ", false, true}, {"yes", false, true}, {"on", false, true},
		{"0x1", false, true}, {"+1", false, true}, {"01", false, true}, {"١", false, true}, {"１", false, true},
		{"tRUE", false, true}, {"\ttrue", false, true}, {"true" + hostileCanary, false, true},
		{"TRUE", true, false}, {"True", true, false}, {"T", true, false}, {"t", true, false},
		{"F", false, false}, {"FALSE", false, false}, {"false", false, false},
	} {
		cmd := command(t, false)
		cmd.Env = append(cmd.Env, discovery.SwitchVariable+"="+c.value)
		s := procLines(t, cmd)
		b := s.roundTrip(discLine("d", `{"query":"model","limit":1}`))
		var a answer // off, the SDK's own error quotes the method: not decodeAnswer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("%q: %.200s", c.value, b)
		}
		switch {
		case c.on && (a.Result == nil || len(a.Result.Tools) != 1):
			t.Errorf("%q: discover answered %.200s, want a page (on)", c.value, b)
		case !c.on && (a.Error == nil || a.Error.Code != -32601):
			t.Errorf("%q: discover answered %.200s, want -32601 (off)", c.value, b)
		}
		s.in.Close()
		for range s.lines {
		}
		log := s.stderr.String()
		warnings := strings.Count(log, "level=WARN")
		if (warnings == 1) != c.warn || warnings > 1 {
			t.Errorf("%q: %d warnings, want %v:\n%s", c.value, warnings, c.warn, log)
		}
		if c.warn && !strings.Contains(log, "setting="+discovery.SwitchVariable) {
			t.Errorf("%q: the warning does not name the setting:\n%s", c.value, log)
		}
		// The value never appears: compare the warning line against each value of three
		// or more characters (shorter ones, like "t", are in any English line).
		for _, line := range strings.Split(log, "\n") {
			if strings.Contains(line, "level=WARN") && len(strings.TrimSpace(c.value)) >= 3 && strings.Contains(line, strings.TrimSpace(c.value)) {
				t.Errorf("%q: the warning quotes the value: %s", c.value, line)
			}
		}
		if strings.Contains(log, hostileCanary) {
			t.Errorf("%q: stderr quotes the value:\n%s", c.value, log)
		}
	}
}

// flagOffLines are the requests whose answers must be the same bytes from the example
// with the switch off and from the bare server: results, the SDK's own errors, the
// discover method as an unknown method, and a tool alice is not granted.
var flagOffLines = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"` + hostileCanary + `"}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"models_search","arguments":{"query":"bert"}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"models_search","arguments":{"query":"bert","x":1}}}`,
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"billing_set_budget","arguments":{"project":"p","monthly_limit":5}}}`,
	`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"multillm.tools.discover","params":{"query":"model"}}`,
	`{"jsonrpc":"2.0","id":8,"method":"no/such/method","params":{"query":"model"}}`,
	`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"model"}}}`,
	`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"models_search","arguments":{"query":"bert","query":"x"}}}`,
	`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"models_search","arguments":{"query":"bert"},"_meta":{"contract_digest":"sha256:00"}}}`,
	`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"Name":"models_search","arguments":{"query":"bert"}}}`,
	`{"jsonrpc":"2.0","id":12,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"models_search","arguments":{"query":"` + repeat("a", 300) + `"}}}`,
}

// SPEC FLAG-2 over stdio: with the switch off the example answers every request with
// the same bytes as the same go-sdk server without the library, the discover method
// included (-32601 as for any unknown method), a tool alice is not granted runs, and
// the grant store is never read: the -db database has no grant table at all after
// start, yet every call runs. Breaks when anything of the adapter stays installed while
// off (rewritten errors, refused duplicates, a pin checked, a grant read).
func TestAttack3SwitchOffStdioBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.db")
	off := procLines(t, command(t, false, "-db", "sqlite:"+path))
	bare := procLines(t, bareCommand(t, "stdio"))
	// The grant store is gone: a read would fail (grants_unavailable).
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, table := range []string{"tool_grants", "control_revisions"} {
		db.Exec("DROP TABLE IF EXISTS " + table)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'tool_grants'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the grant table is still there (%d, %v)", n, err)
	}
	for _, line := range append(flagOffLines, `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"models_search","arguments":{"query":"bert"}}}`) {
		got, want := off.roundTrip(line), bare.roundTrip(line)
		if string(got) != string(want) {
			t.Errorf("%.80s:\nswitch off: %.400s\nbare:       %.400s", line, got, want)
		}
	}
}

// SPEC FLAG-2 over streamable HTTP: status, headers (but Date and the session id) and
// bodies of the example with the switch off are those of the same server without the
// library, for every request of flagOffLines, a refused token and the SDK's own
// refusals of a wrong content type and method. Breaks when the adapter's Handler wraps
// the SDK's while off (its Cache-Control, its JSON error bodies).
func TestAttack3SwitchOffHTTPBytes(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(tokens, []byte(`{"tok-alice":{"principal":"alice","scopes":["registry:read"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	offURL, _ := procHTTP(t, command(t, false, "-http", "127.0.0.1:0", "-tokens", tokens))
	bareURL, _ := procHTTP(t, bareCommand(t, "http:"+tokens))
	off := &rawHTTP{t: t, url: offURL, token: "tok-alice"}
	bare := &rawHTTP{t: t, url: bareURL, token: "tok-alice"}
	compare := func(what, method, contentType, body string) {
		t.Helper()
		g, w := off.do(method, contentType, body), bare.do(method, contentType, body)
		if g.status != w.status || g.body != w.body || !slices.Equal(g.header, w.header) {
			t.Errorf("%s:\nswitch off: %d %q\n%.400s\nbare:       %d %q\n%.400s", what, g.status, g.header, g.body, w.status, w.header, w.body)
		}
	}
	compare("initialize", http.MethodPost, "application/json", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"attack3","version":"0"}}}`)
	compare("initialized", http.MethodPost, "application/json", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, line := range flagOffLines {
		compare(line[:min(len(line), 80)], http.MethodPost, "application/json", line)
	}
	compare("malformed", http.MethodPost, "application/json", `{"jsonrpc":"2.0","id":`)
	compare("text/plain", http.MethodPost, "text/plain", flagOffLines[0])
	compare("PUT", http.MethodPut, "application/json", flagOffLines[0])
	off.token, bare.token = "tok-"+hostileCanary, "tok-"+hostileCanary
	compare("a refused token", http.MethodPost, "application/json", flagOffLines[0])
}

// rawHTTP is one client of an HTTP server, its session id learnt from the first answer.
type rawHTTP struct {
	t          *testing.T
	url, token string
	session    string
}

// httpAnswer is one HTTP answer, its session id and date taken out.
type httpAnswer struct {
	status int
	header []string // "Name: value" lines, sorted, without Date and Mcp-Session-Id
	body   string
}

func (h *rawHTTP) do(method, contentType, body string) httpAnswer {
	h.t.Helper()
	return h.doWith(method, contentType, body, nil)
}

// doWith is do with extra request headers.
func (h *rawHTTP) doWith(method, contentType, body string, extra map[string]string) httpAnswer {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+h.token)
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		h.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && h.session == "" {
		h.session = sid
	}
	a := httpAnswer{status: resp.StatusCode, body: string(b)}
	if h.session != "" {
		a.body = strings.ReplaceAll(a.body, h.session, "<session>")
	}
	for k, vs := range resp.Header {
		if k == "Date" || k == "Mcp-Session-Id" {
			continue
		}
		for _, v := range vs {
			a.header = append(a.header, k+": "+v)
		}
	}
	slices.Sort(a.header)
	return a
}

// dropGrantTables removes the grant store's tables from the SQLite file at path.
func dropGrantTables(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, table := range []string{"tool_grants", "control_revisions"} {
		if _, err := db.Exec("DROP TABLE IF EXISTS " + table); err != nil {
			t.Fatal(err)
		}
	}
}

// SPEC FLAG-3, ERR-1, ERR-2 over HTTP: with the switch on and the grant table gone from
// the -db database, tools/list, a tools/call of a granted tool, the discover method and
// the discovery tool each answer HTTP 503 with a JSON body, the content-free
// grants_unavailable error, and no tool runs (no "accepted the call" result). Breaks
// when a missing table reads as no rows (an empty list, tool_not_granted) or when the
// refusal rides in an HTTP 200: it did, for the call (the front answered every call
// refusal 200) and for tools/list and the discovery tool (an event of the SDK's 200
// stream), before the adapters answered their 503 with that status.
func TestAttack3MissingTableHTTP503(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "grants.db")
	tokens := filepath.Join(dir, "tokens.json")
	if err := os.WriteFile(tokens, []byte(`{"tok-alice":{"principal":"alice","scopes":["registry:read"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	url, _ := procHTTP(t, command(t, true, "-http", "127.0.0.1:0", "-tokens", tokens, "-db", "sqlite:"+path))
	h := &rawHTTP{t: t, url: url, token: "tok-alice"}
	h.do(http.MethodPost, "application/json", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"attack3","version":"0"}}}`)
	h.do(http.MethodPost, "application/json", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if a := h.do(http.MethodPost, "application/json", flagOffLines[2]); !strings.Contains(a.body, "accepted the call") {
		t.Fatalf("before the table is dropped: %d %.300s, want the call to run", a.status, a.body)
	}
	dropGrantTables(t, path)
	for _, c := range []struct {
		line    string
		http503 bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, true},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"models_search","arguments":{"query":"` + hostileCanary + `"}}}`, true},
		{`{"jsonrpc":"2.0","id":3,"method":"multillm.tools.discover","params":{"query":"` + hostileCanary + `"}}`, true},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"` + hostileCanary + `"}}}`, true},
	} {
		a := h.do(http.MethodPost, "application/json", c.line)
		body := a.body
		if !c.http503 { // the SDK's event stream: its one data line
			for _, l := range strings.Split(body, "\n") {
				if d, ok := strings.CutPrefix(l, "data: "); ok {
					body = d
				}
			}
		}
		var e answer
		err := json.Unmarshal([]byte(body), &e)
		if err != nil || e.Error == nil || e.Error.Message != string(discovery.CodeGrantsUnavailable) || e.Error.Data.Status != 503 || strings.Contains(a.body, hostileCanary) {
			t.Errorf("%.70s: %d %.300s, want the grants_unavailable error", c.line, a.status, a.body)
		}
		if c.http503 && (a.status != http.StatusServiceUnavailable || !slices.Contains(a.header, "Content-Type: application/json")) {
			t.Errorf("%.70s: %d %q, want HTTP 503 with a JSON body", c.line, a.status, a.header)
		}
	}
}

// SPEC FLAG-3 over stdio: the same with the stdio transport (no HTTP status there): each
// request answers grants_unavailable carrying status 503, and nothing runs.
func TestAttack3MissingTableStdio(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.db")
	s := startLines(t, "-db", "sqlite:"+path)
	dropGrantTables(t, path)
	s.check([]attackCase{
		{name: "tools/list", line: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, want: "grants_unavailable"},
		{name: "granted call", line: callLine("c", "models_search", `{"query":"`+hostileCanary+`"}`), want: "grants_unavailable"},
		{name: "discover", line: discLine("d", `{"query":"`+hostileCanary+`"}`), want: "grants_unavailable"},
		{name: "discovery tool", line: callLine("st", "search_tools", `{"query":"`+hostileCanary+`"}`), want: "grants_unavailable"},
	})
}
