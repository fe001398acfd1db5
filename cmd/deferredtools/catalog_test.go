package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// writeFile writes text to a new file of t's temporary directory and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// deepSchema is an object schema nesting depth levels of properties: past the
// validator's depth bound (CALL-5) when depth is large.
func deepSchema(depth int) string {
	s := `{"type":"string"}`
	for range depth {
		s = `{"type":"object","properties":{"a":` + s + `}}`
	}
	return s
}

// canonDigest is the canonical size and digest of a tool's JSON text.
func canonDigest(t *testing.T, tool string) (int, string) {
	t.Helper()
	canon, _, err := schemaguard.Canonicalize(nil, []byte(tool))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canon)
	return len(canon), "sha256:" + hex.EncodeToString(sum[:])
}

// SPEC CALL-4, PAGE-1, PAGE-3, CONTRACT-1, CONTRACT-2: catalog check reports each tool's
// validation, canonical size, page fit and digest; it exits 0 when every tool is
// enforced (a tool too large for a page answers 413 on discover, not 503 on calls).
func TestCatalogCheck(t *testing.T) {
	weather := `{"name": "get_weather", "description": "Get the weather for a city.",
		"inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}`
	big := fmt.Sprintf(`{"name": "big_report", "description": "Builds a big report.",
		"inputSchema": {"type": "object", "description": %q}}`, strings.Repeat("x", 70000))
	path := writeFile(t, "tools.json", "["+weather+",\n"+big+"]")

	out := ok(t, "catalog", "check", path)
	wBytes, wDigest := canonDigest(t, weather)
	bBytes, bDigest := canonDigest(t, big)
	want := "tool\tvalidation\tbytes\tpage\tdigest\n" +
		fmt.Sprintf("big_report\tenforced\t%d\t413: too large\t%s\n", bBytes, bDigest) +
		fmt.Sprintf("get_weather\tenforced\t%d\tfits\t%s\n", wBytes, wDigest) +
		fmt.Sprintf("2 tools, %d canonical bytes, 0 not enforced\n", wBytes+bBytes)
	if out != want {
		t.Errorf("catalog check printed\n%s\nwant\n%s", out, want)
	}

	// A tools/list result ({"tools": [...]}) reads the same, here with -json first.
	listed := writeFile(t, "list.json", `{"tools": [`+weather+`], "nextCursor": null}`)
	var rep struct {
		Tools []struct {
			Name      string
			Enforced  bool
			StoppedBy string
			Bytes     int `json:"canonicalBytes"`
			FitsPage  bool
			Digest    string
		}
		CatalogBytes, Unenforced int
	}
	if err := json.Unmarshal([]byte(ok(t, "catalog", "check", "-json", listed)), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Tools) != 1 || !rep.Tools[0].Enforced || rep.Tools[0].Bytes != wBytes || rep.Tools[0].Digest != wDigest ||
		!rep.Tools[0].FitsPage || rep.CatalogBytes != wBytes || rep.Unenforced != 0 {
		t.Errorf("catalog check -json of a tools/list result = %+v", rep)
	}
}

