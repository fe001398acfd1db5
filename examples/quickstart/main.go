// Command quickstart shows deferred tool discovery end to end, in memory: a 43-tool
// catalog, two principals with different grants, discovery with a second page through
// its cursor, granted, denied and invalid calls, a stale cursor after a grant change,
// and the contract digests. It needs no argument, no network and no file, and links
// no database driver: grants are kept in memory. Grants in a database are shown by
// examples/mcpserver (-db sqlite:PATH) and the examples of package grants/sqlstore.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/examples/internal/demo"
	"github.com/deferredtools/deferredtools/grants"
)

func main() {
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errors.New("quickstart: unexpected arguments")
	}
	ctx := context.Background()
	out := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }

	// 1. Compile the catalog once per version, and load the grant rows.
	catalog, err := discovery.NewCatalog(demo.Tools(), nil)
	if err != nil {
		return err
	}
	store := grants.NewMemory()
	for _, r := range demo.Rows() {
		if _, err := store.Put(ctx, r); err != nil {
			return err
		}
	}
	// The switch is on here, to show the flow; a server reads it with SwitchFromEnv.
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: catalog, Grants: store})
	out("%s", switchState(d.Enabled()))
	alice, bob := demo.Alice, demo.Bob

	section(w, "Catalog")
	for _, p := range []grants.Principal{alice, bob} {
		list, err := d.ListTools(ctx, p)
		if err != nil {
			return err
		}
		out("%-5s sees %d of %d tools  contract %s", p.ID, len(list.Tools), catalog.Len(), list.ContractDigest)
	}

	section(w, `Discover "model versions" (alice, limit 3)`)
	page1, err := d.Discover(ctx, alice, discovery.Request{Query: "model versions", Limit: 3})
	if err != nil {
		return err
	}
	printPage(out, 1, page1)
	if page1.NextCursor != "" { // the next page: the same query and limit, with the cursor
		page2, err := d.Discover(ctx, alice, discovery.Request{Query: "model versions", Limit: 3, Cursor: page1.NextCursor})
		if err != nil {
			return err
		}
		printPage(out, 2, page2)
	}

	section(w, `The same words for bob (what he is not granted never shows)`)
	bobPage, err := d.Discover(ctx, bob, discovery.Request{Query: "deployment logs", Limit: 3})
	if err != nil {
		return err
	}
	printPage(out, 1, bobPage)

	section(w, "Calls")
	calls := []struct {
		who  grants.Principal
		tool string
		args string
	}{
		{alice, "deployments_scale", `{"name":"sentiment-prod","min_replicas":2,"max_replicas":8}`},
		{bob, "deployments_get_logs", `{"name":"sentiment-prod"}`},
		{bob, "deployments_scale", `{"name":"sentiment-prod"}`},
		{alice, "no_such_tool", `{}`},
		{alice, "deployments_scale", `{"name":"sentiment-prod","min_replicas":-1}`},
		{alice, "models_get", `{"model":"acme/sentiment-small","extra":true}`},
	}
	for _, c := range calls {
		err := d.AuthorizeCall(ctx, c.who, discovery.Call{Tool: c.tool, Arguments: json.RawMessage(c.args)})
		out("%-5s calls %-22s -> %s", c.who.ID, c.tool, verdict(err))
	}

	section(w, "A grant change makes an outstanding cursor stale")
	first, err := d.Discover(ctx, alice, discovery.Request{Query: "deploy a model", Limit: 2})
	if err != nil {
		return err
	}
	printPage(out, 1, first)
	if _, err := store.Put(ctx, grants.Row{Principal: "alice", Tool: "deployments_delete", Effect: grants.Deny}); err != nil {
		return err
	}
	out("(an administrator denies alice deployments_delete)")
	_, err = d.Discover(ctx, alice, discovery.Request{Query: "deploy a model", Limit: 2, Cursor: first.NextCursor})
	out("page 2 with the old cursor -> %s", verdict(err))
	again, err := d.Discover(ctx, alice, discovery.Request{Query: "deploy a model", Limit: 2})
	if err != nil {
		return err
	}
	out("restarting the discovery works:")
	printPage(out, 1, again)

	section(w, "Contract digests after the change")
	for _, p := range []grants.Principal{alice, bob} {
		list, err := d.ListTools(ctx, p)
		if err != nil {
			return err
		}
		out("%-5s %d tools  %s", p.ID, len(list.Tools), list.ContractDigest)
	}
	err = d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "models_get", Arguments: json.RawMessage(`{"model":"acme/x"}`), ContractPin: first.ContractDigest})
	out("a call pinned to alice's old digest -> %s", verdict(err))

	section(w, "The same, as JSON-RPC bytes in and bytes out")
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"multillm.tools.discover","params":{"query":"usage invoices","limit":2}}`)
	resp, _ := d.HandleJSONRPC(ctx, bob, msg)
	out("response: %d bytes (at most %d), tools: %s", len(resp), discovery.MaxResponseBytes, toolNames(resp))
	bad := []byte(`{"jsonrpc":"2.0","id":8,"method":"multillm.tools.discover","params":{"query":"x","limit":99}}`)
	resp, _ = d.HandleJSONRPC(ctx, bob, bad)
	out("limit 99: %s", resp)
	return nil
}

// switchState is the line the quickstart prints first: whether discovery is on, and
// what off would mean.
func switchState(on bool) string {
	if on {
		return "discovery: on (tools/list narrowed to grants, tools/call gated, the discover method answered; off: every tool listed and callable, grants not read)"
	}
	return "discovery: off (every tool listed and callable, grants not read, the discover method unknown)"
}

func section(w io.Writer, title string) {
	fmt.Fprintf(w, "\n== %s\n", title)
}

func printPage(out func(string, ...any), n int, r *discovery.Result) {
	var names []string
	for _, t := range r.Tools {
		var tool struct {
			Name string `json:"name"`
		}
		json.Unmarshal(t, &tool)
		names = append(names, tool.Name)
	}
	more := "last page"
	if r.NextCursor != "" {
		more = fmt.Sprintf("nextCursor: %d opaque bytes", len(r.NextCursor))
	}
	out("page %d: %s  (%s)", n, strings.Join(names, ", "), more)
}

// verdict prints an outcome as a person should see it: the public code and HTTP status.
func verdict(err error) string {
	if err == nil {
		return "allowed: the host may execute it"
	}
	var e *discovery.Error
	if !errors.As(err, &e) {
		return "error: " + err.Error()
	}
	s := fmt.Sprintf("%s (%d)", string(e.Code), e.Code.Status())
	switch {
	case e.Keyword != "" && e.Path == "":
		s += fmt.Sprintf(": %s at the top level", e.Keyword)
	case e.Keyword != "":
		s += fmt.Sprintf(": %s at %q", e.Keyword, e.Path)
	}
	return s
}

func toolNames(resp []byte) string {
	var env struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	json.Unmarshal(resp, &env)
	var names []string
	for _, t := range env.Result.Tools {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}
