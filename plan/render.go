package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/tooldef"
)

// A Provider is the request shape a host sends a model's tools in.
type Provider uint8

// The providers Planner.Request renders for.
const (
	// ProviderGeneric is any model: MCP definitions in the tools member and the
	// client-side catalog in the system prompt.
	ProviderGeneric Provider = iota
	// ProviderAnthropic is the Anthropic Messages API ("tools", "system").
	ProviderAnthropic
	// ProviderOpenAI is the OpenAI Responses API ("tools", "instructions").
	ProviderOpenAI
)

// A Search is a Policy's choice of provider search (Policy.Search).
type Search uint8

// The searches a Policy may prefer.
const (
	// SearchAuto is the provider's hosted search when the model has it, else the
	// host's.
	SearchAuto Search = iota
	// SearchBM25 is Anthropic's tool_search_tool_bm25 (natural-language queries).
	SearchBM25
	// SearchRegex is Anthropic's tool_search_tool_regex (Python re patterns).
	SearchRegex
	// SearchClient is a search the host answers through the Discoverer, when the
	// model accepts one (ModelCapabilities.ClientToolSearch).
	SearchClient
)

// A Path is the mechanism one rendered request uses to reach deferred tools.
type Path uint8

// The paths of a Rendering.
const (
	// PathClientSide: eager MCP definitions, the discovery tool, and the catalog
	// segment for the system prompt (a ToolPlan in ClientSide mode, unchanged).
	PathClientSide Path = iota
	// PathAnthropicServer: Anthropic tools, the deferred ones with
	// "defer_loading": true, and Anthropic's tool search tool (BM25 or regex).
	PathAnthropicServer
	// PathAnthropicClient: Anthropic tools, the deferred ones with
	// "defer_loading": true, and the host's search tool, answered by
	// AnswerAnthropicSearch with tool_reference blocks.
	PathAnthropicClient
	// PathOpenAIHosted: Responses function tools, the deferred ones with
	// "defer_loading": true, and the hosted {"type": "tool_search"}.
	PathOpenAIHosted
	// PathOpenAIClient: Responses function tools, the deferred ones with
	// "defer_loading": true, and {"type": "tool_search", "execution": "client"},
	// answered by AnswerOpenAISearch with a tool_search_output item.
	PathOpenAIClient
)

var pathNames = [...]string{"client-side", "anthropic-server", "anthropic-client", "openai-hosted", "openai-client"}

// String returns the path's name, like "anthropic-client".
func (p Path) String() string {
	if int(p) < len(pathNames) {
		return pathNames[p]
	}
	return "unknown"
}

// The names and types of Anthropic's tool search tools (the 2025-11-19 versions,
// beta header "advanced-tool-use-2025-11-20").
const (
	AnthropicBM25Type  = "tool_search_tool_bm25_20251119"
	AnthropicBM25Name  = "tool_search_tool_bm25"
	AnthropicRegexType = "tool_search_tool_regex_20251119"
	AnthropicRegexName = "tool_search_tool_regex"
)

// AnthropicTool is a custom tool of an Anthropic Messages request (SDK type
// BetaTool / ToolParam): the MCP tool's name, description and input schema.
type AnthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
}

