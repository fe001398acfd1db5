package mcpsdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioServerEnv makes the test binary a stdio MCP server of the test catalog (the
// TypeScript test starts it as its subprocess).
const stdioServerEnv = "MCPSDK_TEST_STDIO_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(stdioServerEnv) == "1" {
		if err := serveStdio(); err != nil {
			fmt.Fprintln(os.Stderr, "stdio server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveStdio serves alice's session of the test catalog on stdin/stdout.
func serveStdio() error {
	f, err := buildFixture(fixtureOptions{enabled: true, principal: alice, tool: "search_tools"})
	if err != nil {
		return err
	}
	t := &mcp.IOTransport{Reader: os.Stdin, Writer: os.Stdout}
	err = f.server.Run(context.Background(), f.a.Transport(t))
	if err == io.EOF {
		return nil
	}
	return err
}

// tsResult is what client.mjs prints.
type tsResult struct {
	Server         string   `json:"server"`
	Listed         []string `json:"listed"`
	ListDigest     string   `json:"listDigest"`
	Discovered     []string `json:"discovered"`
	Pages          int      `json:"pages"`
	DiscoverDigest string   `json:"discoverDigest"`
	Granted        struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"granted"`
	Denied *struct {
		Code int `json:"code"`
		Data struct {
			Error  string `json:"error"`
			Status int    `json:"status"`
		} `json:"data"`
	} `json:"denied"`
	Invalid struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"invalid"`
}

const tsScenario = `{"query":"weather","limit":3,
	"granted":{"name":"weather_get","arguments":{"city":"Oslo"}},
	"denied":{"name":"secrets_read","arguments":{"key":"k"}},
	"invalid":{"name":"weather_get","arguments":{"city":"x"}}}`

// SPEC VIS-3, DISC-1, DISC-3, PAGE-4, CALL-1, CALL-2, ERR-1: the official TypeScript
// SDK client (@modelcontextprotocol/sdk, installed by .ci/tsclient.sh) lists, walks
// discovery through client.request and calls, against the stdio server and the
// streamable HTTP server.
func TestTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK client test needs Node.js 20")
	}
	dir, _ := filepath.Abs(filepath.Join("testdata", "tsclient"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("testdata/tsclient/node_modules is missing: run .ci/tsclient.sh (npm ci) first")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// alice's expectations: the same in both modes.
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice})
	list, _ := f.d.ListTools(context.Background(), alice)
	wantListed := append(slices.Clone(wantAliceTools), "search_tools")

	run := func(t *testing.T, args ...string) tsResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), stdioServerEnv+"=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("node client.mjs %s: %v\nstderr:\n%s", args[0], err, stderr.String())
		}
		var res tsResult
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("client output %q: %v\nstderr:\n%s", stdout.String(), err, stderr.String())
		}
		return res
	}
	check := func(t *testing.T, res tsResult) {
		t.Helper()
		if !slices.Equal(res.Listed, wantListed) {
			t.Errorf("TS listTools = %v, want %v", res.Listed, wantListed)
		}
		if res.ListDigest != list.ContractDigest || res.DiscoverDigest != list.ContractDigest {
			t.Errorf("digests: list %q, discover %q, want %q", res.ListDigest, res.DiscoverDigest, list.ContractDigest)
		}
		got := slices.Sorted(slices.Values(res.Discovered))
		want := []string{"weather_forecast", "weather_get", "weather_station_0", "weather_station_1",
			"weather_station_2", "weather_station_3", "weather_station_4", "weather_station_5"}
		if !slices.Equal(got, want) || res.Pages != 3 {
			t.Errorf("TS discover walked %v in %d pages, want %v in 3", res.Discovered, res.Pages, want)
		}
		if res.Granted.IsError || res.Granted.Text != "ran weather_get" {
			t.Errorf("TS granted call = %+v", res.Granted)
		}
		if res.Denied == nil || res.Denied.Code != -32000 || res.Denied.Data.Error != "tool_not_granted" || res.Denied.Data.Status != 403 {
			t.Errorf("TS denied call = %+v, want -32000 tool_not_granted 403", res.Denied)
		}
		if !res.Invalid.IsError || !bytes.Contains([]byte(res.Invalid.Text), []byte(`"minLength"`)) {
			t.Errorf("TS invalid call = %+v, want isError naming minLength", res.Invalid)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		check(t, run(t, "stdio", exe, `["-test.run=^$"]`, tsScenario))
	})
	t.Run("http", func(t *testing.T) {
		_, srv := httpServer(t, true) // the principal from the bearer token
		check(t, run(t, "http", srv.URL, "tok-alice", tsScenario))
	})
}
