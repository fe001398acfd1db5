package plan

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/tooldef"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// ModelCapabilities describe the model that will serve one request, as far as a tool
// plan depends on it (SPEC PLAN-1).
type ModelCapabilities struct {
	// NativeToolSearch reports that the model's provider searches deferred tools itself:
	// it accepts definitions marked "defer_loading": true and loads them on demand (for
	// example Anthropic's tool search tool). The host adds the provider's own search
	// tool, if the provider needs one, when it translates the plan to the provider's
	// request shape.
	NativeToolSearch bool
	// Provider is the request shape the host sends the model's tools in, for
	// Planner.Request. Zero: ProviderGeneric, which always gets a client-side plan.
	Provider Provider
	// ClientToolSearch reports that the provider expands deferred definitions from a
	// search the host answers: Anthropic tool_reference blocks, OpenAI tool_search
	// with "execution": "client". Planner.Request only.
	ClientToolSearch bool
}

// A Mode is the mechanism a tool plan uses to reach deferred tools.
type Mode uint8

// The two plan modes.
const (
	// ClientSide sends the eager tools in full, a name-only catalog of the deferred
	// ones and the discovery tool (discovery.ToolDefinition), which the host answers
	// with Discoverer.DiscoverTool.
	ClientSide Mode = iota
	// Native sends every authorised definition, the deferred ones marked
	// "defer_loading": true, for the provider's own tool search.
	Native
)

// String returns "client-side" or "native".
func (m Mode) String() string {
	if m == Native {
		return "native"
	}
	return "client-side"
}

// A Loading is a deferral override: whether a tool is sent in full or deferred when
// the plan defers at all.
type Loading uint8

// The overrides a Policy maps names to.
const (
	// LoadUnset has no opinion: the next, less specific rule decides.
	LoadUnset Loading = iota
	// LoadEager always sends the tool in full.
	LoadEager
	// LoadDeferred defers the tool whenever the plan's threshold is met.
	LoadDeferred
)

// MetaEagerKey is the member of a tool's _meta object by which the tool itself opts out
// of deferral: "_meta": {"deferredtools/eager": true} keeps it eager, false asks for it
// to be deferred, and any other value (or none) leaves the decision to the policy.
const MetaEagerKey = "deferredtools/eager"

// Default thresholds of a Policy: a plan defers only when the principal's authorised
// set holds at least DefaultMinTools tools or DefaultMinBytes canonical bytes (about
// 10,000 tokens at 4 bytes per token).
const (
	DefaultMinTools = 10
	DefaultMinBytes = 40000
)

// DefaultLineBytes bounds the text after a tool's name in a catalog line.
const DefaultLineBytes = 120

// A Policy decides which authorised tools a plan defers (SPEC PLAN-3). The zero Policy,
// like a nil *Policy, means all defaults; New copies it.
//
// Nothing is deferred while the principal's authorised set is below both thresholds.
// Past either of them, each tool is deferred or sent in full by the first rule that has
// an opinion, most specific first: Tools[name], the tool's own _meta opt-out
// (MetaEagerKey), Servers[longest prefix of name], then Default.
type Policy struct {
	// MinTools is the number of authorised tools from which a plan defers. Zero means
	// DefaultMinTools; a negative value means the count never triggers deferral.
	MinTools int
	// MinBytes is the total canonical size of the authorised tools from which a plan
	// defers. Zero means DefaultMinBytes; a negative value means the size never
	// triggers deferral.
	MinBytes int
	// Default is the loading of a tool no other rule decides. LoadUnset means
	// LoadDeferred.
	Default Loading
	// Servers maps a tool-name prefix (a server's tools share one, like "github_") to
	// its tools' loading; the longest matching prefix decides. Nil: no server rule.
	Servers map[string]Loading
	// Tools maps an exact tool name to its loading. Nil: no tool rule.
	Tools map[string]Loading
	// ToolName names the discovery tool of client-side plans. Empty:
	// discovery.DefaultToolName. The host routes a call to it to
	// Discoverer.DiscoverTool.
	ToolName string
	// LineBytes bounds the text after a tool's name on its catalog line, in bytes,
	// the "..." that marks a cut included. Zero means DefaultLineBytes; values below 3
	// are raised to 3.
	LineBytes int
	// Search picks the provider search of Planner.Request when the model offers
	// more than one: SearchAuto (the provider's hosted search, BM25 on Anthropic),
	// SearchBM25 or SearchRegex (Anthropic's variants), or SearchClient (the
	// Discoverer answers, so grants and ranking stay the host's).
	Search Search
	// Undiscovered is what Planner.CheckCall answers a call to a deferred tool the
	// model has not loaded. Zero: UndiscoveredAnswer.
	Undiscovered Undiscovered
	// OpenAINamespace groups the deferred functions of OpenAI paths into namespaces,
	// of which the model reads only the name and description up front: it returns the
	// namespace of the named tool and the namespace's description, or "" to leave
	// the tool top-level. Nil: no namespaces. It is called once per deferred tool
	// definition, its answer cached with the plan's other per-tool data.
	OpenAINamespace func(tool string) (namespace, description string)
}

