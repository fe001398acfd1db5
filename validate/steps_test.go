package validate

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// realisticPatterns are patterns of the shapes tool schemas use (the real catalogs in
// ../shared/data have none; these are the common shapes of OpenAPI and MCP tools),
// each with strings that match and strings that do not.
var realisticPatterns = []struct {
	pattern string
	gen     func(r *rand.Rand, n int) string // a string of about n code units
}{
	{`^[a-z][a-z0-9-]{2,40}$`, func(r *rand.Rand, n int) string { return "a" + word(r, min(n, 40)) }},
	{`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, func(r *rand.Rand, _ int) string {
		return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint64()&0xffffffffffff)
	}},
	{`^\d{4}-\d{2}-\d{2}$`, func(r *rand.Rand, _ int) string {
		return fmt.Sprintf("20%02d-%02d-%02d", r.IntN(100), 1+r.IntN(12), 1+r.IntN(28))
	}},
	{`^[a-z]+(?:-[a-z]+)*$`, func(r *rand.Rand, n int) string { return word(r, n/2+1) + "-" + word(r, n/2+1) }},
	{`^[^@\s]+@[^@\s]+\.[a-z]{2,}$`, func(r *rand.Rand, n int) string { return word(r, n) + "@example.org" }},
	{`^https?://`, func(r *rand.Rand, n int) string { return "https://example.org/" + word(r, n) }},
	{`^(GET|POST|PUT|PATCH|DELETE)$`, func(r *rand.Rand, _ int) string {
		return []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}[r.IntN(6)]
	}},
	{`^v\d+\.\d+\.\d+(?:-[a-z0-9.]+)?$`, func(r *rand.Rand, _ int) string {
		return fmt.Sprintf("v%d.%d.%d-rc.%d", r.IntN(9), r.IntN(99), r.IntN(99), r.IntN(9))
	}},
	{`^[\p{L}\p{N} _.-]+$`, func(r *rand.Rand, n int) string { return strings.Repeat("Zoë ", n/4+1) }},
	{`\S`, func(r *rand.Rand, n int) string { return strings.Repeat(" ", n/2) + "x" }},
	{`^[A-Z]{2}$`, func(r *rand.Rand, _ int) string { return string(rune('A'+r.IntN(26))) + string(rune('A'+r.IntN(26))) }},
	{`^\+?[0-9 ()-]{7,20}$`, func(r *rand.Rand, _ int) string { return fmt.Sprintf("+1 (555) %07d", r.IntN(1e7)) }},
	// 512 code units: a long literal and a long alternation, the size SPEC CALL-5 allows.
	{"^" + strings.Repeat("abcdefgh", 63) + "xyz$", func(r *rand.Rand, _ int) string { return strings.Repeat("abcdefgh", 63) + "xyz" }},
	{strings.Repeat("a", 512), func(r *rand.Rand, n int) string { return strings.Repeat("a", max(n, 512)) }},
	{"^(?:" + strings.TrimSuffix(strings.Repeat("alpha|bravo|charlie|delta|echo|foxtrot|golf|hotel|", 10), "|") + ")+$", func(r *rand.Rand, n int) string {
		w := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"}
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(w[r.IntN(len(w))])
		}
		return b.String()
	}},
}

func word(r *rand.Rand, n int) string {
	b := make([]byte, max(n, 1))
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return string(b)
}

// stepCase is one schema and argument text of the corpus.
type stepCase struct{ name, schema, args string }

