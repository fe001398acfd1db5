package mcpgo_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/internal/adaptertest"
)

// SPEC VIS-3, DISC-1, DISC-3, PAGE-4, CALL-1, CALL-2, ERR-1: the official TypeScript
// SDK client (@modelcontextprotocol/sdk, installed by .ci/tsclient.sh) lists, walks
// discovery through client.request and calls, against this package's stdio server (a
// subprocess, ServeStdio) and its streamable HTTP server; every tools/list and discover
// page it receives says cacheScope "private".
func TestTypeScriptClient(t *testing.T) {
	ts := adaptertest.NewTSClient(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	list, _ := f.d.ListTools(context.Background(), alice)
	run := func(t *testing.T, args ...string) adaptertest.TSResult {
		return ts.Run(t, []string{stdioServerEnv + "=1"}, args...)
	}
	check := func(t *testing.T, res adaptertest.TSResult) {
		t.Helper()
		res.Check(t, append(slices.Clone(wantAliceTools), "search_tools"), list.ContractDigest)
		for i, h := range res.ListCache {
			if h.CacheScope == nil || *h.CacheScope != "private" {
				t.Errorf("TS tools/list page %d: cacheScope %v, want \"private\"", i+1, h.CacheScope)
			}
		}
		for i, h := range res.DiscoverCache {
			if !h.Is("private", 0) {
				t.Errorf("TS discover page %d: %v, want cacheScope \"private\", ttlMs 0", i+1, h)
			}
		}
	}
	t.Run("stdio", func(t *testing.T) {
		check(t, run(t, "stdio", exe, `["-test.run=^$"]`, adaptertest.TSScenario))
	})
	t.Run("http", func(t *testing.T) {
		check(t, run(t, "http", f.httpServer(t).URL, "tok-alice", adaptertest.TSScenario))
	})
}
