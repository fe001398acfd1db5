package catalogtest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Properties draws from r the properties of an object schema, adding them until the
// running estimate of the schema's size, started at total, reaches size: integer
// (bounded), enum, array, boolean and string properties, each named and described in
// words of w, about a third of them required. The validate benchmarks and the
// discovery property tests shape their generated schemas with it.
func Properties(r *rand.Rand, w func() string, total, size int) (props map[string]any, required []any) {
	props = map[string]any{}
	for k := 0; total < size; k++ {
		name := fmt.Sprintf("%s_%d", w(), k)
		desc := make([]string, 3+r.IntN(25))
		for j := range desc {
			desc[j] = w()
		}
		var p map[string]any
		switch r.IntN(5) {
		case 0:
			p = map[string]any{"type": "integer", "minimum": 0, "maximum": 1 + r.IntN(10000)}
		case 1:
			p = map[string]any{"type": "string", "enum": []any{w(), w() + "_x", w() + "_y"}}
		case 2:
			p = map[string]any{"type": "array", "items": map[string]any{"type": "string", "maxLength": 64}, "maxItems": 50}
		case 3:
			p = map[string]any{"type": "boolean", "default": false}
		default:
			p = map[string]any{"type": "string", "minLength": 1, "maxLength": 256}
		}
		p["description"] = strings.Join(desc, " ")
		props[name] = p
		if r.IntN(3) == 0 {
			required = append(required, name)
		}
		total += len(name) + len(p["description"].(string)) + 70
	}
	return props, required
}
