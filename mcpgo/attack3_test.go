package mcpgo_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// SPEC FLAG-3, ERR-1, ERR-2 over streamable HTTP: with grant storage failing (its table
// missing, as the driver says), a tools/call of a tool, of the discovery tool, the
// discover method and tools/list each answer HTTP 503 with an application/json body holding the
// content-free grants_unavailable error, never the storage's text, and no handler
// runs; a refusal that is no 503 (tool_not_granted, with storage up) stays a JSON-RPC
// error in an HTTP 200. Failed before the front answered a call's 503 refusals with
// the error's status (they rode in an HTTP 200).
func TestAttack3StorageDownHTTP503(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools",
		reader: &grantstest.ErrReader{Err: fmt.Errorf("%w: no such table: tool_grants", grants.ErrUnavailable)}})
	srv := f.httpServer(t)
	h := &httpSession{t: t, url: srv.URL, token: "tok-alice"}
	h.initialize()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"` + canary + `"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"` + canary + `"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"` + discovery.DefaultMethod + `","params":{"query":"` + canary + `"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
	} {
		resp, body := h.post(msg, "")
		e := decodeError(t, body)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Content-Type") != "application/json" ||
			e == nil || e.Message != string(discovery.CodeGrantsUnavailable) || strings.Contains(string(body), "tool_grants") {
			t.Errorf("%.60s: %d %q %s, want 503 with the JSON grants_unavailable error", msg, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	if n := f.calls("weather_get"); n != 0 {
		t.Errorf("the handler ran %d times with storage down", n)
	}
	up := newFixture(t, fixtureOptions{enabled: true, tool: "search_tools"})
	h = &httpSession{t: t, url: up.httpServer(t).URL, token: "tok-bob"}
	h.initialize()
	resp, body := h.post(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"secrets_read","arguments":{}}}`, "")
	if e := decodeError(t, body); resp.StatusCode != http.StatusOK || e == nil || e.Message != string(discovery.CodeToolNotGranted) {
		t.Errorf("a denied call: %d %s, want tool_not_granted in an HTTP 200", resp.StatusCode, body)
	}
}

// visFixture is buildFixture's server (the test catalog registered with mcp-go), its
// catalog built with adaptertest.Toolset's toolsets and the
// Discoverer narrowing by vis.
func visFixture(t *testing.T, vis discovery.Visibility, enabled bool) *fixture {
	t.Helper()
	f := newFixture(t, fixtureOptions{enabled: enabled, tool: "search_tools"})
	cat, err := mcpgo.CatalogFromServer(f.server, &discovery.CatalogOptions{Toolset: adaptertest.Toolset})
	if err != nil {
		t.Fatal(err)
	}
	f.cat = cat
	f.d = discovery.New(&discovery.Options{Enabled: enabled, Catalog: cat, Grants: f.reads, Visibility: vis})
	f.a = mcpgo.New(f.d, &mcpgo.Options{DiscoveryTool: "search_tools"})
	return f
}

// SPEC VIS-1, VIS-2 through mcp-go's streamable HTTP server, whose calls the front
// decides from the raw message: each narrowing withholds the same tools from
// tools/list, from the discover method (each tool queried by its name), from the
// discovery tool and from calls; a withheld tool's call is tool_not_granted whatever
// its arguments (mistyped, duplicate keys, nested past the CALL-5 depth) and never
// runs; a served tool runs. Breaks when the front's call decision or mcp-go's list
// is narrowed differently from discover.
func TestAttack3VisibilityOnEveryPath(t *testing.T) {
	for _, c := range adaptertest.VisibilityCases {
		t.Run(c.Name, func(t *testing.T) {
			f := visFixture(t, c.Vis, true)
			h := &httpSession{t: t, url: f.httpServer(t).URL, token: "tok-alice"}
			h.initialize()
			resp, body := h.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "")
			var list struct {
				Result struct {
					Tools []struct{ Name string } `json:"tools"`
				} `json:"result"`
			}
			json.Unmarshal(httpAnswer(resp, body), &list)
			var listed []string
			for _, tl := range list.Result.Tools {
				listed = append(listed, tl.Name)
			}
			want := append(slices.Clone(c.Served), "search_tools")
			slices.Sort(want)
			slices.Sort(listed)
			if !slices.Equal(listed, want) {
				t.Errorf("tools/list: %v, want %v", listed, want)
			}
			for i, name := range []string{"weather_get", "weather_forecast", "deploy_model", "weather_station_3", "secrets_read"} {
				served := slices.Contains(c.Served, name)
				_, body := h.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"multillm.tools.discover","params":{"query":%q}}`, 10+i, name), "")
				if strings.Contains(string(body), `"name":"`+name+`"`) != served {
					t.Errorf("discover %q: served %v, page %.200s", name, served, body)
				}
				_, body = h.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":%q}}}`, 20+i, name), "")
				if strings.Contains(string(body), `\"name\":\"`+name+`\"`) && !served {
					t.Errorf("the discovery tool served withheld %s", name)
				}
				if served {
					continue
				}
				for j, args := range []string{`{"city":"Oslo"}`, `{"city":5,"days":"x"}`, `{"city":"a","city":"b"}`, `{"z":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, `"` + canary + `"`} {
					resp, body := h.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, 100+10*i+j, name, args), "")
					if e := decodeError(t, httpAnswer(resp, body)); e == nil || e.Message != string(discovery.CodeToolNotGranted) {
						t.Errorf("call of withheld %s with %s: %s, want tool_not_granted", name, args, body)
					}
				}
				if n := f.calls(name); n != 0 {
					t.Errorf("withheld %s ran %d times", name, n)
				}
			}
			valid := map[string]string{"weather_get": `{"city":"Oslo"}`, "deploy_model": `{"model":"m"}`}
			for _, name := range c.Served {
				args := valid[name]
				if args == "" {
					args = `{"station":"s"}`
				}
				h.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":900,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, name, args), "")
				if f.calls(name) != 1 {
					t.Errorf("served %s did not run", name)
				}
			}
		})
	}
}

// SPEC FLAG-2 through mcp-go's streamable HTTP server: with the switch off, the adapter's
// Handler in front changes no byte: status, headers (but Date) and bodies answer as
// the same mcp-go server alone, for results, mcp-go's own errors (an unknown tool,
// malformed JSON, an unknown method: the discover method is one), a tool alice is not
// granted, and the grant store is never read. Breaks when anything of the front stays
// on while off.
func TestAttack3SwitchOffHTTPBytes(t *testing.T) {
	off := visFixture(t, discovery.Visibility{ReadOnly: true}, false)
	bare := newFixture(t, fixtureOptions{enabled: false})
	offURL := off.httpServer(t).URL
	bareSrv := httptest.NewServer(bearer(server.NewStreamableHTTPServer(bare.server)))
	t.Cleanup(bareSrv.Close)
	msgs := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"a3","version":"0"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"secrets_read","arguments":{"key":"k"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"multillm.tools.discover","params":{"query":"weather"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"a","city":"b"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"weather"}}}`,
		`{"jsonrpc":"2.0","id":`,
		`{"jsonrpc":"2.0","id":8,"method":"ping"}`,
	}
	var offSession, bareSession string
	for i, msg := range msgs {
		g := rawPost(t, offURL, &offSession, msg)
		w := rawPost(t, bareSrv.URL, &bareSession, msg)
		if g != w {
			t.Errorf("%.60s:\nswitch off: %s\nbare:       %s", msg, g, w)
		}
		if i == 1 && !strings.Contains(g, `"tools":[`) {
			t.Fatalf("tools/list: %s, want a result: the comparison would see errors only", g)
		}
	}
	if n := off.reads.n.Load(); n != 0 {
		t.Errorf("%d grant reads while off", n)
	}
}

// rawPost posts msg in the session *session (learnt from the first answer naming one)
// and returns status, headers but Date and the session id, and body as one text.
func rawPost(t *testing.T, url string, session *string, msg string) string {
	t.Helper()
	resp, body := adaptertest.MCPPost{URL: url, Token: "tok-alice", Session: *session, Version: "2025-06-18"}.Do(t, msg)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && *session == "" {
		*session = sid
	}
	var h []string
	for k, vs := range resp.Header {
		if k != "Date" && k != "Mcp-Session-Id" {
			h = append(h, k+": "+strings.Join(vs, ","))
		}
	}
	slices.Sort(h)
	return fmt.Sprint(resp.StatusCode, h, string(body))
}
