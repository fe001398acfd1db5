package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestQuickstart runs the quickstart and checks that each section shows what a person
// should see: the refusals with their codes and statuses, and the second page.
func TestQuickstart(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf, nil); err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	checkOutput(t, buf.String())
	first, _, _ := strings.Cut(buf.String(), "\n")
	if first != switchState(true) {
		t.Errorf("first line %q, want the switch state %q", first, switchState(true))
	}
	if !strings.Contains(switchState(false), "every tool listed and callable, grants not read") {
		t.Errorf("the off state does not say what off means: %q", switchState(false))
	}
	if err := run(&buf, []string{"-db", "sqlite:x.db"}); err == nil {
		t.Error("-db is accepted; the quickstart keeps grants in memory only")
	}
}

// The quickstart links no database driver and no MCP SDK, so its first run downloads
// little (see the README's "Try it").
func TestQuickstartLinksNoDriver(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"modernc.org/", "github.com/jackc/", "database/sql", "github.com/modelcontextprotocol/", "/grants/sqlstore"} {
			if strings.Contains(pkg, banned) {
				t.Errorf("the quickstart links %s", pkg)
			}
		}
	}
}

// checkOutput checks the lines every run of the walk-through prints.
func checkOutput(t *testing.T, out string) {
	t.Helper()
	// Columns are padded for people; compare with runs of spaces folded to one.
	got := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"alice sees ",
		" of 43 tools", // the package doc's (and package demo's) 43-tool catalog
		"page 2: ",
		"alice calls deployments_scale -> allowed",
		"bob calls deployments_get_logs -> tool_not_granted (403)",
		"bob calls deployments_scale -> tool_not_granted (403)",
		"alice calls no_such_tool -> tool_not_granted (403)",
		`-> invalid_arguments (400): minimum at "/min_replicas"`,
		"alice calls models_get -> invalid_arguments (400): additionalProperties at the top level",
		"page 2 with the old cursor -> invalid_cursor (400)",
		"a call pinned to alice's old digest -> contract_changed (409)",
		`"error":{"code":-32602,"message":"invalid_params"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("quickstart output lacks %q\n--- output:\n%s", want, got)
		}
	}
	if strings.Contains(sectionOf(out, "The same words for bob"), "deployments_get_logs") {
		t.Errorf("bob's discovery shows a tool he is denied:\n%s", got)
	}
	// The first discovery pages: page 1 has a cursor, and page 2 holds other tools.
	pages := map[string]map[string]bool{}
	for _, line := range strings.Split(sectionOf(out, "== Discover "), "\n") {
		if n, tools, ok := strings.Cut(line, ": "); ok && strings.HasPrefix(n, "page ") {
			list, rest, _ := strings.Cut(tools, "  (")
			pages[n] = map[string]bool{}
			for _, name := range strings.Split(list, ", ") {
				pages[n][name] = true
			}
			if n == "page 1" && !strings.HasPrefix(rest, "nextCursor") {
				t.Errorf("the first discovery's page 1 has no cursor: %q", line)
			}
		}
	}
	if len(pages["page 1"]) == 0 || len(pages["page 2"]) == 0 {
		t.Errorf("the first discovery does not print two pages:\n%s", sectionOf(out, "== Discover "))
	}
	for name := range pages["page 2"] {
		if pages["page 1"][name] {
			t.Errorf("page 2 repeats page 1's %s", name)
		}
	}
}

func sectionOf(out, title string) string {
	i := strings.Index(out, title)
	if i < 0 {
		return ""
	}
	rest := out[i:]
	if j := strings.Index(rest[1:], "\n== "); j >= 0 {
		return rest[:j+1]
	}
	return rest
}
