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
	dir := filepath.Join("..", "..", "..", "shared", "data", "catalogs")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real catalogs absent (%s): %v", dir, err)
	}
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
