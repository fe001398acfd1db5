package plan_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/plan"
)

// checkShape checks the request against its provider's documented members and
// returns the catalog tools it names (search tools excluded).
func checkShape(t *testing.T, r *plan.Rendering, req []byte) []string {
	t.Helper()
	var body map[string]json.RawMessage
	if err := json.Unmarshal(req, &body); err != nil {
		t.Fatal(err)
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(body["tools"], &tools); err != nil {
		t.Fatalf("tools: %v", err)
	}
	str := func(m map[string]json.RawMessage, k string) string {
		var s string
		json.Unmarshal(m[k], &s)
		return s
	}
	allowed := func(m map[string]json.RawMessage, members ...string) {
		for k := range m {
			if !slices.Contains(members, k) {
				t.Errorf("%s: tool %s has member %q, not in the documented shape %v", r.Path, str(m, "name"), k, members)
			}
		}
	}
	var names []string
	searches := 0
	var flat []map[string]json.RawMessage // namespaces' members inlined
	for _, m := range tools {
		if str(m, "type") != "namespace" {
			flat = append(flat, m)
			continue
		}
		// NamespaceToolParam: name, description and tools required.
		allowed(m, "type", "name", "description", "tools")
		var members []map[string]json.RawMessage
		if r.Path != plan.PathOpenAIHosted && r.Path != plan.PathOpenAIClient ||
			!providerName.MatchString(str(m, "name")) || str(m, "description") == "" ||
			json.Unmarshal(m["tools"], &members) != nil || len(members) == 0 {
			t.Errorf("%s: namespace %s is not a documented namespace", r.Path, m["name"])
		}
		for _, f := range members {
			if string(f["defer_loading"]) != "true" {
				t.Errorf("%s: namespace %s holds %s not deferred", r.Path, m["name"], f["name"])
			}
		}
		flat = append(flat, members...)
	}
	for _, m := range flat {
		typ, name := str(m, "type"), str(m, "name")
		deferred := string(m["defer_loading"]) == "true"
		if v, ok := m["defer_loading"]; ok && string(v) != "true" {
			t.Errorf("%s: %s: defer_loading = %s, want true or absent", r.Path, name, v)
		}
		switch r.Path {
		case plan.PathClientSide:
			allowed(m, "name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta")
			if deferred {
				t.Errorf("client-side: %s carries defer_loading", name)
			}
			if name == r.SearchTool {
				searches++
				continue
			}
		case plan.PathAnthropicServer, plan.PathAnthropicClient:
			if strings.HasPrefix(typ, "tool_search_tool_") {
				// BetaToolSearchToolBm25_20251119 / BetaToolSearchToolRegex20251119.
				allowed(m, "type", "name")
				if !(typ == plan.AnthropicBM25Type && name == plan.AnthropicBM25Name) &&
					!(typ == plan.AnthropicRegexType && name == plan.AnthropicRegexName) {
					t.Errorf("%s: search tool %s/%s is not a documented variant", r.Path, typ, name)
				}
				if r.Path != plan.PathAnthropicServer || deferred {
					t.Errorf("%s: server search tool present or deferred", r.Path)
				}
				searches++
				continue
			}
			// BetaTool: name and input_schema required.
			allowed(m, "name", "description", "input_schema", "defer_loading")
			if !strings.HasPrefix(string(m["input_schema"]), `{`) {
				t.Errorf("%s: %s: input_schema is not an object", r.Path, name)
			}
			if name == r.SearchTool {
				if r.Path != plan.PathAnthropicClient || deferred {
					t.Errorf("%s: host search tool present or deferred", r.Path)
				}
				searches++
				continue
			}
		case plan.PathOpenAIHosted, plan.PathOpenAIClient:
			if typ == "tool_search" {
				// ToolSearchToolParam.
				allowed(m, "type", "execution", "description", "parameters")
				exec := str(m, "execution")
				if r.Path == plan.PathOpenAIHosted && len(m) != 1 ||
					r.Path == plan.PathOpenAIClient && (exec != "client" || m["parameters"] == nil || m["description"] == nil) {
					t.Errorf("%s: tool_search = %v", r.Path, m)
				}
				searches++
				continue
			}
			// FunctionToolParam (+ defer_loading).
			allowed(m, "type", "name", "description", "parameters", "strict", "defer_loading")
			if typ != "function" || string(m["strict"]) != "false" || !strings.HasPrefix(string(m["parameters"]), `{`) {
				t.Errorf("%s: %s: type %q strict %s parameters %.20s", r.Path, name, typ, m["strict"], m["parameters"])
			}
		}
		if !providerName.MatchString(name) {
			t.Errorf("%s: tool name %q breaks the providers' name rule", r.Path, name)
		}
		names = append(names, name)
	}
	// The catalog segment names the client-side plan's deferred tools.
	for line := range strings.Lines(r.System) {
		if name, ok := strings.CutPrefix(line, "- "); ok {
			name, _, _ = strings.Cut(name, ":")
			names = append(names, strings.TrimSpace(name))
		}
	}
	if len(r.Deferred) > 0 && searches != 1 {
		t.Errorf("%s: %d search tools with %d deferred, want 1", r.Path, searches, len(r.Deferred))
	}
	if len(r.Deferred) == 0 {
		t.Errorf("%s: nothing deferred: the catalog should pass the thresholds", r.Path)
	}
	if r.Path != plan.PathClientSide && r.System != "" {
		t.Errorf("%s: native path carries catalog text (SPEC PLAN-4)", r.Path)
	}
	return names
}

// checkGranted checks that names are the granted tools, each once, and that no
// denied tool's name appears anywhere in the request.
func checkGranted(t *testing.T, f *renderFixture, names []string, req []byte) {
	t.Helper()
	var want []string
	for _, n := range f.all {
		if !slices.Contains(f.denied, n) {
			want = append(want, n)
		}
	}
	got := slices.Clone(names)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the request names %d tools, want the %d granted ones once each", len(got), len(want))
	}
	for _, n := range f.denied {
		if bytes.Contains(req, []byte(`"`+n+`"`)) || bytes.Contains(req, []byte("- "+n+":")) ||
			bytes.Contains(req, []byte("- "+n+" [")) || bytes.Contains(req, []byte("- "+n+`\n`)) {
			t.Errorf("ungranted %s appears in the request", n)
		}
	}
}

// checkRenderSizes checks the rendering's byte counts against its encoded request.
func checkRenderSizes(t *testing.T, r *plan.Rendering) {
	t.Helper()
	arr := encode(t, r.Tools)
	if got := len(arr) + len(r.System); got != r.RequestBytes {
		t.Errorf("%s: RequestBytes = %d, the encoded tools and system take %d", r.Path, r.RequestBytes, got)
	}
	if !(r.UpFrontBytes < r.RequestBytes || r.Path == plan.PathClientSide) || r.UpFrontBytes >= r.FullBytes {
		t.Errorf("%s: up front %d, request %d, full %d: deferral should show less up front", r.Path, r.UpFrontBytes, r.RequestBytes, r.FullBytes)
	}
}
