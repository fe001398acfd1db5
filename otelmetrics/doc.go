// Package otelmetrics records a Discoverer's decisions as OpenTelemetry metrics: a
// counter of decisions, a latency histogram and counters of the tools and bytes
// served, each by op and code (see observe.Event). It is a package of its own so
// that importers of the core packages never compile OpenTelemetry.
//
//	m, err := otelmetrics.New(otel.GetMeterProvider())
//	if err != nil { return err }
//	d := discovery.New(&discovery.Options{Observe: m.Observe, ...})
//
// The instruments, all with the attributes deferredtools.op (discover,
// discover_tool, list, authorize_tool, authorize_call) and deferredtools.code (the
// refusal's code, or "ok"):
//
//	deferredtools.decisions         Int64Counter      {decision}
//	deferredtools.decision.duration Float64Histogram  s
//	deferredtools.served.tools      Int64Counter      {tool}
//	deferredtools.served.bytes      Int64Counter      By
//
// No attribute or value holds a query, arguments, a cursor, a tool name or a
// principal: the events carry none, and the attribute values are the op and code
// words, a fixed set (per instrument at most one series per op and code: 5 ops ×
// (discovery.Codes() and "ok"), 5 × 21 today). The catalog version is not an
// attribute: a long-running process would add a series per version. Observe records
// the Op and Code of the event it is given: a Discoverer's events hold only the words
// above, and a host that calls Observe with events of its own owns what their Op and
// Code hold (each new pair is a new series).
//
// A plan.Planner reports through its Discoverer: each Request or Plan as list, each
// CheckCall as authorize_tool, each AnswerAnthropicSearch or AnswerOpenAISearch as
// discover_tool (Example_planner), so on a Discoverer shared by a gateway and an MCP
// server, list counts model requests and tools/list requests together.
package otelmetrics