// A ToolPlan is what one model request carries of the principal's tools (SPEC PLAN-1).
// Its byte slices are shared with the catalog and the Planner and must not be modified.
type ToolPlan struct {
	// Mode is the mechanism by which the model reaches the deferred tools.
	Mode Mode
	// Tools are the definitions to send, as JSON objects in name order. Native: every
	// authorised tool, the deferred ones with "defer_loading": true added. Client-side:
	// the tools sent in full (eager by policy, or loaded by the session), then the
	// discovery tool when anything is deferred.
	Tools []json.RawMessage
	// Deferred names the deferred tools in name order: those marked defer_loading in a
	// native plan, those on the catalog segment in a client-side one.
	Deferred []string
	// Catalog is the client-side catalog segment for the system prompt: one header line
	// naming the discovery tool (and a second saying what SafeModeMark means when a
	// listed tool bears it), then "- name: one line" per deferred tool in name order,
	// each ending in "\n"; a tool safe mode holds for confirmation is
	// "- name [confirm]: one line". It is empty in native mode and when nothing is
	// deferred. The same catalog version, policy, authorised set and loaded tools give
	// the same bytes.
	Catalog string
	// ToolsBytes is the size of Tools as one JSON array; CatalogBytes is len(Catalog).
	ToolsBytes, CatalogBytes int
	// FullBytes is the size, as one JSON array, of every authorised tool in full: what
	// the request would carry without deferral.
	FullBytes int
	// ContractDigest is the digest of the principal's authorised tool contract (SPEC
	// CONTRACT-2), whatever the plan defers.
	ContractDigest string
}

// Bytes reports what the plan adds to a request: its tools and its catalog segment.
func (p *ToolPlan) Bytes() int { return p.ToolsBytes + p.CatalogBytes }

// A Planner makes the tool plan of each model request from a Discoverer's tools/list
// (ListTools: the principal's authorised tools and their contract digest) and a Policy.
// What the policy decides per tool, the native definitions and the catalog lines are
// derived once per definition and cached by content, keeping no catalog alive; past
// 32 MiB the cache keeps only the list in use. A plan lists the
// principal's tools and walks them. It is safe for concurrent use. Use New: a Planner
// without a Discoverer (the zero value, New(nil, ...)) answers ErrNoDiscoverer.
type Planner struct {
	d        *discovery.Discoverer
	policy   Policy
	toolName string
	toolDef  json.RawMessage
	header   string
	search   [PathOpenAIClient + 1]searchTool // each provider path's search tool
	cache    cache
}

// SafeModeMark follows the name of a tool on a client-side catalog line when the
// Discoverer's safe mode holds its calls for confirmation (package safemode), a meta
// tool's when it holds an action the principal is served (ListResult.SafeModeHolds);
// the catalog's header then says what it means.
const SafeModeMark = " [confirm]"

// safeModeNote is the header line added to a client-side catalog holding a marked tool.
const safeModeNote = "Tools marked [confirm] do not run at first: they answer a preview, and run when the same call is made again with the confirmation it hands out.\n"

// New returns a Planner over d's catalog, grants and visibility. policy is copied; nil
// means defaults. A nil d makes a Planner whose methods answer ErrNoDiscoverer.
func New(d *discovery.Discoverer, policy *Policy) *Planner {
	pl := &Planner{d: d}
	if policy != nil {
		pl.policy = *policy
		pl.policy.Servers = cloneMap(policy.Servers)
		pl.policy.Tools = cloneMap(policy.Tools)
	}
	if pl.policy.MinTools == 0 {
		pl.policy.MinTools = DefaultMinTools
	}
	if pl.policy.MinBytes == 0 {
		pl.policy.MinBytes = DefaultMinBytes
	}
	if pl.policy.LineBytes == 0 {
		pl.policy.LineBytes = DefaultLineBytes
	}
	pl.policy.LineBytes = max(pl.policy.LineBytes, 3)
	if pl.policy.Default == LoadUnset {
		pl.policy.Default = LoadDeferred
	}
	pl.toolName = cmp.Or(pl.policy.ToolName, discovery.DefaultToolName)
	pl.toolDef = discovery.ToolDefinition(pl.toolName)
	pl.search = pl.searchTools()
	pl.header = "More tools are available than are loaded. Call " + pl.toolName +
		" with a few words describing the task to get the full definitions of the matching tools:\n"
	pl.cache.budget = cacheBytes
	return pl
}

