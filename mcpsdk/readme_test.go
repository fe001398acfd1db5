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
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk/mcpclient"
)

// readmeNote is the note that follows the README's go-sdk program.
const readmeNote = "(this is the program `TestREADMEProgram` in mcpsdk/readme_test.go"

// The README's go-sdk server, copied into a new module outside the repository whose
// go.mod only requires the library (replaced by this checkout) and the SDK, builds in
// at most 40 lines of glue (Install's error checked) and serves over stdio what the README says: with the switch
// on, alice lists get_weather and the discovery tool, discovers get_weather and is
// refused delete_city with tool_not_granted; with it off she lists and calls both.
func TestREADMEProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module outside the repository")
	}
	program := adaptertest.READMEProgram(t, readmeNote)
	if n := adaptertest.GlueLines(program, "type cityIn ", "func weather("); n > 40 {
		t.Errorf("the README's program has %d lines of glue, want at most 40", n)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := adaptertest.BuildModule(t, root, t.TempDir(), "example.com/weather", "github.com/modelcontextprotocol/go-sdk v1.8.0",
		map[string]string{"main.go": program}, "weather")

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
