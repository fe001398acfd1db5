package mcpgo_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/deferredtools/deferredtools/discovery"
)

// readmeNote is the note that follows the README's mcp-go program.
const readmeNote = "(this is the program `TestREADMEProgram` in mcpgo/readme_test.go"

// readmeProgram returns the README's mcp-go server program: the ```go block beginning
// with "package main" that readmeNote follows.
func readmeProgram(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for rest := string(data); ; {
		i := strings.Index(rest, "```go\npackage main\n")
		if i < 0 {
			t.Fatalf("README.md has no Go program block followed by %q", readmeNote)
		}
		rest = rest[i+len("```go\n"):]
		end := strings.Index(rest, "\n```\n")
		if end >= 0 && strings.HasPrefix(strings.TrimSpace(rest[end+len("\n```\n"):]), readmeNote) {
			return rest[:end+1]
		}
	}
}

// glueLines counts the program's lines that are neither blank nor comments, outside
// the tool handler.
func glueLines(program string) int {
	n, inTool := 0, false
	for _, l := range strings.Split(program, "\n") {
		switch {
		case strings.HasPrefix(l, "func weather("):
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

// SPEC FLAG-2, VIS-3, DISC-1, CALL-1: the README's mcp-go server, copied into a new
// module outside the repository whose go.mod requires only the library (replaced by
// this checkout) and mcp-go, builds with under 40 lines of glue and serves over stdio,
// to mcp-go's own client, what the README says: with the switch on, alice lists
// get_weather and the discovery tool, discovers get_weather and is refused
// delete_city with tool_not_granted; with it off she lists and calls both.
func TestREADMEProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module outside the repository")
	}
	program := readmeProgram(t)
	if n := glueLines(program); n >= 40 {
		t.Errorf("the README's mcp-go program has %d lines of glue, want under 40", n)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/weather\n\ngo 1.26.0\n\nrequire (\n" +
		"\tgithub.com/deferredtools/deferredtools v0.0.0-00010101000000-000000000000\n" +
		"\tgithub.com/mark3labs/mcp-go v1.2.1\n)\n\n" +
		"replace github.com/deferredtools/deferredtools => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "weather")
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", bin, "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in the new module: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ctx := context.Background()
	connect := func(t *testing.T, enabled string) *client.Client {
		env := append(slices.DeleteFunc(os.Environ(), func(s string) bool {
			return strings.HasPrefix(s, discovery.SwitchVariable+"=")
		}), discovery.SwitchVariable+"="+enabled)
		c, err := client.NewStdioMCPClient(bin, env)
		if err != nil {
			t.Fatalf("starting the README's server: %v", err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		return c
	}
	listed := func(t *testing.T, c *client.Client) []string {
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		return names
	}
	call := func(c *client.Client, name string) (string, error) {
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: map[string]any{"city": "Oslo"}}})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) == 0 {
			return "", &json.UnsupportedValueError{Str: "an error result"}
		}
		return res.Content[0].(mcp.TextContent).Text, nil
	}

	t.Run("on", func(t *testing.T) {
		c := connect(t, "true")
		if got, want := listed(t, c), []string{"get_weather", "search_tools"}; !slices.Equal(got, want) {
			t.Errorf("tools/list = %v, want %v", got, want)
		}
		resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(7)),
			Method: discovery.DefaultMethod, Params: map[string]any{"query": "weather of a city"}})
		if err != nil || resp.Error != nil {
			t.Fatalf("discover: %v %+v", err, resp)
		}
		var page struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		if err := json.Unmarshal(resp.Result, &page); err != nil || len(page.Tools) != 1 || page.Tools[0].Name != "get_weather" {
			t.Errorf("discover answered %s (%v), want get_weather alone", resp.Result, err)
		}
		if got, err := call(c, "get_weather"); err != nil || got != "sunny in Oslo" {
			t.Errorf("get_weather = %q, %v", got, err)
		}
		if _, err := call(c, "delete_city"); err == nil || !strings.Contains(err.Error(), string(discovery.CodeToolNotGranted)) {
			t.Errorf("delete_city: %v, want tool_not_granted", err)
		}
	})
	t.Run("off", func(t *testing.T) {
		c := connect(t, "")
		if got, want := listed(t, c), []string{"delete_city", "get_weather"}; !slices.Equal(got, want) {
			t.Errorf("tools/list = %v, want %v", got, want)
		}
		if got, err := call(c, "delete_city"); err != nil || got != "sunny in Oslo" {
			t.Errorf("delete_city = %q, %v", got, err)
		}
	})
}