func cloneMap(m map[string]Loading) map[string]Loading {
	if m == nil {
		return nil
	}
	c := make(map[string]Loading, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Plan returns the tool plan of one model request by principal p to a model with
// capabilities m. The mode follows m alone, so the next request to another model gets
// that model's mechanism (SPEC PLAN-2). Every authorised tool appears once: in full,
// deferred in a native plan, or on a client-side plan's catalog. No plan defers a tool
// without a discovery path: a client-side plan defers only with the discovery tool
// present, and defers nothing while a catalog tool bears the discovery tool's name.
//
// loaded names the tools the session has already discovered through the discovery
// tool: a client-side plan sends those in full instead of deferring them, so the model
// can call them. Names that are unknown or not authorised are ignored. A native plan
// ignores loaded: the provider keeps what its own search loaded.
//
// Plan calls ListTools, so grants are reread and errors are those of ListTools. While
// the switch is off (SPEC FLAG-2) Plan reads no grant and defers nothing: every catalog
// tool is sent in full.
func (pl *Planner) Plan(ctx context.Context, p grants.Principal, m ModelCapabilities, loaded ...string) (*ToolPlan, error) {
	tp, _, err := pl.plan(ctx, p, m, loaded)
	return tp, err
}

// plan is Plan, also answering the cached data of the plan's tools in plan order when
// the plan defers (nil otherwise).
func (pl *Planner) plan(ctx context.Context, p grants.Principal, m ModelCapabilities, loaded []string) (*ToolPlan, []*toolData, error) {
	if pl.d == nil {
		return nil, nil, errNoDiscoverer
	}
	list, err := pl.d.ListTools(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	tp := &ToolPlan{Mode: ClientSide, ContractDigest: list.ContractDigest}
	if m.NativeToolSearch {
		tp.Mode = Native
	}
	n := len(list.Tools)
	tp.FullBytes = arrayBytes(list.Tools)
	total := tp.FullBytes - 2 - max(n-1, 0) // the canonical bytes, without brackets and commas
	// The list's own catalog version is asked, so the list and the check agree however
	// versions swap (a Discoverer from ReserveToolName with this name refuses such a
	// version before). Without a catalog to ask, the name may be taken: defer nothing
	// client-side.
	taken := true
	if list.Catalog != nil {
		_, taken = list.Catalog.Tool(pl.toolName)
	}
	if !pl.d.Enabled() || !pl.met(n, total) || tp.Mode == ClientSide && taken {
		tp.Tools, tp.ToolsBytes = list.Tools, tp.FullBytes // list.Tools is ours
		return tp, nil, nil
	}

	tools := pl.cache.tools(pl, list)
	var keep []bool // loaded tools a client-side plan sends in full
	if tp.Mode == ClientSide && len(loaded) > 0 {
		keep = make([]bool, n)
		for _, name := range loaded {
			if i, ok := slices.BinarySearchFunc(tools, name, func(t *toolData, name string) int {
				return strings.Compare(t.name, name)
			}); ok {
				keep[i] = true
			}
		}
	}
	var catalog strings.Builder
	// The plan's tools overwrite list.Tools in place (list.Tools is ours, and a tool is
	// read before its slot or an earlier one is written), so a plan allocates no second
	// array of the principal's tools.
	tp.Tools = list.Tools[:0]
	tp.Deferred = make([]string, 0, n)
	header := pl.header
	var held []bool // client-side: safe mode holds the tool's calls, its line marked
	if tp.Mode == ClientSide {
		held = list.AppendSafeModeHolds(make([]bool, 0, n))
		size := len(pl.header)
		marked := false
		for i, t := range tools {
			size += len(t.line)
			if held[i] && !t.eager && (keep == nil || !keep[i]) {
				size += len(SafeModeMark)
				marked = true
			}
		}
		if marked {
			header += safeModeNote
			size += len(safeModeNote)
		}
		catalog.Grow(size)
	}
	for i, t := range tools {
		if t.eager || keep != nil && keep[i] {
			tp.Tools = append(tp.Tools, list.Tools[i]) // its own slot or an earlier one
			continue
		}
		tp.Deferred = append(tp.Deferred, t.name)
		if tp.Mode == Native {
			tp.Tools = append(tp.Tools, t.native)
			continue
		}
		if catalog.Len() == 0 {
			catalog.WriteString(header)
		}
		if held[i] {
			at := markAt(t.name)
			catalog.WriteString(t.line[:at])
			catalog.WriteString(SafeModeMark)
			catalog.WriteString(t.line[at:])
		} else {
			catalog.WriteString(t.line)
		}
	}
	if tp.Mode == ClientSide && len(tp.Deferred) > 0 {
		tp.Tools = append(tp.Tools, pl.toolDef)
		tp.Catalog = catalog.String()
	}
	tp.ToolsBytes = arrayBytes(tp.Tools)
	tp.CatalogBytes = len(tp.Catalog)
	return tp, tools, nil
}

// met reports whether an authorised set of n tools totalling size canonical bytes
// reaches a threshold of the policy.
func (pl *Planner) met(n, size int) bool {
	return pl.policy.MinTools > 0 && n >= pl.policy.MinTools ||
		pl.policy.MinBytes > 0 && size >= pl.policy.MinBytes
}

// arrayBytes is the size of tools as one JSON array.
func arrayBytes(tools []json.RawMessage) int {
	n := 2
	for i, t := range tools {
		if i > 0 {
			n++
		}
		n += len(t)
	}
	return n
}

// derive returns what the Planner's policy makes of def, one canonical definition.
func (pl *Planner) derive(def []byte) *toolData {
	f, reason := tooldef.Read(def) // exact member names, as NewCatalog reads them
	t := &toolData{name: f.Name, eager: true, render: renderOf(f)}
	if reason != "" || pl.loading(f.Name, f.Eager) == LoadEager {
		return t // unreadable (never after NewCatalog) or eager: never deferred
	}
	native, ok := withDeferLoading(def)
	if !ok {
		return t
	}
	t.eager = false
	t.native = native
	t.line = catalogLine(f.Name, f, pl.policy.LineBytes)
	if pl.policy.OpenAINamespace != nil {
		t.ns, t.nsDesc = pl.policy.OpenAINamespace(f.Name)
	}
	return t
}

// loading applies the policy's rules to one tool, most specific first.
func (pl *Planner) loading(name string, meta json.RawMessage) Loading {
	if l := pl.policy.Tools[name]; l == LoadEager || l == LoadDeferred {
		return l
	}
	switch string(meta) {
	case "true":
		return LoadEager
	case "false":
		return LoadDeferred
	}
	best, bestLen := LoadUnset, -1
	for prefix, l := range pl.policy.Servers {
		if (l == LoadEager || l == LoadDeferred) && len(prefix) > bestLen && strings.HasPrefix(name, prefix) {
			best, bestLen = l, len(prefix)
		}
	}
	if best != LoadUnset {
		return best
	}
	return pl.policy.Default
}

// withDeferLoading returns the canonical definition with "defer_loading": true set,
// itself canonical. It answers false for a definition holding a member that differs
// from "defer_loading" only by case, which would become its twin.
func withDeferLoading(canonical []byte) (json.RawMessage, bool) {
	twin := false
	tooldef.Members(canonical, func(key, _ []byte) bool {
		key = key[1 : len(key)-1]
		twin = string(key) != "defer_loading" && bytes.EqualFold(key, []byte("defer_loading"))
		return !twin
	})
	var m map[string]json.RawMessage // map keys match exactly
	if twin || json.Unmarshal(canonical, &m) != nil {
		return nil, false
	}
	m["defer_loading"] = json.RawMessage("true")
	b, err := json.Marshal(m)
	if err != nil {
		return nil, false
	}
	out, _, err := schemaguard.Canonicalize(nil, b)
	if err != nil {
		return nil, false
	}
	return out, true
}

// catalogLine returns "- name: text\n", where text is the first line of the tool's
// description (else its title, else its annotations' title), white space collapsed,
// control characters dropped, cut to at most limit bytes, on a word boundary when the
// text has one, with "..." marking a cut.
func catalogLine(name string, f tooldef.Fields, limit int) string {
	text := firstLine(f.Description)
	if text == "" {
		text = firstLine(f.Title)
	}
	if text == "" {
		text = firstLine(f.AnnTitle)
	}
	if text == "" {
		return "- " + name + "\n"
	}
	if len(text) > limit {
		cut := max(limit-3, 0)
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		if text[cut] != ' ' {
			if sp := strings.LastIndexByte(text[:cut], ' '); sp > 0 {
				cut = sp // end on a whole word when there is one
			}
		}
		text = strings.TrimRight(text[:cut], " ") + "..."
	}
	return "- " + name + ": " + text + "\n"
}

// markAt is where SafeModeMark goes in the catalog line of the tool named name: after
// "- " and the name.
func markAt(name string) int { return len("- ") + len(name) }

// firstLine returns the first non-blank line of s, its white space collapsed to single
// spaces and other control characters removed.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		var b strings.Builder
		space := false
		for _, r := range line {
			switch {
			case unicode.IsSpace(r):
				space = b.Len() > 0
			case unicode.IsControl(r) || r == utf8.RuneError:
			default:
				if space {
					b.WriteByte(' ')
					space = false
				}
				b.WriteRune(r)
			}
		}
		if b.Len() > 0 {
			return b.String()
		}
	}
	return ""
}
