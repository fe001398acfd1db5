package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/tooldef"
)

// An Undiscovered is a Policy's answer to a model calling a deferred tool it has
// not loaded (Policy.Undiscovered).
type Undiscovered uint8

// The answers CheckCall gives such a call.
const (
	// UndiscoveredAnswer answers the call with a structured tool result that names
	// the tool and the discovery path (CallAnswer).
	UndiscoveredAnswer Undiscovered = iota
	// UndiscoveredLoad loads the tool and has the host retry the turn (CallRetry).
	UndiscoveredLoad
)

// A CallAction is what the host does with a model's tool call (CallCheck.Action).
type CallAction uint8

// The actions of a CallCheck.
const (
	// CallRun: the tool was in the model's context; authorise and run the call as
	// usual (Discoverer.AuthorizeCall; the request's search tool, DiscoverTool or
	// AnswerAnthropicSearch).
	CallRun CallAction = iota
	// CallRetry: add CallCheck.Load to the session's loaded tools, render the
	// request again with Request, and send the turn again in place of the answer
	// that made this call.
	CallRetry
	// CallAnswer: answer the call with CallCheck.Result as its tool result, marked
	// as an error (Anthropic "is_error": true), without running the tool.
	CallAnswer
)

// A CallCheck is CheckCall's decision on one tool call.
type CallCheck struct {
	// Action is what the host does with the call: run it, retry the turn, or answer it.
	Action CallAction
	// Load names the tool to load before the retry (CallRetry).
	Load []string
	// Result is the JSON object to answer the call with (CallAnswer):
	// {"error":"tool_not_loaded","tool":name,"message":...,"discover":{"tool":
	// search tool,"arguments":{...}}}, the arguments a search that finds the tool.
	Result json.RawMessage
}

// ErrNotRendered is the answer of CheckCall, AnswerAnthropicSearch and
// AnswerOpenAISearch for a nil Rendering or one without its plan.
var ErrNotRendered = errors.New("plan: no rendering")

// ErrNoDiscoverer is the answer of every Planner method that needs the Discoverer when
// the Planner has none (the zero value, or New(nil, ...)). The error also matches
// discovery.CodeCatalogUnavailable (503), which a Discoverer without a catalog answers.
var ErrNoDiscoverer = errors.New("plan: no Discoverer")

// errNoDiscoverer is ErrNoDiscoverer as the methods answer it.
var errNoDiscoverer = fmt.Errorf("%w: %w", ErrNoDiscoverer, discovery.CodeCatalogUnavailable)

// CheckCall decides what the host does with the model's call of tool in answer to
// request r, the session having loaded the tools named in loaded. Grants decide
// first: a tool the principal may not call is refused with Discoverer.AuthorizeTool's
// error (tool_not_granted), as any call. A call reaches the deferred-tool rule only
// when the tool is deferred in r and not loaded on a path where the host knows what
// the model loaded: PathClientSide, PathAnthropicClient and PathOpenAIClient (on the
// provider-hosted paths, the provider loads tools and would not emit a call to one
// it has not loaded). Such a call is answered by the policy's Undiscovered and never
// passed on to run, so the model learns how to load the tool instead of meeting a
// provider error or a silent failure. A call of r's own search tool on a path where the
// host answers it (Rendering.SearchTool on PathClientSide, PathAnthropicClient) is
// CallRun without a grant read: the host routes it to DiscoverTool or
// AnswerAnthropicSearch, which read the grants. On PathOpenAIClient the model searches
// with a tool_search_call item, for AnswerOpenAISearch, not a function call:
// CheckCall refuses the name "tool_search" as any tool the catalog lacks.
func (pl *Planner) CheckCall(ctx context.Context, p grants.Principal, r *Rendering, tool string, loaded ...string) (*CallCheck, error) {
	if r == nil || r.Plan == nil {
		return nil, ErrNotRendered
	}
	if tool != "" && tool == r.SearchTool && (r.Path == PathClientSide || r.Path == PathAnthropicClient) {
		return &CallCheck{Action: CallRun}, nil
	}
	if pl.d == nil {
		return nil, errNoDiscoverer
	}
	if err := pl.d.AuthorizeTool(ctx, p, tool); err != nil {
		return nil, err
	}
	if _, deferred := slices.BinarySearch(r.Deferred, tool); !deferred ||
		slices.Contains(loaded, tool) ||
		r.Path == PathAnthropicServer || r.Path == PathOpenAIHosted {
		return &CallCheck{Action: CallRun}, nil
	}
	if pl.policy.Undiscovered == UndiscoveredLoad {
		return &CallCheck{Action: CallRetry, Load: []string{tool}}, nil
	}
	return &CallCheck{Action: CallAnswer, Result: notLoaded(r, tool)}, nil
}

