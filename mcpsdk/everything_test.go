package mcpsdk_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// everythingInstall is added beside go-sdk's everything-server (a copy made at test
// time from the module cache): the README's wiring with NewServerCatalog, every tool
// granted (the one the server adds at run time included) and a static principal;
// with EVERYTHING_FULL=1 the catalog validates with validate.NewFull.
const everythingInstall = `package main

import (
	"context"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
	"github.com/deferredtools/deferredtools/validate"
)

var adapter *mcpsdk.Adapter

func installDiscovery(server *mcp.Server) {
	ctx := context.Background()
	opts := &mcpsdk.ServerCatalogOptions{}
	if os.Getenv("EVERYTHING_FULL") == "1" {
		opts.Catalog = &discovery.CatalogOptions{Compiler: validate.NewFull(nil)}
	}
	catalog, err := mcpsdk.NewServerCatalog(ctx, server, opts)
	if err != nil {
		log.Fatal(err)
	}
	cat, _ := catalog.Catalog(ctx)
	store := grants.NewMemory()
	for _, name := range append(cat.Names(), "__transient_tool_for_list_changed") {
		store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow})
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: catalog, Grants: store})
	adapter = mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(grants.Principal{ID: "conformance"})})
	adapter.Install(server)
}
`

// buildEverything builds go-sdk's conformance everything-server from the module cache
// into dir, bare or with the adapter installed (two lines patched: the install after
// the prompts are registered, and the adapter's stdio transport).
func buildEverything(t *testing.T, root, src, dir string, adapted bool) string {
	t.Helper()
	if adapted {
		for _, p := range [][2]string{
			{"\tregisterPrompts(server)\n", "\tregisterPrompts(server)\n\tinstallDiscovery(server)\n"},
			{"server.Run(ctx, t)", "server.Run(ctx, adapter.Transport(t))"},
		} {
			if strings.Count(src, p[0]) != 1 {
				t.Fatalf("the everything-server's main.go no longer holds %q once: update this test", p[0])
			}
			src = strings.Replace(src, p[0], p[1], 1)
		}
	}
	files := map[string]string{"main.go": src}
	if adapted {
		files["install.go"] = everythingInstall
	}
	return adaptertest.BuildModule(t, root, dir, "example.com/everything", "github.com/modelcontextprotocol/go-sdk v1.8.0", files, "everything")
}

// everythingView is what a client sees of the server: its lists and the results of
// the deterministic tools, as JSON text with members in sorted order.
func everythingView(t *testing.T, bin string, env ...string) map[string]string {
	t.Helper()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "conformance-check", Version: "v1"}, nil)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", bin, err)
	}
	defer cs.Close()
	view := map[string]string{}
	norm := func(v any) string {
		b, _ := json.Marshal(v)
		var x any
		json.Unmarshal(b, &x)
		b, _ = json.Marshal(x)
		return string(b)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for _, tool := range tools.Tools {
		view["tool "+tool.Name] = norm(tool)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	view["prompts"] = norm(prompts.Prompts)
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	view["resources"] = norm(resources.Resources)
	for name, args := range map[string]map[string]any{
		"test_simple_text":            {},
		"test_image_content":          {},
		"test_audio_content":          {},
		"test_embedded_resource":      {},
		"test_multiple_content_types": {},
		"test_error_handling":         {},
		"test_tool_with_logging":      {},
		"test_tool_with_progress":     {},
		"json_schema_2020_12_tool":    {"name": "a", "contactMethod": "email", "email": "a@example.com"},
		"test_trigger_tool_change":    {},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			view["call "+name] = "error: " + err.Error()
			continue
		}
		view["call "+name] = norm(res)
	}
	// test_trigger_tool_change registered a tool: it is listed and callable.
	waitFor(t, "the transient tool in tools/list", func() bool {
		list, err := cs.ListTools(ctx, nil)
		return err == nil && slices.ContainsFunc(list.Tools, func(tool *mcp.Tool) bool { return tool.Name == "__transient_tool_for_list_changed" })
	})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "__transient_tool_for_list_changed", Arguments: map[string]any{}})
	if err != nil {
		view["call transient"] = "error: " + err.Error()
	} else {
		view["call transient"] = norm(res)
	}
	return view
}

// go-sdk's own conformance everything-server, with the adapter installed on a catalog
// built by NewServerCatalog and every tool granted, answers a client as the bare
// server does: the same tools (schemas included), prompts and resources, the same
// results of its deterministic tools, and the tool it registers at run time is listed
// and callable. One difference is expected with the default bounded validator: its
// JSON Schema 2020-12 tool ($ref, $anchor, if/then/else) cannot be enforced exactly,
// so its calls answer tool_validation_unavailable; with validate.NewFull as the
// catalog's Compiler they too answer as the bare server. (The official conformance
// runner, @modelcontextprotocol/conformance, needs Node.js 22 and the npm registry:
// .ci/conformance.sh runs it against both servers over HTTP.)
func TestEverythingServerWithAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("builds go-sdk's everything-server twice")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/modelcontextprotocol/go-sdk").Output()
	if err != nil {
		t.Fatalf("locating go-sdk: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "conformance", "everything-server", "main.go"))
	if err != nil {
		t.Skipf("go-sdk's everything-server is not in the module cache: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bare := everythingView(t, buildEverything(t, root, string(src), filepath.Join(dir, "bare"), false))
	adaptedBin := buildEverything(t, root, string(src), filepath.Join(dir, "adapted"), true)
	if len(bare) < 30 {
		t.Fatalf("the bare server shows only %d items; the test lost them", len(bare))
	}
	t.Run("bounded", func(t *testing.T) {
		adapted := everythingView(t, adaptedBin)
		const strict = "call json_schema_2020_12_tool"
		if want := "error: calling \"tools/call\": tool_validation_unavailable"; adapted[strict] != want {
			t.Errorf("%s with the bounded validator: %s, want %s", strict, adapted[strict], want)
		}
		adapted[strict] = bare[strict]
		compareViews(t, bare, adapted)
	})
	t.Run("full", func(t *testing.T) {
		compareViews(t, bare, everythingView(t, adaptedBin, "EVERYTHING_FULL=1"))
	})
}

// compareViews reports every item that differs between the bare and the adapted server.
func compareViews(t *testing.T, bare, adapted map[string]string) {
	t.Helper()
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range bare {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		if adapted[k] != bare[k] {
			t.Errorf("%s\n  bare:    %.600s\n  adapted: %.600s", k, bare[k], adapted[k])
		}
	}
	for k := range adapted {
		if _, ok := bare[k]; !ok {
			t.Errorf("%s shows only through the adapter: %.300s", k, adapted[k])
		}
	}
}