// stepCorpus generates arguments within the node and length bounds (default Limits)
// against realistic schemas: many short strings or one long one against each
// realistic pattern, records of nested objects and arrays with enums and formats, a
// large enum over thousands of items, and anyOf over thousands of items.
func stepCorpus(r *rand.Rand) []stepCase {
	var out []stepCase
	for _, p := range realisticPatterns {
		pat, _ := json.Marshal(p.pattern)
		items := `{"type":"array","items":{"type":"string","pattern":` + string(pat) + `}}`
		for _, shape := range []struct{ count, n int }{{8000, 8}, {4000, 60}, {500, 500}, {1, 250000}} {
			var list []string
			units := 0
			for len(list) < shape.count {
				s := p.gen(r, shape.n)
				if units+len(s) > 260000 {
					break
				}
				units += len(s)
				list = append(list, s)
			}
			args, _ := json.Marshal(list)
			out = append(out, stepCase{fmt.Sprintf("pattern %.30q %d×%d", p.pattern, shape.count, shape.n), items, string(args)})
		}
	}
	tags := `["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t"]`
	record := `{"type":"object","properties":{` +
		`"id":{"type":"string","pattern":"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"},` +
		`"name":{"type":"string","minLength":1,"maxLength":200},` +
		`"email":{"type":"string","format":"email"},` +
		`"status":{"enum":["open","closed","merged","draft"]},` +
		`"tags":{"type":"array","items":{"enum":` + tags + `},"uniqueItems":true},` +
		`"score":{"type":"number","minimum":0,"maximum":100},` +
		`"owner":{"type":"object","properties":{"login":{"type":"string"},"id":{"type":"integer"}},"required":["login"]},` +
		`"labels":{"type":"object","additionalProperties":{"type":"string","maxLength":50}}` +
		`},"required":["id","name"],"additionalProperties":false}`
	var recs []string
	for nodes := 0; nodes+40 < 8000; nodes += 38 {
		recs = append(recs, fmt.Sprintf(`{"id":"%08x-0000-4000-8000-%012x","name":"record %d","email":"u%d@example.org","status":"open",`+
			`"tags":["a","c","q","t"],"score":%d.5,"owner":{"login":"u%d","id":%d},`+
			`"labels":{"k1":"v","k2":"v","k3":"v","k4":"v","k5":"v","k6":"v","k7":"v","k8":"v","k9":"v","k10":"v","k11":"v","k12":"v","k13":"v","k14":"v","k15":"v","k16":"v"}}`,
			r.Uint32(), r.Uint64()&0xffffffffffff, nodes, nodes, r.IntN(100), nodes, nodes))
	}
	out = append(out, stepCase{"records", `{"type":"array","items":` + record + `}`, "[" + strings.Join(recs, ",") + "]"})
	// 250 country-like codes, 8,000 items.
	var codes, picks []string
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'J'; b++ {
			codes = append(codes, `"`+string(a)+string(b)+`"`)
		}
	}
	for range 7800 {
		picks = append(picks, codes[r.IntN(len(codes))])
	}
	out = append(out, stepCase{"enum of 260 codes over 7800 items", `{"type":"array","items":{"enum":[` + strings.Join(codes, ",") + `]}}`, "[" + strings.Join(picks, ",") + "]"})
	var mixed []string
	for i := range 8000 {
		mixed = append(mixed, []string{`"s"`, "1", "null", "2.5"}[i%4])
	}
	out = append(out, stepCase{"anyOf over 8000 items", `{"type":"array","items":{"anyOf":[{"type":"string","maxLength":10},{"type":"integer","minimum":0},{"type":"null"},{"type":"number"}]}}`, "[" + strings.Join(mixed, ",") + "]"})
	// Objects of 16 members each, to the node bound.
	var objs []string
	for len(objs) < 8000/17 {
		var b strings.Builder
		b.WriteString("{")
		for k := range 16 {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"field%d":%d`, k, r.IntN(1000))
		}
		b.WriteString("}")
		objs = append(objs, b.String())
	}
	out = append(out, stepCase{"objects of 16 members", `{"type":"array","items":{"type":"object","additionalProperties":{"type":"integer"}}}`, "[" + strings.Join(objs, ",") + "]"})
	return out
}

// TestStepBudgetCorpus: every generated input within the node and length bounds,
// against a realistic schema, is accepted or refused by a keyword, never by the work
// budget, and takes well under SPEC PERF-4's 5 ms of work steps.
//
// SPEC CALL-5
// SPEC PERF-4
func TestStepBudgetCorpus(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	c := NewCompiler(&Options{Annotations: AnnotationKeywords})
	for _, tc := range stepCorpus(r) {
		v := mustCompile(t, c, tc.schema)
		start := time.Now()
		steps, err := v.(*program).run([]byte(tc.args))
		if err == errSteps || verdict(err) == "limit" {
			t.Errorf("%s: Validate = %v after %d steps, want a verdict", tc.name, err, steps)
			continue
		}
		t.Logf("%s: %s, %d steps, %v", tc.name, verdict(err), steps, time.Since(start))
	}
}

// TestStepBudgetRealCatalogs: arguments generated from every tool schema of the real
// catalogs, grown to the node and length bounds (long strings, long arrays), are
// accepted or refused by a keyword, never by the work budget.
//
// SPEC CALL-5
func TestStepBudgetRealCatalogs(t *testing.T) {
	cats := loadCatalogs(t)
	c := NewCompiler(&Options{Annotations: AnnotationKeywords})
	r := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for _, name := range slices.Sorted(maps.Keys(cats)) {
		for _, tool := range cats[name] {
			v, err := c.Compile(tool.InputSchema)
			if err != nil {
				continue // refused schemas are TestCatalogs' business
			}
			var schema any
			if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{1, 30, 1000, 8000} {
				g := &instGen{r: r, size: size, nodes: 6000, units: 200000}
				args, err := json.Marshal(g.value(schema, 0))
				if err != nil {
					t.Fatal(err)
				}
				steps, err := v.(*program).run(args)
				if verdict(err) == "limit" {
					t.Errorf("%s/%s size %d: Validate = %v after %d steps, want a verdict", name, tool.Name, size, err, steps)
				}
				checked++
			}
		}
	}
	t.Logf("%d argument texts checked", checked)
}

// instGen generates a value for a decoded schema, spending a budget of nodes and
// string code units so the result stays within the bounds: arrays get up to size
// items and strings up to size code units.
type instGen struct {
	r            *rand.Rand
	size         int
	nodes, units int
}

func (g *instGen) value(s any, depth int) any {
	g.nodes--
	m, _ := s.(map[string]any)
	if m == nil || depth > 12 || g.nodes < 10 {
		return nil
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[g.r.IntN(len(e))]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			return g.value(alts[g.r.IntN(len(alts))], depth)
		}
	}
	typ, _ := m["type"].(string)
	if ts, ok := m["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch {
	case typ == "object" || m["properties"] != nil:
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if g.nodes < 10 || g.units < len(k)+10 {
				break
			}
			g.units -= len(k)
			out[k] = g.value(props[k], depth+1)
		}
		return out
	case typ == "array" || m["items"] != nil:
		var out []any
		n := g.size
		if mx, ok := m["maxItems"].(float64); ok && int(mx) < n {
			n = int(mx)
		}
		for i := 0; i < n && g.nodes > 10; i++ {
			out = append(out, g.value(m["items"], depth+1))
		}
		return out
	case typ == "string":
		n := max(min(g.size, g.units/4), 0)
		if mx, ok := m["maxLength"].(float64); ok && int(mx) < n {
			n = int(mx)
		}
		if mn, ok := m["minLength"].(float64); ok && int(mn) > n && int(mn) < g.units {
			n = int(mn)
		}
		g.units -= n
		return word(g.r, n)
	case typ == "integer":
		return g.r.IntN(100)
	case typ == "number":
		return g.r.Float64() * 100
	case typ == "boolean":
		return g.r.IntN(2) == 0
	}
	return "x"
}

// BenchmarkStepCorpus times each case of the step corpus (cpu-ns/op beside ns/op on
// a shared machine) and reports the work steps it spends (steps/op): their ratio is
// the time of a step the package doc quotes.
func BenchmarkStepCorpus(b *testing.B) {
	c := NewCompiler(&Options{Annotations: AnnotationKeywords})
	for _, tc := range stepCorpus(rand.New(rand.NewPCG(1, 2))) {
		v := mustCompile(b, c, tc.schema)
		args := []byte(tc.args)
		b.Run(strings.ReplaceAll(tc.name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			reportCPU(b, func() {
				for b.Loop() {
					v.Validate(args)
				}
			})
			steps, _ := v.(*program).run(args)
			b.ReportMetric(float64(steps), "steps/op")
		})
	}
}

// TestStepBudgetAdversarial lists the schemas that still hit the work budget with
// arguments within the node and length bounds: their real work grows with a product
// the bounds do not cap, so the budget refuses them (ErrLimit) before the work runs.
// TestAdversarial has two more: anyOf of 100 branches over 8,000 items (branches ×
// items) and (a|aa){0,1000}b on the longest string (a 7,003-instruction program on
// Go's regexp).
//
// SPEC CALL-5
// SPEC PERF-4
func TestStepBudgetAdversarial(t *testing.T) {
	short := make([]string, 8000)
	for i := range short {
		short[i] = fmt.Sprintf("w%07d", i)
	}
	shortArgs, _ := json.Marshal(short)
	fewerArgs, _ := json.Marshal(append(short[:7799:7799], "longer than every maxLength"))
	long := `"` + strings.Repeat("ab", 125000) + `"`
	branches := make([]string, 40)
	for i := range branches {
		branches[i] = fmt.Sprintf(`{"type":"array","items":{"type":"string","maxLength":%d}}`, 8+i)
	}
	for _, tc := range []struct{ name, why, schema, args string }{
		{"word boundaries over 8000 strings", "\\b runs on Go's regexp, charged (bytes + 1) × instructions per string",
			`{"items":{"pattern":"\\bw\\d+\\b"}}`, string(shortArgs)},
		{"an automaton too large on a long string", "(a|b)*a(a|b){20} needs 2^21 states: Go's regexp, charged its worst case",
			`{"pattern":"(a|b)*a(a|b){20}"}`, long},
		{"oneOf of 40 array branches over 7800 items", "every branch checks every item before the last fails it: branches × items",
			`{"oneOf":[` + strings.Join(branches, ",") + `]}`, string(fewerArgs)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := mustCompile(t, NewCompiler(nil), tc.schema)
			steps, err := v.(*program).run([]byte(tc.args))
			if err != errSteps {
				t.Errorf("Validate = %v after %d steps, want the work budget (%s)", err, steps, tc.why)
			}
		})
	}
}

// TestEnumIndex: an enum of 16 values or more is looked up by hash and answers as
// the scan of a shorter one does: JSON equality, numbers by value, objects whatever
// their member order, no coercion.
//
// SPEC CALL-3
// SPEC CALL-8
func TestEnumIndex(t *testing.T) {
	values := []string{`1`, `"one"`, `null`, `true`, `{"a":1,"b":[2,"x"]}`, `[1,2]`, `0`, `2.5`,
		`123456789012345678901234567890`, `"é"`, `[]`, `{}`, `"1"`, `1e400`, `[[1]]`, `{"k":null}`}
	tests := []struct {
		args string
		in   bool
	}{
		{`1.0`, true}, {`1e0`, true}, {`10e-1`, true}, {`"one"`, true}, {`null`, true}, {`true`, true},
		{`{"b":[2.0,"x"],"a":1}`, true}, {`[1,2]`, true}, {`-0`, true}, {`0.0e5`, true}, {`25e-1`, true},
		{`1.23456789012345678901234567890e29`, true}, {`"\u00e9"`, true}, {`[]`, true}, {`{}`, true},
		{`"1"`, true}, {`10e399`, true}, {`[[1.0]]`, true}, {`{"k":null}`, true},
		{`2`, false}, {`"two"`, false}, {`false`, false}, {`{"a":1,"b":[2,"y"]}`, false}, {`[2,1]`, false},
		{`123456789012345678901234567891`, false}, {`"e"`, false}, {`[null]`, false}, {`{"k":0}`, false},
		{`1e401`, false}, {`[1]`, false}, {`{"a":1}`, false},
	}
	for _, n := range []int{15, 16} {
		schema := `{"enum":[` + strings.Join(values[:n], ",") + `]}`
		v := mustCompile(t, NewCompiler(nil), schema)
		if root := v.(*program).root; (root.x != nil && root.x.enumH != nil) != (n >= enumIndexMin) {
			t.Fatalf("%d values: indexed %v", n, n < enumIndexMin)
		}
		for _, tt := range tests {
			if n == 15 && tt.args == `{"k":null}` {
				continue // the 16th value
			}
			want := "invalid:enum"
			if tt.in {
				want = "ok"
			}
			if got := verdict(v.Validate([]byte(tt.args))); got != want {
				t.Errorf("%d values: Validate(%s) = %s, want %s", n, tt.args, got, want)
			}
		}
	}
}