// SPEC PAGE-1, PAGE-3: the page fit of tools no query finds (names and descriptions of
// stop words or no word) is reported, and tools one byte either side of the room a page
// has for one tool are reported as Discover treats them.
func TestCatalogCheckPageFit(t *testing.T) {
	room, err := pageRoom()
	if err != nil {
		t.Fatal(err)
	}
	tool := func(name, desc string) string {
		return fmt.Sprintf(`{"name": %q, "description": %q, "inputSchema": {"type": "object"}}`, name, desc)
	}
	base, _ := canonDigest(t, tool("edge_fits", ""))
	tools := []string{tool("_", ""), tool("of_the", "to be"),
		tool("edge_fits", strings.Repeat("y", room-base)), tool("edge_over", strings.Repeat("y", room-base+1))}
	out := ok(t, "catalog", "check", writeFile(t, "tools.json", "["+strings.Join(tools, ",")+"]"))
	for _, want := range []string{"\n_\tenforced\t61\tfits\t", "\nof_the\tenforced\t", fmt.Sprintf("\nedge_fits\tenforced\t%d\tfits\t", room),
		fmt.Sprintf("\nedge_over\tenforced\t%d\t413: too large\t", room+1)} {
		if !strings.Contains(out, want) {
			t.Errorf("catalog check printed\n%s\nwant a line starting %q", out, want[1:])
		}
	}
	if strings.Contains(out, "unknown") {
		t.Errorf("catalog check printed an unknown page fit:\n%s", out)
	}
	// Discover itself agrees at the edge: the tool of room bytes is served, the next is 413.
	for _, c := range []struct {
		tool string
		fits bool
	}{{tools[2], true}, {tools[3], false}} {
		cat, err := discovery.NewCatalog([]json.RawMessage{json.RawMessage(c.tool)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		store := grants.NewMemory()
		name := cat.Names()[0]
		store.Put(context.Background(), grants.Row{Principal: "p", Tool: name, Effect: grants.Allow})
		d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
		_, err = d.Discover(context.Background(), grants.Principal{ID: "p"}, discovery.Request{Query: "edge"})
		if got := !errors.Is(err, discovery.CodeSchemaTooLarge); got != c.fits || (c.fits && err != nil) {
			t.Errorf("Discover of %s: %v, want fits=%v", name, err, c.fits)
		}
	}
}

// SPEC CALL-4, CALL-5: a tool whose schema the bounded validator does not enforce (a
// keyword outside the subset, a bound exceeded, an unknown member) is reported with what
// stopped it, and the command exits 1 with one line on stderr after the report.
func TestCatalogCheckUnenforced(t *testing.T) {
	tools := []string{
		`{"name": "ok_tool", "description": "Fine.", "inputSchema": {"type": "object"}}`,
		`{"name": "ref_tool", "description": "Refers.", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/x"}}}}`,
		`{"name": "deep_tool", "description": "Nests.", "inputSchema": ` + deepSchema(20) + `}`,
		`{"name": "typo_tool", "description": "Misspells.", "inputSchema": {"type": "object", "Type": "object"}}`,
	}
	path := writeFile(t, "tools.json", "["+strings.Join(tools, ",")+"]")
	r := cli(t, "catalog", "check", path, "-json")
	if r.code != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "tool_validation_unavailable") {
		t.Fatalf("catalog check of unenforced tools = exit %d, stderr %q; want exit 1 and one line naming tool_validation_unavailable", r.code, r.stderr)
	}
	var rep struct {
		Tools []struct {
			Name      string
			Enforced  bool
			StoppedBy string
		}
		Unenforced int
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, r.stdout)
	}
	got := map[string]string{}
	for _, tool := range rep.Tools {
		v := "enforced"
		if !tool.Enforced {
			v = "stopped by " + tool.StoppedBy
		}
		got[tool.Name] = v
	}
	want := map[string]string{"ok_tool": "enforced", "ref_tool": "stopped by $ref", "deep_tool": "stopped by limit", "typo_tool": "stopped by "}
	if fmt.Sprint(got) != fmt.Sprint(want) || rep.Unenforced != 3 {
		t.Errorf("CALL-4: catalog check = %v (%d unenforced), want %v (3)", got, rep.Unenforced, want)
	}
	text := cli(t, "catalog", "check", path)
	if text.code != 1 || !strings.Contains(text.stdout, "ref_tool\t503: stopped by $ref\t") ||
		!strings.Contains(text.stdout, "typo_tool\t503: malformed schema or unknown keyword\t") {
		t.Errorf("catalog check text = exit %d, stdout %q", text.code, text.stdout)
	}
}

// Refused catalogs: an unreadable file, text that is no list of tools, and a catalog
// discovery.NewCatalog refuses (naming the position and rule, never content) exit 1
// with one line.
func TestCatalogCheckRefused(t *testing.T) {
	dir := t.TempDir()
	refused(t, "cannot read the catalog file", "catalog", "check", filepath.Join(dir, "missing.json"))
	refused(t, "not a JSON array of tools", "catalog", "check", writeFile(t, "bad.json", `[{"name": "a"`))
	refused(t, "not a JSON array of tools", "catalog", "check", writeFile(t, "obj.json", `{"tool": []}`))
	refused(t, "not a JSON array of tools", "catalog", "check", writeFile(t, "num.json", `42`))
	refused(t, "catalog refused: tool 1: duplicate name", "catalog", "check", writeFile(t, "dup.json",
		`[{"name": "a", "inputSchema": {"type": "object"}}, {"name": "a", "inputSchema": {"type": "object"}}]`))
	refused(t, "catalog refused: tool 0: name", "catalog", "check", writeFile(t, "name.json",
		`[{"name": "a b", "inputSchema": {"type": "object"}}]`))
	refused(t, "catalog refused: tool 0: inputSchema", "catalog", "check", writeFile(t, "schema.json", `[{"name": "a"}]`))
}

