package plan_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/plan"
)

// exampleDiscoverer serves eight tools of two servers (github_, gitlab_) and whoami,
// all but github_delete_repo granted to alice.
func exampleDiscoverer() *discovery.Discoverer {
	ctx := context.Background()
	var raws []json.RawMessage
	for _, name := range []string{
		"github_create_issue", "github_delete_repo", "github_list_prs", "github_search",
		"gitlab_create_issue", "gitlab_list_mrs", "gitlab_search", "whoami",
	} {
		raws = append(raws, json.RawMessage(`{"name":"`+name+`","description":"Does `+
			strings.ReplaceAll(name, "_", " ")+`.","inputSchema":{"type":"object"}}`))
	}
	cat, err := discovery.NewCatalog(raws, nil)
	if err != nil {
		panic(err)
	}
	store := grants.NewMemory()
	for _, name := range cat.Names() {
		if name != "github_delete_repo" {
			store.Put(ctx, grants.Row{Principal: "alice", Tool: name, Effect: grants.Allow})
		}
	}
	return discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
}

// A gateway renders each model request's tools for the model serving it: the path
// follows the model's capabilities, so switching models moves the very next request.
// The request body takes Tools as its "tools" member and System as Anthropic's
// "system", OpenAI's "instructions" or the system message of any other model.
func ExamplePlanner_Request() {
	ctx := context.Background()
	d := exampleDiscoverer()
	pl := plan.New(d, &plan.Policy{ // d: your *discovery.Discoverer
		MinTools: 5, // defer once the principal holds 5 tools (or DefaultMinBytes)
		Servers:  map[string]plan.Loading{"gitlab_": plan.LoadEager},
		Tools:    map[string]plan.Loading{"github_search": plan.LoadEager},
	})
	alice := grants.Principal{ID: "alice"}
	claude := plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true}
	gpt := plan.ModelCapabilities{Provider: plan.ProviderOpenAI, NativeToolSearch: true}
	local := plan.ModelCapabilities{} // any other model: a client-side catalog and search_tools

	for _, m := range []plan.ModelCapabilities{claude, local, gpt} {
		r, err := pl.Request(ctx, alice, m)
		if err != nil {
			panic(err) // a *discovery.Error, as ListTools answers
		}
		body := map[string]any{"tools": r.Tools}
		switch m.Provider {
		case plan.ProviderAnthropic:
			body["system"] = r.System // empty on the native paths
		case plan.ProviderOpenAI:
			body["instructions"] = r.System
		default:
			body["messages"] = []any{map[string]string{"role": "system", "content": r.System}}
		}
		b, err := json.Marshal(body)
		if err != nil {
			panic(err)
		}
		fmt.Println(r.Path, r.Deferred, r.SearchTool, strings.Count(string(b), `"defer_loading":true`))
		fmt.Print(r.System)
	}
	// Output:
	// anthropic-server [github_create_issue github_list_prs whoami] tool_search_tool_bm25 3
	// client-side [github_create_issue github_list_prs whoami] search_tools 0
	// More tools are available than are loaded. Call search_tools with a few words describing the task to get the full definitions of the matching tools:
	// - github_create_issue: Does github create issue.
	// - github_list_prs: Does github list prs.
	// - whoami: Does whoami.
	// openai-hosted [github_create_issue github_list_prs whoami] tool_search 3
}

// The model calls a deferred tool it has not loaded. CheckCall checks grants first,
// then answers by Policy.Undiscovered: by default a tool result (CallAnswer) naming
// the search call that loads the tool; with UndiscoveredLoad, the tools to load
// before rendering the request again and retrying the turn (CallRetry).
func ExamplePlanner_CheckCall() {
	ctx := context.Background()
	d := exampleDiscoverer()
	alice := grants.Principal{ID: "alice"}
	local := plan.ModelCapabilities{}

	pl := plan.New(d, &plan.Policy{MinTools: 5})
	r, err := pl.Request(ctx, alice, local)
	if err != nil {
		panic(err)
	}
	for _, tool := range []string{"github_list_prs", "search_tools", "github_delete_repo"} {
		c, err := pl.CheckCall(ctx, alice, r, tool)
		switch {
		case errors.Is(err, discovery.CodeToolNotGranted):
			fmt.Println(tool, "refused:", err)
		case err != nil:
			panic(err)
		case c.Action == plan.CallAnswer:
			fmt.Printf("%s answered: %s\n", tool, c.Result)
		case c.Action == plan.CallRun:
			fmt.Println(tool, "run") // the search tool: d.DiscoverTool answers it
		}
	}
	// The session loaded the tool (its search found it): the call runs.
	c, _ := pl.CheckCall(ctx, alice, r, "github_list_prs", "github_list_prs")
	fmt.Println("github_list_prs loaded:", c.Action == plan.CallRun)

	retry := plan.New(d, &plan.Policy{MinTools: 5, Undiscovered: plan.UndiscoveredLoad})
	r, _ = retry.Request(ctx, alice, local)
	c, _ = retry.CheckCall(ctx, alice, r, "github_list_prs")
	r, _ = retry.Request(ctx, alice, local, c.Load...) // send the turn again with it loaded
	fmt.Println(c.Action == plan.CallRetry, c.Load, r.Deferred)
	// Output:
	// github_list_prs answered: {"error":"tool_not_loaded","tool":"github_list_prs","message":"This tool is deferred and its definition is not loaded yet. Call search_tools with the arguments below to load it, then call it again.","discover":{"tool":"search_tools","arguments":{"query":"github_list_prs"}}}
	// search_tools run
	// github_delete_repo refused: discovery: tool_not_granted
	// github_list_prs loaded: true
	// true [github_list_prs] [github_create_issue github_search gitlab_create_issue gitlab_list_mrs gitlab_search whoami]
}
