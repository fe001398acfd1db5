package mcpgo_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
)

// readmeNote is the note that follows the README's mcp-go program.
const readmeNote = "(this is the program `TestREADMEProgram` in mcpgo/readme_test.go"

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
	program := adaptertest.READMEProgram(t, readmeNote)
	if n := adaptertest.GlueLines(program, "func weather("); n >= 40 {
		t.Errorf("the README's mcp-go program has %d lines of glue, want under 40", n)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := adaptertest.BuildModule(t, root, t.TempDir(), "example.com/weather", "github.com/mark3labs/mcp-go v1.2.1",
		map[string]string{"main.go": program}, "weather")
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