// rank eval measures package rank on a labelled query set (rank/rankeval), as text or
// JSON; unreadable or malformed files exit 1 with one line.
func TestRankEval(t *testing.T) {
	cat := writeFile(t, "tools.json", `[
		{"name": "list_branches", "title": "List branches", "description": "List the branches of a repository.", "inputSchema": {}},
		{"name": "create_issue", "title": null, "description": "Open a new issue."}]`)
	qs := writeFile(t, "queries.json", `[
		{"query": "listing branches", "relevant": ["list_branches"]},
		{"query": "new issue", "relevant": ["create_issue", "list_branches"]},
		{"query": "nothing here", "relevant": ["no_such_tool"]},
		{"query": "bake a cake", "relevant": []}]`)
	var rep struct {
		Queries      int
		Recall1      float64 `json:"recall@1"`
		MRR10        float64 `json:"mrr@10"`
		EmptyQueries int     `json:"empty_queries"`
		Skipped      []struct{ Unknown string }
	}
	if err := json.Unmarshal([]byte(ok(t, "rank", "eval", "-catalog", cat, "-queries", qs, "-json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 2 || rep.Recall1 != 0.75 || rep.MRR10 != 1 || rep.EmptyQueries != 1 || len(rep.Skipped) != 1 || rep.Skipped[0].Unknown != "no_such_tool" {
		t.Errorf("rank eval -json = %+v, want 2 queries, R@1 0.75, MRR@10 1, 1 empty query, no_such_tool skipped", rep)
	}
	if out := ok(t, "rank", "eval", "-catalog", cat, "-queries", qs); !strings.HasPrefix(out, "2 tools, 4 queries\nqueries    2\nRecall@1   0.7500\n") {
		t.Errorf("rank eval printed %q", out)
	}
	dir := t.TempDir()
	refused(t, "cannot read the catalog file", "rank", "eval", "-catalog", filepath.Join(dir, "none.json"), "-queries", qs)
	refused(t, "cannot read the queries file", "rank", "eval", "-catalog", cat, "-queries", filepath.Join(dir, "none.json"))
	refused(t, "not the JSON rank eval reads", "rank", "eval", "-catalog", writeFile(t, "c.json", `{"name": "x"}`), "-queries", qs)
	refused(t, "not the JSON rank eval reads", "rank", "eval", "-catalog", cat, "-queries", writeFile(t, "q.json", `[{"query": 1}]`))
}

// SPEC CALL-1, CALL-4: catalog check -meta-tools reads meta tools' declarations as a
// Discoverer's catalog does: a meta tool is checked through a call naming one of its
// actions (a call without one is refused before validation, so it would prove
// nothing) and listed with the action IDs grant rows name; a bad declaration file, or
// one the catalog refuses, exits 1 with its rule.
func TestCatalogCheckMetaTools(t *testing.T) {
	keys := `{"name": "keys", "description": "List, create or revoke API keys.", "inputSchema": {"type": "object",
		"properties": {"action": {"type": "string", "enum": ["list", "create", "revoke"]}, "label": {"type": "string"}}, "required": ["action"]}}`
	path := writeFile(t, "tools.json", "["+keys+"]")
	decl := writeFile(t, "meta.json", `{"keys": {"actions": [{"name": "list", "readOnlyHint": true}, {"name": "create"}, {"name": "revoke"}]}}`)
	kBytes, kDigest := canonDigest(t, keys)
	out := ok(t, "catalog", "check", path, "-meta-tools", decl)
	want := "tool\tvalidation\tbytes\tpage\tdigest\n" +
		fmt.Sprintf("keys (keys.list, keys.create, keys.revoke)\tenforced\t%d\tfits\t%s\n", kBytes, kDigest) +
		fmt.Sprintf("1 tools, %d canonical bytes, 0 not enforced\n", kBytes)
	if out != want {
		t.Errorf("catalog check -meta-tools printed\n%s\nwant\n%s", out, want)
	}
	var rep struct{ Tools []struct{ Actions []string } }
	if err := json.Unmarshal([]byte(ok(t, "catalog", "check", "-json", "-meta-tools", decl, path)), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Tools) != 1 || strings.Join(rep.Tools[0].Actions, ",") != "keys.list,keys.create,keys.revoke" {
		t.Errorf("catalog check -json -meta-tools = %+v", rep)
	}
	refused(t, "cannot read the meta tools file", "catalog", "check", path, "-meta-tools", filepath.Join(t.TempDir(), "missing.json"))
	refused(t, "declarations refused: malformed", "catalog", "check", path, "-meta-tools", writeFile(t, "bad.json", `{"keys": `))
	refused(t, "catalog refused: meta tool: no such tool", "catalog", "check", path, "-meta-tools",
		writeFile(t, "other.json", `{"gone": {"actions": [{"name": "list"}]}}`))
}
