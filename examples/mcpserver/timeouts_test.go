package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// startHTTP starts the example over HTTP on 127.0.0.1 with the bearer token "tok-bob"
// and the extra flags, and returns its address (host:port). It stops when the test ends.
func startHTTP(t *testing.T, flags ...string) string {
	t.Helper()
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(tokens, []byte(`{"tok-bob":{"principal":"bob","scopes":["registry:read"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := command(t, true, append([]string{"-http", "127.0.0.1:0", "-tokens", tokens}, flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`listening on http://(\S+)/`)
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			if m := re.FindStringSubmatch(s.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("the HTTP server did not start")
		return ""
	}
}

// The kinds of stalled connection TestHTTPStalledConnections opens.
var stalls = []struct {
	name string
	send string // what the client sends before it stalls
	full bool   // the request is complete: read its response, then stall
}{
	{name: "partial header", send: "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthori"},
	{name: "partial body", send: "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer tok-bob\r\n" +
		"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		"Content-Length: 4000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,"},
	{name: "idle keep-alive", full: true, send: "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
		"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"},
}

// With -http, the server closes connections that stall: 300 connections stalled in
// their headers, in their body, or idle after a response, are all closed by the server
// within the timeouts the flags set, long before the test's own bound.
func TestHTTPStalledConnections(t *testing.T) {
	const (
		conns   = 300
		timeout = 1 * time.Second
		bound   = 20 * time.Second // the test gives up on a connection after this
	)
	addr := startHTTP(t, "-read-header-timeout", timeout.String(), "-read-timeout", timeout.String(),
		"-write-timeout", (2 * timeout).String(), "-idle-timeout", timeout.String())
	start := time.Now()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		closed = map[string]int{}
		slow   []string
	)
	for i := range conns {
		k := stalls[i%len(stalls)]
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := io.WriteString(c, k.send); err != nil {
			t.Fatalf("%s %d: write: %v", k.name, i, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(bound))
			r := bufio.NewReader(c)
			if k.full {
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					mu.Lock()
					slow = append(slow, fmt.Sprintf("%s %d: no response: %v", k.name, i, err))
					mu.Unlock()
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			_, err := io.Copy(io.Discard, r) // until the server closes, or the bound
			var ne net.Error
			mu.Lock()
			defer mu.Unlock()
			if errors.As(err, &ne) && ne.Timeout() {
				slow = append(slow, fmt.Sprintf("%s %d: still open after %v", k.name, i, bound))
				return
			}
			closed[k.name]++
		}()
	}
	wg.Wait()
	took := time.Since(start)
	for _, s := range slow {
		t.Error(s)
	}
	for _, k := range stalls {
		if got, want := closed[k.name], conns/len(stalls); got != want {
			t.Errorf("%s: the server closed %d connections, want %d", k.name, got, want)
		}
	}
	t.Logf("%d of %d stalled connections closed by the server within %v (timeouts %v)", conns-len(slow), conns, took.Round(time.Millisecond), timeout)
	if took > 10*timeout {
		t.Errorf("closing took %v, want about the timeouts (%v)", took, timeout)
	}
}

// mcpPost sends one JSON-RPC message over HTTP as bob, in session sid when not empty.
func mcpPost(t *testing.T, addr, sid, msg string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok-bob")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// With -http, an abandoned MCP session is closed after -session-timeout: a session
// used within the timeout answers, one left alone longer is gone (404).
func TestHTTPSessionTimeout(t *testing.T) {
	const timeout = 2 * time.Second // wide: a loaded CI machine takes hundreds of ms per request under -race
	addr := startHTTP(t, "-session-timeout", timeout.String())
	open := func() string {
		resp := mcpPost(t, addr, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
		sid := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != http.StatusOK || sid == "" {
			t.Fatalf("initialize: status %d, session %q", resp.StatusCode, sid)
		}
		if resp := mcpPost(t, addr, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("initialized: status %d", resp.StatusCode)
		}
		return sid
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	live := open()
	for range 4 { // each request within the timeout keeps the session
		time.Sleep(timeout / 4)
		if resp := mcpPost(t, addr, live, list); resp.StatusCode != http.StatusOK {
			t.Fatalf("a session in use: tools/list status %d, want 200", resp.StatusCode)
		}
	}
	gone := open()
	time.Sleep(5 * timeout / 2) // a request before the timeout would renew the session
	if resp := mcpPost(t, addr, gone, list); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an abandoned session answers status %d after %v, want 404 (closed)", resp.StatusCode, 5*timeout/2)
	}
}

// The timeout flags take durations; a negative one is refused.
func TestTimeoutFlags(t *testing.T) {
	c, err := parseFlags([]string{"-read-timeout", "3s", "-session-timeout", "0"}, io.Discard)
	if err != nil || c.limits.read != 3*time.Second || c.limits.session != 0 || c.limits.readHeader != 10*time.Second {
		t.Errorf("parseFlags = %+v, %v; want read 3s, session 0, read header the default 10s", c, err)
	}
	for _, f := range []string{"-read-header-timeout", "-read-timeout", "-write-timeout", "-idle-timeout", "-session-timeout"} {
		t.Run(f, func(t *testing.T) {
			if _, err := parseFlags([]string{f, "-1s"}, io.Discard); err == nil {
				t.Errorf("%s -1s: accepted, want refused", f)
			}
		})
	}
}
