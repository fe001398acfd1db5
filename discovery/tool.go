package discovery

import (
	"encoding/json"
	"strconv"
)

// DefaultToolName is the name of the discovery tool for clients that cannot send the
// discover method (see ToolDefinition).
const DefaultToolName = "search_tools"

// queryPattern is DISC-2's "no control characters" (Unicode category Cc: U+0000–U+001F,
// U+007F–U+009F) as a JSON string holding an ECMA-262 pattern, so that the schema served
// for the query is the one enforced.
const queryPattern = `"^[^\\u0000-\\u001F\\u007F-\\u009F]*$"`

// ToolDefinition returns the MCP tool definition of the discovery tool named name
// (empty: DefaultToolName): a tool whose arguments are the discover params, _meta aside
// (MCP carries it in the tools/call params, not in the arguments), and whose result is a
// discovery page. Its input schema, run by package validate, accepts exactly what
// DiscoverTool accepts (TestToolSchemaIsEnforced); a JavaScript validator would also
// accept a lone surrogate escape, which both refuse. Hosts list it for clients that
// can only call tools, and plans hand it to models without native tool search (SPEC
// PLAN-1).
func ToolDefinition(name string) json.RawMessage {
	if name == "" {
		name = DefaultToolName
	}
	quoted, _ := json.Marshal(name) // JSON string syntax, not Go's: strconv.Quote differs
	return json.RawMessage(`{"name":` + string(quoted) +
		`,"description":"Search the tools available to you by a few words describing the task, and get the best-matching tools with their complete input schemas, a page at a time. Call a tool it returns by its name.",` +
		`"inputSchema":{"type":"object","properties":{` +
		`"query":{"type":"string","minLength":1,"maxLength":` + strconv.Itoa(MaxQueryLength) + `,"pattern":` + queryPattern + `,"description":"A few words naming what you want to do, for example: model search."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":` + strconv.Itoa(MaxLimit) + `,"description":"Most tools to return on this page."},` +
		`"cursor":{"type":"string","description":"nextCursor of the previous page, to continue the same search."}},` +
		`"required":["query"],"additionalProperties":false},` +
		`"annotations":{"readOnlyHint":true,"openWorldHint":false}}`)
}
