package discovery

import (
	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/internal/tooldef"
)

// This file reads the members of JSON objects by their exact names, without a decoder:
// the discover params and the JSON-RPC envelope (tool definitions: internal/tooldef).
// Every function here takes text that json.Valid (or schemaguard.Canonicalize) has
// already accepted, so it only needs to find boundaries, never to report syntax.

// members calls fn with the raw key (quotes included) and the raw value of each member
// of the JSON object b, in order, until fn answers false (see tooldef.Members).
func members(b []byte, fn func(key, val []byte) bool) bool { return tooldef.Members(b, fn) }

// keyIs reports whether the raw key (quotes included) names name, escapes decoded.
func keyIs(raw []byte, name string) bool { return jsonlex.Equal(raw[1:len(raw)-1], name) }

// stringValue decodes the raw JSON string value; ok is false for any other value.
func stringValue(raw []byte) (string, bool) { return tooldef.StringValue(raw) }
