// Package adaptertest holds what the tests of the MCP adapters (mcpsdk and mcpgo)
// share: the test catalog and its grant rows, the TypeScript SDK client's scenario and
// the checks both adapters must pass, the discovery tool's request ids of every length
// and the check of their answers (toolid.go, with the adapters' one difference,
// IDWriting), the requests answered without a host's tool and the check of their
// answers to long ids (longid.go, with the test catalog's cases), the hostile messages
// both must answer alike and the pages both must mark private (edges.go), and the
// building of a program in a module outside the repository (the README's programs).
// Only tests import it.
package adaptertest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// The test principals: alice reads the weather and deploys, bob reads the weather.
var (
	Alice = grants.Principal{ID: "alice", Scopes: []string{"weather:read", "deploy:write"}}
	Bob   = grants.Principal{ID: "bob", Scopes: []string{"weather:read"}}
)

// AliceTools are alice's authorised tools of Tools under Rows, by name.
var AliceTools = []string{"deploy_model", "weather_forecast", "weather_get", "weather_station_0",
	"weather_station_1", "weather_station_2", "weather_station_3", "weather_station_4", "weather_station_5"}

// Tools is the test catalog: a few weather and deployment tools, and fillers so that
// discovery pages. One description holds <, > and & to show that no HTML escaping
// happens.
func Tools() []json.RawMessage {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"weather_get","title":"Current weather","description":"Get the current weather for a city <b>now</b> & here.",
			"inputSchema":{"type":"object","properties":{"city":{"type":"string","minLength":2,"maxLength":40}},"required":["city"],"additionalProperties":false},
			"annotations":{"readOnlyHint":true}}`),
		json.RawMessage(`{"name":"weather_forecast","description":"Forecast the weather of a city for the next days.",
			"inputSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":10}},"required":["city"]}}`),
		json.RawMessage(`{"name":"deploy_model","description":"Deploy a model to production.",
			"inputSchema":{"type":"object","properties":{"model":{"type":"string","pattern":"^[a-z]+$"}},"required":["model"]}}`),
		json.RawMessage(`{"name":"secrets_read","description":"Read a secret of the weather station.",
			"inputSchema":{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}}`),
	}
	for i := range 6 {
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":"weather_station_%d","description":"Read weather station number %d.",
			"inputSchema":{"type":"object","properties":{"station":{"type":"string"}}}}`, i, i)))
	}
	return tools
}

// Rows grants the weather tools behind weather:read and deploy_model behind
// deploy:write; secrets_read has no row and is never granted.
func Rows() []grants.Row {
	rows := []grants.Row{
		{Principal: "*", Tool: "weather_get", Scopes: []string{"weather:read"}, Effect: grants.Allow, Revision: 1},
		{Principal: "*", Tool: "weather_forecast", Scopes: []string{"weather:read"}, Effect: grants.Allow, Revision: 1},
		{Principal: "*", Tool: "deploy_model", Scopes: []string{"deploy:write"}, Effect: grants.Allow, Revision: 1},
	}
	for i := range 6 {
		rows = append(rows, grants.Row{Principal: "*", Tool: fmt.Sprintf("weather_station_%d", i), Scopes: []string{"weather:read"}, Effect: grants.Allow, Revision: 1})
	}
	return rows
}

// READMEProgram returns the program of ../README.md (read from a package directory)
// that the text note follows: the ```go block beginning with "package main".
func READMEProgram(t testing.TB, note string) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for rest := strings.ReplaceAll(string(data), "\r\n", "\n"); ; { // a checkout with core.autocrlf
		i := strings.Index(rest, "```go\npackage main\n")
		if i < 0 {
			t.Fatalf("README.md has no Go program block followed by %q", note)
		}
		rest = rest[i+len("```go\n"):]
		end := strings.Index(rest, "\n```\n")
		if end >= 0 && strings.HasPrefix(strings.TrimSpace(rest[end+len("\n```\n"):]), note) {
			return rest[:end+1]
		}
	}
}

// GlueLines counts the program's lines that are neither blank nor comments, outside
// the tool itself: the top-level declarations beginning with one of tool, up to their
// closing "}".
func GlueLines(program string, tool ...string) int {
	n, inTool := 0, false
	for _, l := range strings.Split(program, "\n") {
		switch {
		case startsAny(l, tool):
			inTool = true
		case inTool && l == "}":
			inTool = false
		case inTool:
		case strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "//"):
		default:
			n++
		}
	}
	return n
}

func startsAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// BuildModule writes files (name: text) and a go.mod of module path module into dir,
// requiring this library (replaced by the checkout at root) and require ("path
// version"), runs go mod tidy and builds the binary bin in dir; it returns the binary's
// path.
func BuildModule(t testing.TB, root, dir, module, require string, files map[string]string, bin string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod := "module " + module + "\n\ngo 1.26.0\n\nrequire (\n" +
		"\tgithub.com/deferredtools/deferredtools v0.0.0-00010101000000-000000000000\n" +
		"\t" + require + "\n)\n\n" +
		"replace github.com/deferredtools/deferredtools => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, bin)
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", path, "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in the new module: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return path
}