// AnthropicSearchTool is Anthropic's server tool search tool (SDK types
// BetaToolSearchToolBm25_20251119, BetaToolSearchToolRegex20251119).
type AnthropicSearchTool struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// OpenAIFunction is a function tool of a Responses request (SDK type
// FunctionToolParam; NamespaceToolParam.ToolFunction for "defer_loading").
// Strict is false: MCP input schemas are not written for strict mode, whose
// requirements (every property required, additionalProperties false) they break.
type OpenAIFunction struct {
	Type         string          `json:"type"` // "function"
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	Parameters   json.RawMessage `json:"parameters"`
	Strict       bool            `json:"strict"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
}

// OpenAINamespace is a group of function tools of a Responses request (SDK type
// NamespaceToolParam); the model calls a member by its own name and the namespace's.
type OpenAINamespace struct {
	Type        string           `json:"type"` // "namespace"
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Tools       []OpenAIFunction `json:"tools"`
}

// OpenAIToolSearch is the Responses tool_search tool (SDK type ToolSearchToolParam):
// hosted when Execution is empty, else "client" with the host's description and
// parameter schema.
type OpenAIToolSearch struct {
	Type        string          `json:"type"` // "tool_search"
	Execution   string          `json:"execution,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// A Rendering is one model request's tools, in its provider's shape: the members to
// set on the request, what the model reads of them up front, and how the model
// searches the rest.
type Rendering struct {
	// Path is the mechanism by which the model reaches the request's deferred tools.
	Path Path
	// Plan is the tool plan rendered: a client-side plan for PathClientSide, a
	// native one for the others.
	Plan *ToolPlan
	// Tools is the request's "tools" member, in order: json.RawMessage MCP
	// definitions (PathClientSide, whatever the provider: a host sending them to
	// Anthropic or OpenAI converts them, as inputSchema is not their member),
	// AnthropicTool and AnthropicSearchTool values, or OpenAIFunction,
	// OpenAINamespace and OpenAIToolSearch values.
	Tools []any
	// System is the text for the system prompt ("system" on Anthropic,
	// "instructions" on OpenAI): the client-side catalog segment, else empty.
	System string
	// Deferred names the tools the request defers, in name order.
	Deferred []string
	// Omitted names the authorised tools a provider path leaves out because their
	// names break the provider's name rule, in name order; the host may serve them
	// under other names. Always empty on PathClientSide.
	Omitted []string
	// SearchTool names the tool by which the model searches the deferred tools:
	// the discovery tool, Anthropic's search tool, the host's Anthropic search tool
	// (answered by AnswerAnthropicSearch) or "tool_search". Empty when nothing is
	// deferred.
	SearchTool string
	// RequestBytes is the size of Tools as one JSON array plus len(System).
	RequestBytes int
	// UpFrontBytes is what the model reads of the request before any search: the
	// tools sent in full, the search tool and System; on OpenAI also each deferred
	// function's name and description, which the Responses API shows the model,
	// or for a namespace its name and description alone.
	UpFrontBytes int
	// FullBytes is the size, in this provider's shape, of every authorised tool sent
	// in full: the request without deferral.
	FullBytes int
}

// Request plans and renders the tools of one model request by principal p to a model
// with capabilities m (SPEC PLAN-1, PLAN-2). The path follows m and the policy
// alone, so the next request to another model gets that model's mechanism:
//
//   - ProviderAnthropic: PathAnthropicClient when the policy prefers SearchClient
//     and m.ClientToolSearch, else PathAnthropicServer when m.NativeToolSearch,
//     else PathAnthropicClient when m.ClientToolSearch;
//   - ProviderOpenAI: likewise PathOpenAIClient and PathOpenAIHosted;
//   - anything else, an Anthropic or OpenAI model with neither search included:
//     PathClientSide, the ToolPlan of Plan with m.NativeToolSearch false, its Tools
//     MCP definitions whatever m.Provider.
//
// A catalog tool bearing the search tool's name moves a host-search path to the
// provider's own search when the model has it, and any other path to PathClientSide
// (which defers nothing if the discovery tool's name is taken too): the provider
// would refuse two tools of one name; a Policy.ToolName breaking the providers' name
// rule does the same when the request defers a tool. On the provider paths a tool
// whose name breaks the providers' rule (1 to 64 of a-z, A-Z, 0-9, "_", "-") is left
// out of the request and named in Rendering.Omitted, since the provider would refuse
// the whole request.
//
// loaded names the tools the session has loaded (through the discovery tool, the
// host's search answers, or CheckCall's UndiscoveredLoad): they are sent in full on
// every path. Grants are reread; errors are those of ListTools.
func (pl *Planner) Request(ctx context.Context, p grants.Principal, m ModelCapabilities, loaded ...string) (*Rendering, error) {
	path := pl.path(m)
	if path != PathClientSide {
		tp, tools, err := pl.plan(ctx, p, ModelCapabilities{NativeToolSearch: true}, nil)
		if err != nil {
			return nil, err
		}
		if tools == nil { // nothing deferred: the plan's tools as they are, none cached
			tools = make([]*toolData, len(tp.Tools))
			for i, def := range tp.Tools {
				f, _ := tooldef.Read(def)
				tools[i] = &toolData{name: f.Name, eager: true, render: renderOf(f)}
			}
		}
		r, ok := pl.renderNative(tp, tools, path, loaded)
		if !ok && m.NativeToolSearch && path == PathAnthropicClient {
			r, ok = pl.renderNative(tp, tools, PathAnthropicServer, loaded) // Anthropic's own search
		}
		if ok {
			return r, nil
		}
	}
	tp, err := pl.Plan(ctx, p, ModelCapabilities{}, loaded...)
	if err != nil {
		return nil, err
	}
	return renderClientSide(tp), nil
}

// path chooses the path of a request to a model with capabilities m.
func (pl *Planner) path(m ModelCapabilities) Path {
	var server, client Path
	switch m.Provider {
	case ProviderAnthropic:
		server, client = PathAnthropicServer, PathAnthropicClient
	case ProviderOpenAI:
		server, client = PathOpenAIHosted, PathOpenAIClient
	default:
		return PathClientSide
	}
	switch {
	case pl.policy.Search == SearchClient && m.ClientToolSearch:
		return client
	case m.NativeToolSearch:
		return server
	case m.ClientToolSearch:
		return client
	}
	return PathClientSide
}

// renderClientSide renders a client-side plan: its MCP definitions and catalog.
func renderClientSide(tp *ToolPlan) *Rendering {
	r := &Rendering{Path: PathClientSide, Plan: tp, System: tp.Catalog, Deferred: tp.Deferred,
		RequestBytes: tp.Bytes(), UpFrontBytes: tp.Bytes(), FullBytes: tp.FullBytes}
	r.Tools = make([]any, len(tp.Tools))
	for i, def := range tp.Tools {
		r.Tools[i] = def
	}
	if len(tp.Deferred) > 0 {
		r.SearchTool = toolName(tp.Tools[len(tp.Tools)-1]) // the discovery tool, last
	}
	return r
}

// upFrontFunction is what the Responses API shows the model of a deferred function
// before tool search loads it: its name and description.
type upFrontFunction struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// toolRender is a tool's definitions for the provider paths, derived once per
// definition (with the plan's other per-tool data), and the sizes of their JSON
// without "defer_loading", so that Request encodes nothing per request.
type toolRender struct {
	anthropic      AnthropicTool
	openAI         OpenAIFunction
	anthropicBytes int
	openAIBytes    int
	upFrontBytes   int // what the Responses API shows of it deferred: name and description
}

// deferLoadingBytes is what "defer_loading": true adds to an encoded definition.
const deferLoadingBytes = len(`,"defer_loading":true`)

// renderOf derives the provider definitions of the tool f. They share one copy of its
// input schema, so a cached entry pins none of the catalog's canonical bytes.
func renderOf(f tooldef.Fields) toolRender {
	f.InputSchema = bytes.Clone(f.InputSchema)
	r := toolRender{anthropic: anthropicTool(f), openAI: openAIFunction(f)}
	r.anthropicBytes, r.openAIBytes = len(marshal(r.anthropic)), len(marshal(r.openAI))
	r.upFrontBytes = len(marshal(upFrontFunction{"function", r.openAI.Name, r.openAI.Description}))
	return r
}

// searchTool is the search tool of a provider path, and the size of its JSON.
type searchTool struct {
	tool  any
	name  string
	bytes int
}

// searchTools makes the search tool of each provider path: they depend on the policy
// and the discovery tool alone, so a Planner makes them once.
func (pl *Planner) searchTools() [PathOpenAIClient + 1]searchTool {
	def, _ := tooldef.Read(pl.toolDef)
	var st [PathOpenAIClient + 1]searchTool
	anth := AnthropicSearchTool{Type: AnthropicBM25Type, Name: AnthropicBM25Name}
	if pl.policy.Search == SearchRegex {
		anth = AnthropicSearchTool{Type: AnthropicRegexType, Name: AnthropicRegexName}
	}
	st[PathAnthropicServer] = searchTool{tool: anth, name: anth.Name}
	st[PathAnthropicClient] = searchTool{tool: anthropicTool(def), name: def.Name}
	st[PathOpenAIHosted] = searchTool{tool: OpenAIToolSearch{Type: "tool_search"}, name: "tool_search"}
	st[PathOpenAIClient] = searchTool{tool: OpenAIToolSearch{Type: "tool_search", Execution: "client",
		Description: def.Description, Parameters: def.InputSchema}, name: "tool_search"}
	for i := range st {
		if st[i].tool != nil {
			st[i].bytes = len(marshal(st[i].tool))
		}
	}
	return st
}

// renderNative renders a native plan for path from tools, the data of tp's tools in
// order, the tools named in loaded sent in full. It answers false when the search
// tool's name is a catalog tool's, which the provider would refuse as a duplicate, or
// breaks the provider's name rule while the request needs it.
func (pl *Planner) renderNative(tp *ToolPlan, tools []*toolData, path Path, loaded []string) (*Rendering, bool) {
	r := &Rendering{Path: path, Plan: tp}
	openAI := path == PathOpenAIHosted || path == PathOpenAIClient
	st := &pl.search[path]
	r.SearchTool = st.name
	var sent, seen, full []int // sizes of the values of each array
	var kept []*toolData       // the data of each of r.Tools, for namespaces
	grouped := openAI && pl.policy.OpenAINamespace != nil
	if grouped {
		kept = make([]*toolData, 0, len(tools))
	}
	r.Tools = make([]any, 0, len(tp.Tools)+1)
	isLoaded := loadedSet(loaded)
	for _, t := range tools {
		if !openAI && t.name == r.SearchTool {
			return nil, false
		}
		if !validName(t.name) {
			r.Omitted = append(r.Omitted, t.name)
			continue
		}
		deferred := !t.eager && !isLoaded(t.name)
		var v any
		var n int
		if openAI {
			o := t.render.openAI
			o.DeferLoading = deferred
			v, n = o, t.render.openAIBytes
			if deferred {
				seen = append(seen, t.render.upFrontBytes)
			}
		} else {
			a := t.render.anthropic
			a.DeferLoading = deferred
			v, n = a, t.render.anthropicBytes
		}
		if deferred {
			n += deferLoadingBytes
		}
		sent = append(sent, n)
		if deferred {
			r.Deferred = append(r.Deferred, t.name)
			full = append(full, n-deferLoadingBytes)
		} else {
			seen = append(seen, n)
			full = append(full, n)
		}
		r.Tools = append(r.Tools, v)
		if grouped {
			kept = append(kept, t)
		}
	}
	if grouped && len(r.Deferred) > 0 {
		sent, seen = namespaces(r, kept, sent, seen)
	}
	switch {
	case len(r.Deferred) == 0:
		r.SearchTool = "" // nothing to search: no search tool
	case !validName(st.name):
		return nil, false // a Policy.ToolName the provider would refuse
	default:
		sent, seen = append(sent, st.bytes), append(seen, st.bytes)
		r.Tools = append(r.Tools, st.tool)
	}
	r.RequestBytes, r.UpFrontBytes, r.FullBytes = sizeOf(sent), sizeOf(seen), sizeOf(full)
	return r, true
}

// loadedSet returns a test of membership in loaded: a map once loaded is long, so a
// request walking every tool stays linear in a long session's loaded tools.
func loadedSet(loaded []string) func(string) bool {
	if len(loaded) <= 8 {
		return func(name string) bool { return slices.Contains(loaded, name) }
	}
	set := make(map[string]struct{}, len(loaded))
	for _, n := range loaded {
		set[n] = struct{}{}
	}
	return func(name string) bool { _, ok := set[name]; return ok }
}

// namespaces groups r's deferred functions by their namespace (toolData.ns, from the
// policy's OpenAINamespace), each namespace where its first member was, and returns
// the sizes of r.Tools, sent and seen up front, updated; kept, sent and seen hold one
// entry per function of r.Tools. A namespace whose name breaks the provider's name
// rule or is a tool's own name is not made: its members stay top-level.
func namespaces(r *Rendering, kept []*toolData, sent, seen []int) ([]int, []int) {
	names := make(map[string]bool, len(r.Tools))
	for _, v := range r.Tools {
		names[v.(OpenAIFunction).Name] = true
	}
	type group struct {
		at    int // index in r.Tools of its first member
		ns    OpenAINamespace
		sizes []int // the sent sizes of its members
	}
	groups := map[string]*group{}
	member := make([]*group, len(r.Tools))
	for i, v := range r.Tools {
		f := v.(OpenAIFunction)
		if !f.DeferLoading {
			continue
		}
		ns, desc := kept[i].ns, kept[i].nsDesc
		if ns == "" || names[ns] || !validName(ns) {
			continue
		}
		g := groups[ns]
		if g == nil {
			g = &group{at: i, ns: OpenAINamespace{Type: "namespace", Name: ns, Description: desc}}
			groups[ns] = g
		}
		g.ns.Tools = append(g.ns.Tools, f)
		g.sizes = append(g.sizes, sent[i])
		member[i] = g
	}
	if len(groups) == 0 {
		return sent, seen
	}
	tools := make([]any, 0, len(r.Tools))
	n := 0 // sent and seen are rewritten in place: n <= i
	for i, v := range r.Tools {
		switch g := member[i]; {
		case g == nil:
			tools = append(tools, v)
			sent[n], seen[n] = sent[i], seen[i]
			n++
		case g.at == i:
			// What the model sees up front is the namespace without its tools.
			head := len(marshal(OpenAINamespace{Type: "namespace", Name: g.ns.Name, Description: g.ns.Description}))
			tools = append(tools, g.ns)
			sent[n] = head - len("null") + sizeOf(g.sizes)
			seen[n] = head - len(`,"tools":null`)
			n++
		}
	}
	r.Tools = tools
	return sent[:n], seen[:n]
}

// validName reports whether name is a valid tool or namespace name for the
// providers: 1 to 64 ASCII letters, digits, "_" or "-".
func validName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// sizeOf is the size of a JSON array of values of the given sizes.
func sizeOf(sizes []int) int {
	n := 2 + max(len(sizes)-1, 0)
	for _, s := range sizes {
		n += s
	}
	return n
}

// anthropicTool is an MCP tool's Anthropic definition. Its description falls back
// to the title; a tool with no input schema takes {"type":"object"}.
func anthropicTool(f tooldef.Fields) AnthropicTool {
	return AnthropicTool{Name: f.Name, Description: describe(f), InputSchema: schemaOf(f)}
}

// openAIFunction is an MCP tool's Responses function definition.
func openAIFunction(f tooldef.Fields) OpenAIFunction {
	return OpenAIFunction{Type: "function", Name: f.Name, Description: describe(f), Parameters: schemaOf(f)}
}

func describe(f tooldef.Fields) string {
	if f.Description != "" {
		return f.Description
	}
	if f.Title != "" {
		return f.Title
	}
	return f.AnnTitle
}

func schemaOf(f tooldef.Fields) json.RawMessage {
	if f.InputSchema == nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return f.InputSchema
}

// marshal is the JSON of a value of this file's types, without HTML escaping, as the
// catalog's canonical text has none. It cannot fail: their raw members are
// canonical JSON from the catalog.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// toolName reads the name of a canonical definition.
func toolName(def json.RawMessage) string {
	f, _ := tooldef.Read(def)
	return f.Name
}
