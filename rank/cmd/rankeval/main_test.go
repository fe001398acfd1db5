package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/rank/rankeval"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "tools.json")
	qs := filepath.Join(dir, "queries.json")
	os.WriteFile(cat, []byte(`[
		{"name": "list_branches", "title": "List branches", "description": "List the branches of a repository.", "inputSchema": {}},
		{"name": "create_issue", "title": null, "description": "Open a new issue."}]`), 0o600)
	os.WriteFile(qs, []byte(`[
		{"query": "listing branches", "relevant": ["list_branches"]},
		{"query": "new issue", "relevant": ["create_issue", "list_branches"]},
		{"query": "nothing here", "relevant": ["no_such_tool"]},
		{"query": "bake a cake", "relevant": []}]`), 0o600)

	var out, errOut bytes.Buffer
	if err := run([]string{"-catalog", cat, "-queries", qs, "-json"}, &out, &errOut); err != nil {
		t.Fatalf("run -json: %v (%s)", err, errOut.String())
	}
	var rep rankeval.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("-json output is not one JSON object: %v\n%s", err, out.String())
	}
	if rep.Queries != 2 || rep.Recall1 != 0.75 || rep.MRR10 != 1 || rep.Recall10 != 0.75 || rep.EmptyQueries != 1 || rep.EmptyMeanResults != 0 ||
		len(rep.Skipped) != 1 || rep.Skipped[0].Unknown != "no_such_tool" {
		t.Errorf("report = %+v, want 2 queries, R@1 0.75, MRR@10 1, R@10 0.75, 1 empty query with 0 results, 1 skipped", rep)
	}
	for _, key := range []string{`"recall@1"`, `"recall@5"`, `"recall@10"`, `"mrr@10"`, `"ndcg@10"`, `"empty_mean_results"`, `"skipped"`} {
		if !strings.Contains(out.String(), key) {
			t.Errorf("-json output lacks %s:\n%s", key, out.String())
		}
	}

	out.Reset()
	if err := run([]string{"-catalog", cat, "-queries", qs}, &out, &errOut); err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, line := range []string{"Recall@1   0.7500", "nDCG@10", "MRR@10", `skipped query 2: unknown tool "no_such_tool"`, "mean results 0.00"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
	if err := run([]string{"-catalog", cat}, &out, &errOut); err == nil {
		t.Error("run without -queries succeeded")
	}

	// -explain prints each query's hits, relevant ones starred, with their terms.
	out.Reset()
	if err := run([]string{"-catalog", cat, "-queries", qs, "-explain", "2"}, &out, &errOut); err != nil {
		t.Fatalf("run -explain: %v", err)
	}
	for _, line := range []string{`"listing branches"`, "* 1 list_branches", "branch(word name,title,description)", "list(word name,title,description)"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("-explain output lacks %q:\n%s", line, out.String())
		}
	}
}

// -params=false ranks names, titles and descriptions alone: a word only a parameter
// holds then finds nothing.
func TestRunParams(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "tools.json")
	qs := filepath.Join(dir, "queries.json")
	os.WriteFile(cat, []byte(`[
		{"name": "submit_event", "description": "Submit an event.", "inputSchema": {"properties": {"event": {"enum": ["APPROVE"]}}}},
		{"name": "list_branches", "description": "List branches."}]`), 0o600)
	// No name or description holds approve, nor its related word review.
	os.WriteFile(qs, []byte(`[{"query": "approve", "relevant": ["submit_event"]}]`), 0o600)
	for _, tc := range []struct {
		args    []string
		recall1 float64
	}{{nil, 1}, {[]string{"-params=false"}, 0}} {
		var out, errOut bytes.Buffer
		if err := run(append([]string{"-catalog", cat, "-queries", qs, "-json"}, tc.args...), &out, &errOut); err != nil {
			t.Fatalf("run %v: %v (%s)", tc.args, err, errOut.String())
		}
		var rep rankeval.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Recall1 != tc.recall1 {
			t.Errorf("run %v: Recall@1 %v, want %v", tc.args, rep.Recall1, tc.recall1)
		}
	}
}

// A malformed file is reported once as rankeval's ("rankeval: malformed file: ..."), a
// missing one with the command's name before the path's error.
func TestMessage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"name": "x"`), 0o600)
	err := run([]string{"-catalog", bad, "-queries", bad}, io.Discard, io.Discard)
	if got := message(err); !strings.HasPrefix(got, "rankeval: malformed file: catalog") || strings.Count(got, "rankeval:") != 1 {
		t.Errorf("message of a malformed catalog = %q, want it led by rankeval: once", got)
	}
	err = run([]string{"-catalog", filepath.Join(dir, "none.json"), "-queries", bad}, io.Discard, io.Discard)
	if got := message(err); !strings.HasPrefix(got, "rankeval: open ") {
		t.Errorf("message of a missing catalog = %q, want rankeval: open ...", got)
	}
}

// A malformed catalog or queries file is reported with a fixed text and the byte offset
// where decoding stopped, never a character or a type name taken from the file: errors
// do not echo input. (encoding/json's text quoted the offending character.)
func TestMalformedFileEchoesNothing(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tools.json")
	os.WriteFile(good, []byte(`[{"name": "x", "description": "X."}]`), 0o600)
	for _, tc := range []struct {
		name, text, which, offset string
		secret                    []string
	}{
		{"a stray character", `[{"name": "x"} Zsecret]`, "catalog", "after byte 16", []string{"Z", "secret"}},
		{"a control character in a string", "[{\"name\": \"a\x01b\"}]", "catalog", "after byte 13", []string{"\x01", `\x01`, "U+0001"}},
		{"the wrong type", `[{"name": ["Qsecret"]}]`, "catalog", "after byte 11", []string{"Qsecret", "array", "name", "string"}},
		{"an object for the array", `{"Qsecret": 1}`, "catalog", "after byte 1", []string{"Qsecret", "object"}},
		{"cut short", `[{"name": "Qsecret`, "catalog", "after byte 18", []string{"Qsecret"}},
		{"malformed queries", `[{"query": "x"}, Wsecret]`, "queries", "after byte 18", []string{"W", "secret"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(dir, "bad.json")
			os.WriteFile(bad, []byte(tc.text), 0o600)
			args := []string{"-catalog", bad, "-queries", good}
			if tc.which == "queries" {
				args = []string{"-catalog", good, "-queries", bad}
			}
			err := run(args, io.Discard, io.Discard)
			if !errors.Is(err, rankeval.ErrFormat) {
				t.Fatalf("run = %v, want rankeval.ErrFormat", err)
			}
			got := message(err)
			if !strings.HasPrefix(got, "rankeval: malformed file: "+tc.which) || !strings.Contains(got, tc.offset) {
				t.Errorf("message = %q, want rankeval: malformed file: %s ... %s", got, tc.which, tc.offset)
			}
			for _, s := range append(tc.secret, "'", "invalid character", "json", "Go") {
				if strings.Contains(strings.TrimPrefix(got, "rankeval: malformed file: "), s) {
					t.Errorf("message = %q echoes %q", got, s)
				}
			}
		})
	}
}
