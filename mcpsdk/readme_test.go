package mcpsdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/mcpsdk/mcpclient"
)

// readmeProgram returns the README's go-sdk server program: the ```go block that
// begins with "package main" and is followed by the note naming TestREADMEProgram.
func readmeProgram(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	const open, note = "```go\npackage main\n", "(this is the program `TestREADMEProgram`"
	i := strings.Index(s, open)
	if i < 0 {
		t.Fatal("README.md has no Go program block")
	}
	rest := s[i+len("```go\n"):]
	end := strings.Index(rest, "\n```\n")
	if end < 0 || !strings.HasPrefix(strings.TrimSpace(rest[end+len("\n```\n"):]), note) {
		t.Fatalf("README.md's program block is not followed by %q", note)
	}
	return rest[:end+1]
}

// glueLines counts the program's lines that are neither blank nor comments, outside
// the tool itself (its input type and handler).
func glueLines(program string) int {
	n, inTool := 0, false
	for _, l := range strings.Split(program, "\n") {
		switch {
		case strings.HasPrefix(l, "type cityIn ") || strings.HasPrefix(l, "func weather("):
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

// The README's go-sdk server, copied into a new module outside the repository whose
// go.mod only requires the library (replaced by this checkout) and the SDK, builds in
// under 40 lines of glue and serves over stdio what the README says: with the switch
// on, alice lists get_weather and the discovery tool, discovers get_weather and is
// refused delete_city with tool_not_granted; with it off she lists and calls both.
func TestREADMEProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module outside the repository")
	}
	program := readmeProgram(t)
	if n := glueLines(program); n >= 40 {
		t.Errorf("the README's program has %d lines of glue, want under 40", n)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/weather\n\ngo 1.26.0\n\nrequire (\n" +
		"\tgithub.com/deferredtools/deferredtools v0.0.0-00010101000000-000000000000\n" +
		"\tgithub.com/modelcontextprotocol/go-sdk v1.8.0\n)\n\n" +
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

	connect := func(t *testing.T, enabled string) *mcp.ClientSession {
		cmd := exec.Command(bin)
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(s string) bool {
			return strings.HasPrefix(s, discovery.SwitchVariable+"=")
		}), discovery.SwitchVariable+"="+enabled)
		client := mcp.NewClient(&mcp.Implementation{Name: "readme", Version: "v1"}, nil)
		if err := mcpclient.Register(client); err != nil {
			t.Fatal(err)
		}
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connecting to the README's server: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession, name string) (string, error) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"city": "Oslo"}})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) == 0 {
			b, _ := json.Marshal(res)
			return "", errors.New(string(b))
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}

	t.Run("on", func(t *testing.T) {
		cs := connect(t, "true")
		if got, want := listed(t, cs), []string{"get_weather", "search_tools"}; !slices.Equal(got, want) {
			t.Errorf("tools/list = %v, want %v", got, want)
		}
		page, err := mcpclient.Discover(context.Background(), cs, &mcpclient.DiscoverParams{Query: "weather of a city"})
		if err != nil || len(page.Tools) != 1 || !strings.HasPrefix(page.ContractDigest(), "sha256:") {
			t.Fatalf("discover: %v, %+v", err, page)
		}
		if name := toolName(t, page.Tools[0]); name != "get_weather" {
			t.Errorf("discovered %s, want get_weather", name)
		}
		if got, err := call(cs, "get_weather"); err != nil || got != "sunny in Oslo" {
			t.Errorf("get_weather = %q, %v", got, err)
		}
		_, err = call(cs, "delete_city")
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Message != string(discovery.CodeToolNotGranted) {
			t.Errorf("delete_city: %v, want tool_not_granted", err)
		}
	})
	t.Run("off", func(t *testing.T) {
		cs := connect(t, "")
		if got, want := listed(t, cs), []string{"delete_city", "get_weather"}; !slices.Equal(got, want) {
			t.Errorf("tools/list = %v, want %v", got, want)
		}
		if got, err := call(cs, "delete_city"); err != nil || got != "sunny in Oslo" {
			t.Errorf("delete_city = %q, %v", got, err)
		}
	})
}