// notLoaded is the structured result naming r's discovery path for tool.
func notLoaded(r *Rendering, tool string) json.RawMessage {
	type discover struct {
		Tool      string         `json:"tool"`
		Arguments map[string]any `json:"arguments"`
	}
	args := map[string]any{"query": tool} // the host's search: the discovery params
	return marshal(struct {
		Error    string   `json:"error"`
		Tool     string   `json:"tool"`
		Message  string   `json:"message"`
		Discover discover `json:"discover"`
	}{"tool_not_loaded", tool,
		"This tool is deferred and its definition is not loaded yet. Call " + r.SearchTool +
			" with the arguments below to load it, then call it again.",
		discover{r.SearchTool, args}})
}

// AnthropicToolResult is a tool_result content block of an Anthropic user turn (SDK
// type BetaToolResultBlockParam).
type AnthropicToolResult struct {
	Type      string             `json:"type"` // "tool_result"
	ToolUseID string             `json:"tool_use_id"`
	Content   []AnthropicContent `json:"content"`
	IsError   bool               `json:"is_error,omitempty"`
}

// AnthropicContent is a block of a tool result's content: a tool reference
// (BetaToolReferenceBlockParam, "tool_reference" with "tool_name") or text.
type AnthropicContent struct {
	Type     string `json:"type"`
	ToolName string `json:"tool_name,omitempty"`
	Text     string `json:"text,omitempty"`
}

// AnswerAnthropicSearch answers the model's call of the host's search tool on
// PathAnthropicClient (tool_use id toolUseID, input its arguments) with the
// Discoverer's page (DiscoverTool: grants reread, our ranking and paging): one
// tool_reference block per deferred tool found, in rank order, then a text block
// naming the found tools r already sends in full, and one carrying the next page's
// cursor when there is one. Anthropic expands a reference from the deferred
// definition the request holds, so a tool found but not in r (granted since r was
// made) is left out: it is in the next request. Invalid arguments answer
// an error result naming the discovery code; loaded lists the referenced tools. A nil
// r, or one without its plan, answers ErrNotRendered.
func (pl *Planner) AnswerAnthropicSearch(ctx context.Context, p grants.Principal, r *Rendering, toolUseID string, input json.RawMessage) (res *AnthropicToolResult, loaded []string, err error) {
	if r == nil || r.Plan == nil {
		return nil, nil, ErrNotRendered
	}
	if pl.d == nil {
		return nil, nil, errNoDiscoverer
	}
	res = &AnthropicToolResult{Type: "tool_result", ToolUseID: toolUseID}
	page, err := pl.d.DiscoverTool(ctx, p, input)
	if err != nil {
		code, ok := refusal(err)
		if !ok {
			return nil, nil, err
		}
		res.IsError = true
		res.Content = []AnthropicContent{{Type: "text", Text: "search refused: " + string(code)}}
		return res, nil, nil
	}
	var held []string // found tools the request sends in full
	for _, def := range page.Tools {
		switch name, _ := pl.pageTool(def); {
		case isDeferred(r, name):
			res.Content = append(res.Content, AnthropicContent{Type: "tool_reference", ToolName: name})
			loaded = append(loaded, name)
		case sentInFull(r, name):
			held = append(held, name)
		}
	}
	if len(held) > 0 {
		res.Content = append(res.Content, AnthropicContent{Type: "text",
			Text: "Also matching, already loaded: " + strings.Join(held, ", ") + "."})
	}
	if page.NextCursor != "" {
		res.Content = append(res.Content, AnthropicContent{Type: "text",
			Text: "More tools match: call " + r.SearchTool + " again with the same query and cursor " + string(marshal(page.NextCursor)) + "."})
	}
	if len(res.Content) == 0 {
		res.Content = []AnthropicContent{{Type: "text", Text: "No tools match."}}
	}
	return res, loaded, nil
}

