package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/examples/internal/demo"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/metatool"
)

// demoMetaTools is the demo's declaration of its meta tool "keys", as the README's
// walkthrough passes it.
const demoMetaTools = "../internal/demo/metatools.json"

// keysActions returns the actions of the keys tool a tools/list serves, nil when it
// lists no keys tool.
func keysActions(t *testing.T, list *mcp.ListToolsResult) []string {
	t.Helper()
	for _, tool := range list.Tools {
		if tool.Name != "keys" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties struct {
				Action struct {
					Enum []string `json:"enum"`
				} `json:"action"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties.Action.Enum
	}
	return nil
}

// SPEC VIS-1, CALL-1: -meta-tools declares the demo's keys tool a meta tool. Over a real
// stdio subprocess Alice (registry:read) is served keys with the list action alone, a
// call of list runs and one of create is refused with tool_not_granted; a principal
// holding keys:admin is served every action. Without the flag the rows of the actions
// name nothing in the catalog and no row names keys: it is not listed.
func TestMetaToolsFlag(t *testing.T) {
	ctx := context.Background()
	alice := strings.Join(demo.Alice.Scopes, ",")
	cs := connect(t, command(t, true, "-meta-tools", demoMetaTools, "-scopes", alice))
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := keysActions(t, list); !slices.Equal(got, []string{"list"}) {
		t.Errorf("alice is served keys with %q, want [list]", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "keys", Arguments: map[string]any{"action": "list", "project": "p1"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "tool keys accepted") {
		t.Errorf("keys list = %+v, %v", res, err)
	}
	for _, action := range []string{"create", "revoke", "rotate"} {
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "keys", Arguments: map[string]any{"action": action, "project": "p1"}})
		if err == nil || !strings.Contains(err.Error(), "tool_not_granted") {
			t.Errorf("keys %s = %v, want tool_not_granted", action, err)
		}
	}

	admin := connect(t, command(t, true, "-meta-tools", demoMetaTools, "-principal", "ops", "-scopes", "registry:read,keys:admin"))
	list, err = admin.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := keysActions(t, list); !slices.Equal(got, []string{"list", "create", "revoke"}) {
		t.Errorf("keys:admin is served keys with %q, want [list create revoke]", got)
	}

	plain := connect(t, command(t, true, "-scopes", alice))
	list, err = plain.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := keysActions(t, list); got != nil {
		t.Errorf("without -meta-tools alice is served keys with %q, want no keys tool", got)
	}
}

// The README's worked example, in process: the demo catalog with its meta tool
// declared, Alice's contract digest before and after a grant of keys.create.
func TestMetaToolsDemoWalkthrough(t *testing.T) {
	ctx := context.Background()
	decls, err := loadMetaTools(demoMetaTools)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := discovery.NewCatalog(demo.Tools(), &discovery.CatalogOptions{MetaTools: decls})
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	for _, r := range demo.Rows() {
		store.Put(ctx, r)
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	before, err := d.ListTools(ctx, demo.Alice)
	if err != nil {
		t.Fatal(err)
	}
	def, ok := before.Tool("keys")
	if !ok || !strings.Contains(string(def), `"enum":["list"]`) {
		t.Fatalf("alice's keys = %s, %v; want the enum narrowed to list", def, ok)
	}
	err = d.AuthorizeCall(ctx, demo.Alice, discovery.Call{Tool: "keys", Arguments: json.RawMessage(`{"action":"revoke","project":"p1","key_id":"k1"}`)})
	if !errors.Is(err, discovery.CodeToolNotGranted) {
		t.Errorf("alice: keys revoke = %v, want tool_not_granted", err)
	}
	store.Put(ctx, grants.Row{Principal: "alice", Tool: "keys.create", Effect: grants.Allow, Revision: 1})
	after, err := d.ListTools(ctx, demo.Alice)
	if err != nil {
		t.Fatal(err)
	}
	if def, _ := after.Tool("keys"); !strings.Contains(string(def), `"enum":["list","create"]`) || after.ContractDigest == before.ContractDigest {
		t.Errorf("after granting keys.create: %s, digest %s (was %s)", def, after.ContractDigest, before.ContractDigest)
	}
	create := discovery.Call{Tool: "keys", Arguments: json.RawMessage(`{"action":"create","project":"p1","scopes":["read"]}`)}
	if err := d.AuthorizeCall(ctx, demo.Alice, create); err != nil {
		t.Errorf("alice: keys create after the grant = %v", err)
	}
	create.ContractPin = before.ContractDigest
	if err := d.AuthorizeCall(ctx, demo.Alice, create); !errors.Is(err, discovery.CodeContractChanged) {
		t.Errorf("alice: keys create pinned to the digest before the grant = %v, want contract_changed", err)
	}
}

// A -meta-tools file that is no declaration, or that does not fit the catalog, stops
// the server with exit status 1 and one line saying which rule; loadMetaTools answers
// the typed *metatool.Error.
func TestMetaToolsFlagRefused(t *testing.T) {
	write := tempFiles(t)
	for _, c := range []struct {
		name, text, want string
		typed            bool // loadMetaTools answers a *metatool.Error
	}{
		{"not json", `{"keys":`, "mcpserver: -meta-tools: metatool: declarations refused: malformed", true},
		{"unknown member", `{"keys":{"actions":[{"name":"list"}],"verbs":[]}}`, "mcpserver: -meta-tools: metatool: declarations refused: member", true},
		{"no meta tool", `{}`, "mcpserver: -meta-tools: metatool: declarations refused: empty", true},
		{"no such tool", `{"locks":{"actions":[{"name":"list"}]}}`, `mcpserver: discovery: catalog refused: meta tool: no such tool (name "locks")`, false},
		{"not the enum", `{"keys":{"actions":[{"name":"list"},{"name":"create"}]}}`, `catalog refused: tool 42: meta tool: actions (name "keys")`, false},
		{"a plain tool", `{"keys_list":{"actions":[{"name":"list"}]}}`, `meta tool: argument (name "keys_list")`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := write(strings.ReplaceAll(c.name, " ", "_")+".json", c.text)
			_, err := loadMetaTools(path)
			var me *metatool.Error
			if errors.As(err, &me) != c.typed {
				t.Errorf("loadMetaTools = %v; want a *metatool.Error: %v", err, c.typed)
			}
			cmd := command(t, true, "-meta-tools", path)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			cmd.Stdin = strings.NewReader("")
			cmd.WaitDelay = 10 * time.Second
			err = cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("mcpserver -meta-tools (%s) = %v; stderr %q, want exit 1 and %q", c.name, err, stderr.String(), c.want)
			}
		})
	}
	if _, err := loadMetaTools(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("loadMetaTools(missing) = %v, want not exist", err)
	}
}
