package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestQuickstart runs the quickstart and checks that each section shows what a person
// should see: the refusals with their codes and statuses, and the second page.
func TestQuickstart(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	// Columns are padded for people; compare with runs of spaces folded to one.
	got := strings.Join(strings.Fields(buf.String()), " ")
	for _, want := range []string{
		"alice sees ",
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
	if strings.Contains(sectionOf(buf.String(), "The same words for bob"), "deployments_get_logs") {
		t.Errorf("bob's discovery shows a tool he is denied:\n%s", got)
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