// OpenAIToolSearchOutput is the input item answering a client-executed tool search
// call (SDK type ResponseToolSearchOutputItemParam).
type OpenAIToolSearchOutput struct {
	Type      string `json:"type"` // "tool_search_output"
	CallID    string `json:"call_id"`
	Execution string `json:"execution"` // "client"
	Status    string `json:"status"`    // "completed"
	// Tools are OpenAIFunction values, and OpenAINamespace values holding the
	// found members of a namespace the request holds.
	Tools []any `json:"tools"`
}

// AnswerOpenAISearch answers a tool_search_call of PathOpenAIClient (its call_id and
// arguments) with the Discoverer's page: the deferred tools found, in rank order, as
// function definitions, a namespace's members inside their namespace (placed where
// its first member ranks); those r sends in full or does not hold are left out.
// Arguments the discovery tool refuses answer an output with no tools; loaded lists the
// tools returned. A nil r, or one without its plan, answers ErrNotRendered.
func (pl *Planner) AnswerOpenAISearch(ctx context.Context, p grants.Principal, r *Rendering, callID string, arguments json.RawMessage) (out *OpenAIToolSearchOutput, loaded []string, err error) {
	if r == nil || r.Plan == nil {
		return nil, nil, ErrNotRendered
	}
	if pl.d == nil {
		return nil, nil, errNoDiscoverer
	}
	out = &OpenAIToolSearchOutput{Type: "tool_search_output", CallID: callID, Execution: "client",
		Status: "completed", Tools: []any{}}
	page, err := pl.d.DiscoverTool(ctx, p, arguments)
	if err != nil {
		if _, ok := refusal(err); !ok {
			return nil, nil, err
		}
		return out, nil, nil
	}
	var spaces map[string]int // the index in r.Tools of each namespace, by member
	for i, v := range r.Tools {
		if ns, ok := v.(OpenAINamespace); ok {
			if spaces == nil {
				spaces = make(map[string]int)
			}
			for _, f := range ns.Tools {
				spaces[f.Name] = i
			}
		}
	}
	var found map[string]int // index in out.Tools of a namespace answered
	for _, def := range page.Tools {
		name, fn := pl.pageTool(def)
		if !isDeferred(r, name) {
			continue
		}
		loaded = append(loaded, name)
		at, ok := spaces[name]
		if !ok {
			out.Tools = append(out.Tools, fn)
			continue
		}
		ns := r.Tools[at].(OpenAINamespace)
		i, ok := found[ns.Name]
		if !ok {
			if found == nil {
				found = make(map[string]int)
			}
			i = len(out.Tools)
			found[ns.Name] = i
			out.Tools = append(out.Tools, OpenAINamespace{Type: "namespace", Name: ns.Name, Description: ns.Description})
		}
		g := out.Tools[i].(OpenAINamespace)
		g.Tools = append(g.Tools, fn)
		out.Tools[i] = g
	}
	return out, loaded, nil
}

// refusal returns err's code when err is the discovery tool refusing the model's
// arguments (a discovery.Error under 500), which is answered to the model; false for any
// other error, which the host gets.
func refusal(err error) (discovery.Code, bool) {
	var de *discovery.Error
	if errors.As(err, &de) && de.Code.Status() < 500 {
		return de.Code, true
	}
	return "", false
}

// pageTool returns the name and OpenAI function of def, a definition on a discovery
// page: those the Planner derived from the same bytes (it rendered the request), else
// read from def.
func (pl *Planner) pageTool(def json.RawMessage) (string, OpenAIFunction) {
	if t, ok := pl.cache.known(def); ok {
		return t.name, t.render.openAI
	}
	f, _ := tooldef.Read(def)
	return f.Name, openAIFunction(f)
}

// isDeferred reports whether r's request defers the tool named name.
func isDeferred(r *Rendering, name string) bool {
	_, ok := slices.BinarySearch(r.Deferred, name)
	return ok
}

// sentInFull reports whether r's request sends the tool named name in full.
func sentInFull(r *Rendering, name string) bool {
	for _, v := range r.Tools {
		switch t := v.(type) {
		case AnthropicTool:
			if t.Name == name && !t.DeferLoading {
				return true
			}
		case OpenAIFunction:
			if t.Name == name && !t.DeferLoading {
				return true
			}
		}
	}
	return false
}
