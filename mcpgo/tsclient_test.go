package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// tsResult is what the TypeScript client script prints (mcpsdk/testdata/tsclient,
// shared with the mcpsdk adapter's test: one npm install serves both).
type tsResult struct {
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
	ListCache []struct {
		CacheScope *string `json:"cacheScope"`
	} `json:"listCache"`
	DiscoverCache []struct {
		CacheScope *string `json:"cacheScope"`
		TTLMs      *int    `json:"ttlMs"`
	} `json:"discoverCache"`
}

const tsScenario = `{"query":"weather","limit":3,
	"granted":{"name":"weather_get","arguments":{"city":"Oslo"}},
	"denied":{"name":"secrets_read","arguments":{"key":"k"}},
	"invalid":{"name":"weather_get","arguments":{"city":"x"}}}`

// SPEC VIS-3, DISC-1, DISC-3, PAGE-4, CALL-1, CALL-2, ERR-1: the official TypeScript
// SDK client (@modelcontextprotocol/sdk, installed by .ci/tsclient.sh) lists, walks
// discovery through client.request and calls, against this package's stdio server (a
// subprocess, ServeStdio) and its streamable HTTP server; every tools/list and discover
// page it receives says cacheScope "private".
func TestTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK client test needs Node.js 20")
	}
	dir, _ := filepath.Abs(filepath.Join("..", "mcpsdk", "testdata", "tsclient"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("mcpsdk/testdata/tsclient/node_modules is missing: run .ci/tsclient.sh (npm ci) first")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	list, _ := f.d.ListTools(context.Background(), alice)
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
		if want := append(slices.Clone(wantAliceTools), "search_tools"); !slices.Equal(res.Listed, want) {
			t.Errorf("TS listTools = %v, want %v", res.Listed, want)
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
			if h.CacheScope == nil || *h.CacheScope != "private" {
				t.Errorf("TS tools/list page %d: cacheScope %v, want \"private\"", i+1, h.CacheScope)
			}
		}
		for i, h := range res.DiscoverCache {
			if h.CacheScope == nil || *h.CacheScope != "private" || h.TTLMs == nil || *h.TTLMs != 0 {
				t.Errorf("TS discover page %d: %+v, want cacheScope \"private\", ttlMs 0", i+1, h)
			}
		}
	}
	t.Run("stdio", func(t *testing.T) {
		check(t, run(t, "stdio", exe, `["-test.run=^$"]`, tsScenario))
	})
	t.Run("http", func(t *testing.T) {
		check(t, run(t, "http", f.httpServer(t).URL, "tok-alice", tsScenario))
	})
}
