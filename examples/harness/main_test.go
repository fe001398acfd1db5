package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// SPEC PLAN-1, PLAN-2: the harness shows two consecutive plans of one session, native
// then client-side, each smaller than sending every tool in full.
func TestHarnessDemo(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf, ""); err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	got := buf.String()
	for _, want := range []string{
		"request 1, a model with native tool search: native plan",
		"with defer_loading",
		"request 2, a model without it: client-side plan",
		"More tools are available than are loaded. Call search_tools",
		"- models_search: Search the model registry",
		"sent in full: inference_batch_submit, inference_predict, search_tools",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q\n--- output:\n%s", want, got)
		}
	}
	// SPEC PLAN-1: what the discovery tool found is sent in full on the next request.
	m3 := regexp.MustCompile(`the model calls search_tools .*: (\S+), (\S+)\nrequest 3, the same model: client-side plan.*\n  sent in full: (.*)\n`).FindStringSubmatch(got)
	if m3 == nil {
		t.Fatalf("no third request after a discovery call:\n%s", got)
	}
	for _, name := range m3[1:3] {
		if !strings.Contains(m3[3], name) {
			t.Errorf("request 3 does not send the discovered %s in full: %s", name, m3[3])
		}
	}
	native, client, _ := strings.Cut(got, "request 2")
	client, _, _ = strings.Cut(client, "request 3")
	if strings.Contains(native, "search_tools") || strings.Contains(native, "    - ") {
		t.Errorf("the native plan shows client-side catalog text:\n%s", native)
	}
	m := regexp.MustCompile(`plan: (\d+) bytes; every tool in full: (\d+) bytes`).FindStringSubmatch(client)
	if m == nil {
		t.Fatalf("client-side plan prints no sizes:\n%s", client)
	}
	plan, _ := strconv.Atoi(m[1])
	full, _ := strconv.Atoi(m[2])
	if plan <= 0 || plan >= full {
		t.Errorf("client-side plan is %d bytes, full %d: deferral saves nothing", plan, full)
	}
}

// The real catalogs, when present: one row per catalog, each with a saving.
func TestHarnessRealCatalogs(t *testing.T) {
	dir := realCatalogs(t)
	files, err := catalogFiles(dir)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s exists but holds no catalog (err %v)", dir, err)
	}
	var buf bytes.Buffer
	if err := run(&buf, dir); err != nil {
		t.Fatalf("run: %v", err)
	}
	rows := regexp.MustCompile(`(?m)^\s*(\S+)\s+\d+\s+(\d+)\s+\d+\s+\d+\s+(\d+)\s+\d+ bytes \(\d+%\)\s*$`).FindAllStringSubmatch(buf.String(), -1)
	if len(rows) != len(files) {
		t.Fatalf("%d catalog rows, want %d\n%s", len(rows), len(files), buf.String())
	}
	for _, r := range rows {
		full, _ := strconv.Atoi(r[2])
		client, _ := strconv.Atoi(r[3])
		if client >= full {
			t.Errorf("%s: client-side plan %d bytes, full %d", r[1], client, full)
		}
	}
}

// pathRows reads the rows of the provider-path table after heading: path, request,
// up front and in full bytes.
func pathRows(t *testing.T, out, heading string) map[string][3]int {
	t.Helper()
	_, section, ok := strings.Cut(out, heading)
	if !ok {
		t.Fatalf("output lacks %q:\n%s", heading, out)
	}
	section, _, _ = strings.Cut(section, "\n== ")
	rows := map[string][3]int{}
	for _, m := range regexp.MustCompile(`(?m)^.*?  +(client-side|anthropic-server|anthropic-client|openai-hosted|openai-client) +(\d+) +(\d+) +(\d+) +(.*)$`).FindAllStringSubmatch(section, -1) {
		key := m[1]
		if strings.Contains(m[5], "regex") {
			key += "-regex"
		}
		if strings.Contains(m[5], "namespaces holding") {
			key += "-namespaces"
		}
		var v [3]int
		for i := range v {
			v[i], _ = strconv.Atoi(m[2+i])
		}
		rows[key] = v
	}
	return rows
}

// SPEC PLAN-1, PLAN-2: the harness prints every provider path of plan.Request for the
// demo catalog, each with what the model reads up front below the full tool set.
func TestHarnessPaths(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf, ""); err != nil {
		t.Fatalf("run: %v", err)
	}
	rows := pathRows(t, buf.String(), "== Every provider path, alice on the demo catalog")
	for _, path := range []string{"client-side", "anthropic-server", "anthropic-server-regex", "anthropic-client", "openai-hosted", "openai-client", "openai-hosted-namespaces"} {
		r, ok := rows[path]
		if !ok {
			t.Errorf("no row for %s:\n%s", path, buf.String())
			continue
		}
		if r[1] >= r[2] || r[1] > r[0] {
			t.Errorf("%s: request %d, up front %d, in full %d: up front should be below both", path, r[0], r[1], r[2])
		}
	}
	if rows["openai-hosted-namespaces"][1] >= rows["openai-hosted"][1] {
		t.Errorf("namespaces show the model %d bytes up front, no fewer than flat functions' %d", rows["openai-hosted-namespaces"][1], rows["openai-hosted"][1])
	}
	if !strings.Contains(buf.String(), "search_tools answered by the Discoverer") {
		t.Errorf("the host-search row does not say who answers:\n%s", buf.String())
	}
}

// The real catalog's provider paths, when the catalogs are present.
func TestHarnessPathsRealCatalog(t *testing.T) {
	dir := realCatalogs(t)
	var buf bytes.Buffer
	if err := run(&buf, dir); err != nil {
		t.Fatalf("run: %v", err)
	}
	rows := pathRows(t, buf.String(), "== Every provider path, real catalog gitlab")
	if len(rows) != 7 {
		t.Fatalf("%d path rows for gitlab, want 7:\n%s", len(rows), buf.String())
	}
	for path, r := range rows {
		if r[1] >= r[2] {
			t.Errorf("gitlab %s: up front %d, in full %d", path, r[1], r[2])
		}
	}
}

// The README's table of provider paths on the real GitLab catalog is the harness's
// output: each line of it is a line the harness prints today, trailing spaces aside.
// (The README's figures drifted by 49 bytes when the discovery tool's schema grew.)
func TestREADMEHarnessTable(t *testing.T) {
	dir := realCatalogs(t)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n```\nmodel ")
	if !ok {
		t.Fatal("README has no harness table (a code block starting with \"model \")")
	}
	table, _, _ = strings.Cut("model "+table, "\n```")
	var buf bytes.Buffer
	if err := run(&buf, dir); err != nil {
		t.Fatalf("run: %v", err)
	}
	_, section, ok := strings.Cut(buf.String(), "== Every provider path, real catalog gitlab")
	if !ok {
		t.Fatalf("output lacks gitlab's provider paths:\n%s", buf.String())
	}
	section, _, _ = strings.Cut(section, "\n== ")
	printed := map[string]bool{}
	for line := range strings.Lines(section) {
		printed[strings.TrimRight(line, " \n")] = true
	}
	for line := range strings.Lines(table) {
		if line = strings.TrimRight(line, " \n"); !printed[line] {
			t.Errorf("README line not printed by the harness:\n%s\nharness:\n%s", line, section)
		}
	}
}

// realCatalogs returns ../shared/data/catalogs beside the module root, or skips t when
// the real catalogs are absent there.
func realCatalogs(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "data", "catalogs")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real catalogs absent (%s): %v", dir, err)
	}
	return dir
}
