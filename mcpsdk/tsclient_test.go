package mcpsdk_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/internal/adaptertest"
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

// SPEC VIS-3, DISC-1, DISC-3, PAGE-4, CALL-1, CALL-2, ERR-1: the official TypeScript
// SDK client (@modelcontextprotocol/sdk, installed by .ci/tsclient.sh) lists, walks
// discovery through client.request and calls, against the stdio server and the
// streamable HTTP server. Every tools/list page it receives says cacheScope "private"
// with the host's ttlMs (set by ServerOptions.SetCacheable), every discover page
// "private" and ttlMs 0.
func TestTypeScriptClient(t *testing.T) {
	ts := adaptertest.NewTSClient(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// alice's expectations: the same in both modes.
	f := newFixture(t, fixtureOptions{enabled: true, principal: alice})
	list, _ := f.d.ListTools(context.Background(), alice)
	wantListed := append(slices.Clone(wantAliceTools), "search_tools")

	run := func(t *testing.T, args ...string) adaptertest.TSResult {
		return ts.Run(t, []string{stdioServerEnv + "=1"}, args...)
	}
	check := func(t *testing.T, res adaptertest.TSResult) {
		t.Helper()
		res.Check(t, wantListed, list.ContractDigest)
		for i, h := range res.ListCache {
			if !h.Is("private", hostTTL) {
				t.Errorf("TS tools/list page %d: %v, want cacheScope \"private\", ttlMs %d (the host's)", i+1, h, hostTTL)
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
		// The principal from the bearer token; the host's ttlMs as on stdio.
		hf := newFixture(t, fixtureOptions{enabled: true, principal2: mcpsdk.TokenInfoPrincipal, tool: "search_tools", setCacheable: setTTL(hostTTL, "")})
		srv := httptest.NewServer(hf.httpHandler())
		t.Cleanup(srv.Close)
		check(t, run(t, "http", srv.URL, "tok-alice", adaptertest.TSScenario))
	})
}
