package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/examples/internal/demo"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds the example once per test run with go build.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "mcpserver-test")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "mcpserver")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func command(t *testing.T, enabled bool, args ...string) *exec.Cmd {
	cmd := exec.Command(binary(t), args...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(s string) bool { return strings.HasPrefix(s, discovery.SwitchVariable+"=") })
	if enabled {
		cmd.Env = append(cmd.Env, discovery.SwitchVariable+"=true")
	}
	return cmd
}

type discoverParams struct {
	mcp.ParamsBase
	Query  string `json:"query"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

type discoverResult struct {
	mcp.ResultBase
	Tools      []json.RawMessage `json:"tools"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// connect starts the example as a stdio subprocess and connects the go-sdk client.
func connect(t *testing.T, cmd *exec.Cmd) *mcp.ClientSession {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "example-test", Version: "v0"}, nil)
	if err := mcp.AddSendingCustomMethod[*discoverParams, *discoverResult](c, discovery.DefaultMethod); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// demoDiscoverer answers what the example should: the demo catalog and grants.
func demoDiscoverer(t *testing.T) *discovery.Discoverer {
	cat, err := discovery.NewCatalog(demo.Tools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := grants.NewMemory()
	for _, r := range demo.Rows() {
		if _, err := m.Put(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	return discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: m})
}

func names(t *testing.T, defs []json.RawMessage) []string {
	var out []string
	for _, d := range defs {
		var v struct{ Name string }
		if err := json.Unmarshal(d, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.Name)
	}
	return out
}

// SPEC VIS-3, DISC-1, DISC-3, PAGE-4, CALL-1, CALL-2, ERR-1, ERR-2: the go-sdk client
// against the example over a real stdio subprocess, switch on.
func TestStdioSubprocess(t *testing.T) {
	ctx := context.Background()
	d := demoDiscoverer(t)
	cs := connect(t, command(t, true, "-principal", demo.Bob.ID, "-scopes", strings.Join(demo.Bob.Scopes, ",")))
	if got := cs.InitializeResult().ServerInfo.Name; got != "deferredtools-mcpserver" {
		t.Errorf("initialize: server %q", got)
	}

	want, err := d.ListTools(ctx, demo.Bob)
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tool := range list.Tools {
		listed = append(listed, tool.Name)
	}
	wantNames := append(names(t, want.Tools), discovery.DefaultToolName)
	if !slices.Equal(listed, wantNames) {
		t.Errorf("bob's tools/list = %v\nwant %v", listed, wantNames)
	}
	if len(listed) >= len(demo.Tools()) {
		t.Errorf("tools/list is not narrowed: %d tools of %d", len(listed), len(demo.Tools()))
	}
	if list.Meta["contract_digest"] != want.ContractDigest {
		t.Errorf("contract_digest %v, want %s", list.Meta["contract_digest"], want.ContractDigest)
	}

	// Discover to the end.
	p := &discoverParams{Query: "billing invoice usage", Limit: 2}
	var found []string
	for pages := 0; ; pages++ {
		res, err := mcp.CallCustomMethod[*discoverParams, *discoverResult](ctx, cs, discovery.DefaultMethod, p)
		if err != nil {
			t.Fatalf("discover: %v", err)
		}
		found = append(found, names(t, res.Tools)...)
		if res.NextCursor == "" {
			break
		}
		if pages > 30 {
			t.Fatal("discovery does not end")
		}
		p.Cursor = res.NextCursor
	}
	wantFound := 0
	for cursor := ""; ; {
		r, err := d.Discover(ctx, demo.Bob, discovery.Request{Query: "billing invoice usage", Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		wantFound += len(r.Tools)
		if cursor = r.NextCursor; cursor == "" {
			break
		}
	}
	if len(found) != wantFound || !slices.Contains(found, "billing_set_budget") {
		t.Errorf("discovered %v (%d), want %d tools including billing_set_budget", found, len(found), wantFound)
	}

	// A granted call answers a text naming the tool.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "billing_get_usage", Arguments: map[string]any{"from": "2026-01-01", "to": "2026-01-31"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "billing_get_usage") {
		t.Errorf("granted call = %+v, %v", res, err)
	}
	// A denied call: bob's own deny row (and a tool he lacks the scope for).
	for _, tool := range []string{"deployments_get_logs", "deploy_model", "no_such_tool"} {
		t.Run(tool, func(t *testing.T) {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"x": 1}})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Message != "tool_not_granted" || string(je.Data) != `{"error":"tool_not_granted","status":403}` {
				t.Errorf("call %s = %v, want tool_not_granted 403", tool, err)
			}
		})
	}
	// Invalid arguments: an isError result naming the keyword, never the value.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "billing_get_invoice", Arguments: map[string]any{"invoice_id": "SECRET-42"}})
	if err != nil || !res.IsError {
		t.Fatalf("invalid arguments = %+v, %v; want isError", res, err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"pattern"`) || strings.Contains(text, "SECRET-42") {
		t.Errorf("invalid arguments text %q: want the keyword pattern and no value", text)
	}
}

// SPEC FLAG-2: with DEFERRED_TOOLS_ENABLED unset the example is a plain go-sdk server:
// every tool listed, no discovery tool, the discover method -32601, every call runs.
func TestStdioSubprocessSwitchOff(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, command(t, false, "-principal", demo.Bob.ID, "-scopes", strings.Join(demo.Bob.Scopes, ",")))
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(demo.Tools()) || list.Meta["contract_digest"] != nil {
		t.Errorf("switch off: %d tools listed (want all %d), _meta %v", len(list.Tools), len(demo.Tools()), list.Meta)
	}
	_, err = mcp.CallCustomMethod[*discoverParams, *discoverResult](ctx, cs, discovery.DefaultMethod, &discoverParams{Query: "x"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("switch off: discover = %v, want -32601", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deployments_get_logs", Arguments: map[string]any{"name": "prod"}})
	if err != nil || res.IsError {
		t.Errorf("switch off: bob's denied tool = %+v, %v; want it to run", res, err)
	}
}

// SPEC PAGE-1: raw JSON-RPC lines on the subprocess's stdin: every discover line the
// server writes is at most 65,536 bytes, with a long id too.
func TestStdioRawLines(t *testing.T) {
	cmd := command(t, true)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	r := bufio.NewReaderSize(stdout, 1<<20)
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	recv := func() []byte {
		b, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return bytes.TrimSuffix(b, []byte("\n"))
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	recv()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	id := `"` + strings.Repeat("x", 300) + `"`
	cursor, walked := "", 0
	for page := 0; page < 50; page++ {
		params := `{"query":"model dataset deployment training","limit":16`
		if cursor != "" {
			params += `,"cursor":"` + cursor + `"`
		}
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"multillm.tools.discover","params":` + params + `}}`)
		line := recv()
		if len(line) > discovery.MaxResponseBytes {
			t.Fatalf("page %d: %d bytes", page, len(line))
		}
		var res struct {
			ID     string `json:"id"`
			Result struct {
				Tools      []json.RawMessage `json:"tools"`
				NextCursor string            `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &res); err != nil || res.ID != strings.Repeat("x", 300) {
			t.Fatalf("page %d: %.300s", page, line)
		}
		walked += len(res.Result.Tools)
		if cursor = res.Result.NextCursor; cursor == "" {
			break
		}
	}
	if walked == 0 {
		t.Error("discovery found nothing")
	}
}

// The -catalog and -grants files, and flag errors.
func TestFlags(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	catalog := filepath.Join(dir, "catalog.json")
	os.WriteFile(catalog, []byte(`[{"name":"echo","description":"Echo a word.","inputSchema":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}},
		{"name":"hidden","description":"Hidden.","inputSchema":{"type":"object"}}]`), 0o600)
	rows := filepath.Join(dir, "grants.json")
	os.WriteFile(rows, []byte(`[{"principal":"carol","tool":"echo","scopes":["s"],"effect":"allow","revision":1}]`), 0o600)
	cs := connect(t, command(t, true, "-catalog", catalog, "-grants", rows, "-principal", "carol", "-scopes", "s", "-discovery-tool", ""))
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != 1 || list.Tools[0].Name != "echo" {
		t.Fatalf("carol's list = %+v, %v; want echo alone", list, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"word": "hi"}})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "echo") {
		t.Errorf("echo = %+v, %v", res, err)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-db", "postgres://x"}, "sqlite:PATH"},
		{[]string{"-db", "sqlite:" + filepath.Join(dir, "no-such-dir", "g.db")}, "-db"},
		{[]string{"-http", "127.0.0.1:0"}, "-tokens"},
		{[]string{"-catalog", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"-grants", catalog}, "-grants"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := command(t, true, c.args...)
			cmd.Stderr = &stderr
			cmd.Stdin = strings.NewReader("")
			if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("mcpserver %v: err %v, stderr %q; want a failure naming %q", c.args, err, stderr.String(), c.want)
			}
		})
	}
}

// The HTTP mode: bearer tokens from -tokens decide the principal.
func TestHTTPMode(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.json")
	os.WriteFile(tokens, []byte(`{"tok-bob":{"principal":"bob","scopes":["registry:read","billing:admin"]}}`), 0o600)
	cmd := command(t, true, "-http", "127.0.0.1:0", "-tokens", tokens)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`listening on (http://\S+)`)
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			if m := re.FindStringSubmatch(s.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-addr:
	case <-time.After(20 * time.Second):
		t.Fatal("the HTTP server did not start")
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", resp.StatusCode)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, nil)
	mcp.AddSendingCustomMethod[*discoverParams, *discoverResult](c, discovery.DefaultMethod)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer("tok-bob")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	want, _ := demoDiscoverer(t).ListTools(ctx, demo.Bob)
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != len(want.Tools)+1 || list.Meta["contract_digest"] != want.ContractDigest {
		t.Fatalf("bob's list over HTTP: %d tools (want %d), %v", len(list.Tools), len(want.Tools)+1, err)
	}
	res, err := mcp.CallCustomMethod[*discoverParams, *discoverResult](ctx, cs, discovery.DefaultMethod, &discoverParams{Query: "budget"})
	if err != nil || !slices.Contains(names(t, res.Tools), "billing_set_budget") {
		t.Errorf("discover over HTTP = %v, %v", res, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deployments_get_logs", Arguments: map[string]any{}}); err == nil {
		t.Error("bob's denied tool ran over HTTP")
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// SPEC GRANT-3, CALL-1: -db sqlite:PATH migrates a new database seeded with the demo's
// compatibility rows, and a grant changed in the database while the server runs
// decides the very next call.
func TestDBMode(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "grants.db")
	cs := connect(t, command(t, true, "-db", "sqlite:"+path))
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tool := range list.Tools {
		listed = append(listed, tool.Name)
	}
	if !slices.Contains(listed, "deployments_get_logs") || slices.Contains(listed, "billing_set_budget") {
		t.Fatalf("alice's list from the migrated database = %v", listed)
	}
	args := map[string]any{"name": "prod"}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deployments_get_logs", Arguments: args}); err != nil || res.IsError {
		t.Fatalf("granted call = %+v, %v", res, err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := sqlstore.New(db, sqlstore.SQLite)
	if _, err := store.Put(ctx, grants.Row{Principal: demo.Alice.ID, Tool: "deployments_get_logs", Effect: grants.Deny, Revision: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deployments_get_logs", Arguments: args})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != "tool_not_granted" {
		t.Errorf("call after the database denied it = %v, want tool_not_granted", err)
	}
}
