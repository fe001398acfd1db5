package adaptertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TSResult is what the TypeScript client script (mcpsdk/testdata/tsclient/client.mjs,
// one npm install for both adapters) prints.
type TSResult struct {
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
	ListCache     []TSCacheHints `json:"listCache"`     // per tools/list page
	DiscoverCache []TSCacheHints `json:"discoverCache"` // per discover page
}

// TSCacheHints are a result's SEP-2549 members as the TypeScript client received them.
type TSCacheHints struct {
	CacheScope *string `json:"cacheScope"`
	TTLMs      *int    `json:"ttlMs"`
}

func (h TSCacheHints) String() string {
	s, ttl := "absent", "absent"
	if h.CacheScope != nil {
		s = fmt.Sprintf("%q", *h.CacheScope)
	}
	if h.TTLMs != nil {
		ttl = fmt.Sprint(*h.TTLMs)
	}
	return "cacheScope " + s + ", ttlMs " + ttl
}

// Is reports whether the hints are exactly scope and ttl.
func (h TSCacheHints) Is(scope string, ttl int) bool {
	return h.CacheScope != nil && *h.CacheScope == scope && h.TTLMs != nil && *h.TTLMs == ttl
}

// TSScenario is the scenario client.mjs runs as alice: a discovery walk of three tools
// a page, a granted call, a denied one and one with invalid arguments.
const TSScenario = `{"query":"weather","limit":3,
	"granted":{"name":"weather_get","arguments":{"city":"Oslo"}},
	"denied":{"name":"secrets_read","arguments":{"key":"k"}},
	"invalid":{"name":"weather_get","arguments":{"city":"x"}}}`

// A TSClient runs client.mjs with Node.js.
type TSClient struct {
	node, dir string
}

// NewTSClient returns the client of ../mcpsdk/testdata/tsclient (relative to a package
// directory), or skips the test, saying why, when Node.js or the installed SDK is
// missing.
func NewTSClient(t testing.TB) *TSClient {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK client test needs Node.js 20")
	}
	dir, _ := filepath.Abs(filepath.Join("..", "mcpsdk", "testdata", "tsclient"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("mcpsdk/testdata/tsclient/node_modules is missing: run .ci/tsclient.sh (npm ci) first")
	}
	return &TSClient{node: node, dir: dir}
}

// Run runs client.mjs with args and the extra environment variables env, within 60 s,
// and returns what it printed.
func (c *TSClient) Run(t testing.TB, env []string, args ...string) TSResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.node, append([]string{"client.mjs"}, args...)...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs %s: %v\nstderr:\n%s", args[0], err, stderr.String())
	}
	var res TSResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("client output %q: %v\nstderr:\n%s", stdout.String(), err, stderr.String())
	}
	return res
}

// Check checks what the client saw of TSScenario against alice's session, whatever
// the adapter: tools/list names listed, both digests are contract, discovery walked
// her weather tools in 3 pages, the granted call ran, the denied one answered
// -32000 tool_not_granted 403, the invalid one an error result naming minLength, and
// the client reported the cache hints of every page. The hints' values are the
// caller's to check.
func (res *TSResult) Check(t testing.TB, listed []string, contract string) {
	t.Helper()
	if !slices.Equal(res.Listed, listed) {
		t.Errorf("TS listTools = %v, want %v", res.Listed, listed)
	}
	if res.ListDigest != contract || res.DiscoverDigest != contract {
		t.Errorf("digests: list %q, discover %q, want %q", res.ListDigest, res.DiscoverDigest, contract)
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
}
