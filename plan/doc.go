// Package plan makes per-request tool plans for LLM harnesses: provider-native deferral
// or client-side discovery (SPEC PLAN-1..4).
//
// A harness builds one Planner over a discovery.Discoverer with New and, for each model
// request, asks Request for that request's tools in its provider's shape (or Plan for
// the same plan in MCP shape):
//
//	pl := plan.New(d, &plan.Policy{MinTools: 5, Servers: map[string]plan.Loading{"gitlab_": plan.LoadEager}})
//	r, err := pl.Request(ctx, p, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true})
//	// set r.Tools as the request's "tools", r.System as its "system" (OpenAI: "instructions")
//	c, err := pl.CheckCall(ctx, p, r, toolTheModelCalled, loaded...) // before running a tool call
//
// ExamplePlanner_Request runs this for three models in turn, ExamplePlanner_CheckCall
// shows each answer of CheckCall. On PathClientSide Rendering.Tools are MCP
// definitions ("inputSchema") whatever the provider, also for an Anthropic or OpenAI
// model without tool search: a host speaking another API shape converts them.
//
// Plans defer
// nothing while the switch is off, or below the Policy thresholds; a tool's _meta member
// MetaEagerKey ("deferredtools/eager") opts it in or out; if a catalog tool already
// bears the discovery tool's name, client-side plans defer nothing, since the model
// could not tell the two apart. Every plan that defers a tool gives the model a way to
// find it (SPEC PLAN-2).
//
// Planner.Request renders a plan in the request shape of the model's provider
// (ModelCapabilities.Provider), as plain values to set on the request's "tools" and
// system members, with the bytes the model reads up front:
//
//   - Anthropic Messages, PathAnthropicServer: custom tools {name, description,
//     input_schema}, the deferred ones "defer_loading": true, and the tool search tool
//     {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"} or
//     its regex variant, by Policy.Search
//     (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool;
//     SDK types BetaTool, BetaToolSearchToolBm25_20251119,
//     BetaToolSearchToolRegex20251119);
//   - Anthropic, PathAnthropicClient: the same tools and the host's search tool,
//     whose calls AnswerAnthropicSearch answers from the Discoverer with
//     tool_reference blocks ("Custom tool search implementation" on that page;
//     BetaToolResultBlockParam, BetaToolReferenceBlockParam): the provider expands
//     definitions the request holds, grants and ranking stay the host's;
//   - OpenAI Responses, PathOpenAIHosted: function tools {type, name, description,
//     parameters, strict} with "defer_loading": true and {"type": "tool_search"}
//     (https://developers.openai.com/api/docs/guides/tools-tool-search; openai-python
//     FunctionToolParam, NamespaceToolParam.ToolFunction, ToolSearchToolParam),
//     grouped into namespaces by Policy.OpenAINamespace (NamespaceToolParam);
//   - OpenAI, PathOpenAIClient: the same with {"type": "tool_search", "execution":
//     "client"}, whose tool_search_call AnswerOpenAISearch answers with a
//     tool_search_output item (ResponseToolSearchOutputItemParam);
//   - any other model, PathClientSide: the client-side plan as it is.
//
// CheckCall answers a model's call of a deferred tool it has not loaded by
// Policy.Undiscovered (load it and retry the turn, or a structured result naming the
// discovery path), after the grants, which refuse as for any call.
//
// Each method passes its ctx to the Discoverer, which refuses a nil one with
// discovery.ErrNilContext (internal_error). A Planner without a Discoverer (the zero
// value, or New(nil, ...)) answers ErrNoDiscoverer, also catalog_unavailable (503).
package plan
