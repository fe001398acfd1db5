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
	s := &shapeCheck{t: t, r: r}
	var names []string
	for _, m := range s.flatten(tools) {
		if name, search := s.tool(m); search {
			s.searches++
		} else {
			names = append(names, name)
		}
	}
	// The catalog segment names the client-side plan's deferred tools.
	for line := range strings.Lines(r.System) {
		if name, ok := strings.CutPrefix(line, "- "); ok {
			name, _, _ = strings.Cut(name, ":")
			names = append(names, strings.TrimSpace(name))
		}
	}
	if len(r.Deferred) > 0 && s.searches != 1 {
		t.Errorf("%s: %d search tools with %d deferred, want 1", r.Path, s.searches, len(r.Deferred))
	}
	if len(r.Deferred) == 0 {
		t.Errorf("%s: nothing deferred: the catalog should pass the thresholds", r.Path)
	}
	if r.Path != plan.PathClientSide && r.System != "" {
		t.Errorf("%s: native path carries catalog text (SPEC PLAN-4)", r.Path)
	}
	return names
}

// shapeCheck is checkShape's state: the rendering checked and the search tools seen.
type shapeCheck struct {
	t        *testing.T
	r        *plan.Rendering
	searches int
}

// str reads the string member k of m ("" when absent or not a string).
func str(m map[string]json.RawMessage, k string) string {
	var s string
	json.Unmarshal(m[k], &s)
	return s
}

// allowed checks that m holds only the members named.
func (s *shapeCheck) allowed(m map[string]json.RawMessage, members ...string) {
	s.t.Helper()
	for k := range m {
		if !slices.Contains(members, k) {
			s.t.Errorf("%s: tool %s has member %q, not in the documented shape %v", s.r.Path, str(m, "name"), k, members)
		}
	}
}

// flatten returns tools with each namespace replaced by its members, checking the
// namespace: only on OpenAI paths, documented members, deferred members only.
func (s *shapeCheck) flatten(tools []map[string]json.RawMessage) []map[string]json.RawMessage {
	s.t.Helper()
	r := s.r
	var flat []map[string]json.RawMessage // namespaces' members inlined
	for _, m := range tools {
		if str(m, "type") != "namespace" {
			flat = append(flat, m)
			continue
		}
		// NamespaceToolParam: name, description and tools required.
		s.allowed(m, "type", "name", "description", "tools")
		var members []map[string]json.RawMessage
		if r.Path != plan.PathOpenAIHosted && r.Path != plan.PathOpenAIClient ||
			!providerName.MatchString(str(m, "name")) || str(m, "description") == "" ||
			json.Unmarshal(m["tools"], &members) != nil || len(members) == 0 {
			s.t.Errorf("%s: namespace %s is not a documented namespace", r.Path, m["name"])
		}
		for _, f := range members {
			if string(f["defer_loading"]) != "true" {
				s.t.Errorf("%s: namespace %s holds %s not deferred", r.Path, m["name"], f["name"])
			}
		}
		flat = append(flat, members...)
	}
	return flat
}

// tool checks one tool of the request (a namespace's member inlined) against its
// path's shape, and returns its name and whether it is the search tool. A catalog
// tool's name must follow the providers' name rule.
func (s *shapeCheck) tool(m map[string]json.RawMessage) (name string, search bool) {
	s.t.Helper()
	name = str(m, "name")
	deferred := string(m["defer_loading"]) == "true"
	if v, ok := m["defer_loading"]; ok && string(v) != "true" {
		s.t.Errorf("%s: %s: defer_loading = %s, want true or absent", s.r.Path, name, v)
	}
	switch s.r.Path {
	case plan.PathClientSide:
		search = s.clientSideTool(m, name, deferred)
	case plan.PathAnthropicServer, plan.PathAnthropicClient:
		search = s.anthropicTool(m, name, deferred)
	case plan.PathOpenAIHosted, plan.PathOpenAIClient:
		search = s.openAITool(m, name)
	}
	if !search && !providerName.MatchString(name) {
		s.t.Errorf("%s: tool name %q breaks the providers' name rule", s.r.Path, name)
	}
	return name, search
}

// clientSideTool checks an MCP definition of PathClientSide; the discovery tool is
// its search tool.
func (s *shapeCheck) clientSideTool(m map[string]json.RawMessage, name string, deferred bool) (search bool) {
	s.t.Helper()
	s.allowed(m, "name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta")
	if deferred {
		s.t.Errorf("client-side: %s carries defer_loading", name)
	}
	return name == s.r.SearchTool
}

// anthropicTool checks a tool of an Anthropic path: Anthropic's search tool (server
// path only), or a custom tool, the host's search tool among them (client path only).
func (s *shapeCheck) anthropicTool(m map[string]json.RawMessage, name string, deferred bool) (search bool) {
	s.t.Helper()
	r := s.r
	if typ := str(m, "type"); strings.HasPrefix(typ, "tool_search_tool_") {
		// BetaToolSearchToolBm25_20251119 / BetaToolSearchToolRegex20251119.
		s.allowed(m, "type", "name")
		if !(typ == plan.AnthropicBM25Type && name == plan.AnthropicBM25Name) &&
			!(typ == plan.AnthropicRegexType && name == plan.AnthropicRegexName) {
			s.t.Errorf("%s: search tool %s/%s is not a documented variant", r.Path, typ, name)
		}
		if r.Path != plan.PathAnthropicServer || deferred {
			s.t.Errorf("%s: server search tool present or deferred", r.Path)
		}
		return true
	}
	// BetaTool: name and input_schema required.
	s.allowed(m, "name", "description", "input_schema", "defer_loading")
	if !strings.HasPrefix(string(m["input_schema"]), `{`) {
		s.t.Errorf("%s: %s: input_schema is not an object", r.Path, name)
	}
	if name != r.SearchTool {
		return false
	}
	if r.Path != plan.PathAnthropicClient || deferred {
		s.t.Errorf("%s: host search tool present or deferred", r.Path)
	}
	return true
}

// openAITool checks a tool of an OpenAI path: tool_search (hosted: the type alone;
// client: execution "client" with a description and parameters) or a function.
func (s *shapeCheck) openAITool(m map[string]json.RawMessage, name string) (search bool) {
	s.t.Helper()
	r := s.r
	typ := str(m, "type")
	if typ == "tool_search" {
		// ToolSearchToolParam.
		s.allowed(m, "type", "execution", "description", "parameters")
		exec := str(m, "execution")
		if r.Path == plan.PathOpenAIHosted && len(m) != 1 ||
			r.Path == plan.PathOpenAIClient && (exec != "client" || m["parameters"] == nil || m["description"] == nil) {
			s.t.Errorf("%s: tool_search = %v", r.Path, m)
		}
		return true
	}
	// FunctionToolParam (+ defer_loading).
	s.allowed(m, "type", "name", "description", "parameters", "strict", "defer_loading")
	if typ != "function" || string(m["strict"]) != "false" || !strings.HasPrefix(string(m["parameters"]), `{`) {
		s.t.Errorf("%s: %s: type %q strict %s parameters %.20s", r.Path, name, typ, m["strict"], m["parameters"])
	}
	return false
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
