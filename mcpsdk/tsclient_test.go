package mcpsdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/mcpsdk"
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

// serveStdio serves alice's session of the test catalog on stdin/stdout, the host's
// tools/list ttlMs set to hostTTL.
func serveStdio() error {
	f, err := buildFixture(fixtureOptions{enabled: true, principal: alice, tool: "search_tools", setCacheable: setTTL(hostTTL, "")})
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
	ListCache     []tsCacheHints `json:"listCache"`     // per tools/list page
	DiscoverCache []tsCacheHints `json:"discoverCache"` // per discover page
}

// tsCacheHints are a result's SEP-2549 members as the TypeScript client received them.
type tsCacheHints struct {
	CacheScope *string `json:"cacheScope"`
	TTLMs      *int    `json:"ttlMs"`
}

func (h tsCacheHints) String() string {
	s, ttl := "absent", "absent"
	if h.CacheScope != nil {
		s = fmt.Sprintf("%q", *h.CacheScope)
	}
	if h.TTLMs != nil {
		ttl = fmt.Sprint(*h.TTLMs)
	}
	return "cacheScope " + s + ", ttlMs " + ttl
}

// is reports whether the hints are exactly scope and ttl.
func (h tsCacheHints) is(scope string, ttl int) bool {
	return h.CacheScope != nil && *h.CacheScope == scope && h.TTLMs != nil && *h.TTLMs == ttl
}

const tsScenario = `{"query":"weather","limit":3,
	"granted":{"name":"weather_get","arguments":{"city":"Oslo"}},
	"denied":{"name":"secrets_read","arguments":{"key":"k"}},
	"invalid":{"name":"weather_get","arguments":{"city":"x"}}}`

// SPEC VIS-3, DISC-1, DISC-3, PAGE-4, CALL-1, CALL-2, ERR-1: the official TypeScript
// SDK client (@modelcontextprotocol/sdk, installed by .ci/tsclient.sh) lists, walks
// discovery through client.request and calls, against the stdio server and the
// streamable HTTP server. Every tools/list page it receives says cacheScope "private"
// with the host's ttlMs (set by ServerOptions.SetCacheable), every discover page
// "private" and ttlMs 0.
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
		if len(res.ListCache) == 0 || len(res.DiscoverCache) != res.Pages {
			t.Errorf("TS client reported cache hints of %d list and %d discover pages", len(res.ListCache), len(res.DiscoverCache))
		}
		for i, h := range res.ListCache {
			if !h.is("private", hostTTL) {
				t.Errorf("TS tools/list page %d: %v, want cacheScope \"private\", ttlMs %d (the host's)", i+1, h, hostTTL)
			}
		}
		for i, h := range res.DiscoverCache {
			if !h.is("private", 0) {
				t.Errorf("TS discover page %d: %v, want cacheScope \"private\", ttlMs 0", i+1, h)
			}
		}
	}
	t.Run("stdio", func(t *testing.T) {
		check(t, run(t, "stdio", exe, `["-test.run=^$"]`, tsScenario))
	})
	t.Run("http", func(t *testing.T) {
		// The principal from the bearer token; the host's ttlMs as on stdio.
		hf := newFixture(t, fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal, tool: "search_tools", setCacheable: setTTL(hostTTL, "")})
		srv := httptest.NewServer(hf.httpHandler())
		t.Cleanup(srv.Close)
		check(t, run(t, "http", srv.URL, "tok-alice", tsScenario))
	})
}
