package rank

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// maxParamDepth bounds how deep ParamText looks into nested schemas; parameter text
// deeper than this says little about what the tool is for.
const maxParamDepth = 16

// ParamText returns the text of a tool's parameters, for [Doc].Params: the name, title
// and description of every property of inputSchema, nested ones too (through properties,
// items, additionalProperties, anyOf, oneOf and allOf), and the string values of each
// property's enum and const, properties in name order. Left out: the schema's own title
// and description (they are the tool's), shared definitions under $defs (the same text
// in many tools, which cost notion 0.05 nDCG@10), and enums of array items (github
// -0.017). A schema that is not a JSON object gives "".
func ParamText(inputSchema []byte) string {
	var root map[string]any
	if json.Unmarshal(inputSchema, &root) != nil {
		return ""
	}
	var b strings.Builder
	add := func(s string) {
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	var walk func(schema any, depth int)
	walk = func(schema any, depth int) {
		m, ok := schema.(map[string]any)
		if !ok || depth > maxParamDepth {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(props)) {
				add(name)
				p, _ := props[name].(map[string]any)
				for _, k := range [...]string{"title", "description", "const"} {
					if s, ok := p[k].(string); ok {
						add(s)
					}
				}
				if e, ok := p["enum"].([]any); ok {
					for _, v := range e {
						if s, ok := v.(string); ok {
							add(s)
						}
					}
				}
				walk(p, depth+1)
			}
		}
		walk(m["items"], depth+1)
		walk(m["additionalProperties"], depth+1)
		for _, k := range [...]string{"anyOf", "oneOf", "allOf"} {
			if l, ok := m[k].([]any); ok {
				for _, x := range l {
					walk(x, depth+1)
				}
			}
		}
	}
	walk(root, 0)
	return b.String()
}
