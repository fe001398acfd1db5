package discovery_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/validate"
)

// orderCompiler compiles with the default Compiler and records the schemas it was
// given, in order; it is not safe for concurrent use, on purpose (a mutex only
// detects a concurrent call).
type orderCompiler struct {
	mu   sync.Mutex
	def  validate.Compiler
	seen []string
}

func (c *orderCompiler) Compile(schema []byte) (validate.Validator, error) {
	if !c.mu.TryLock() {
		panic("Compile called concurrently")
	}
	defer c.mu.Unlock()
	c.seen = append(c.seen, string(schema))
	return c.def.Compile(schema)
}

// TestCatalogRefusalOrder checks that NewCatalog, which reads tools on every core,
// refuses a large catalog for the first offending tool in input order, each check
// applied as if the tools were read one by one: a name repeated before a malformed tool
// wins; a tool repeating a name is refused for that before its missing inputSchema.
func TestCatalogRefusalOrder(t *testing.T) {
	const n = 1000 // many chunks of the parallel build
	base := func() []json.RawMessage {
		tools := make([]json.RawMessage, n)
		for i := range tools {
			tools[i] = toolDef(fmt.Sprintf("tool_%04d", i), fmt.Sprintf("Tool number %d.", i))
		}
		return tools
	}
	noSchema := func(name string) json.RawMessage {
		return json.RawMessage(`{"name":"` + name + `","description":"x"}`)
	}
	for _, tc := range []struct {
		name   string
		edit   func(tools []json.RawMessage)
		index  int
		reason string
	}{
		{"malformed last", func(ts []json.RawMessage) { ts[n-1] = json.RawMessage(`{"name":`) }, n - 1, "malformed"},
		{"malformed before duplicate", func(ts []json.RawMessage) {
			ts[300] = json.RawMessage(`[]`)
			ts[900] = ts[5]
		}, 300, "malformed"},
		{"duplicate before malformed", func(ts []json.RawMessage) {
			ts[300] = ts[5]
			ts[900] = json.RawMessage(`{`)
		}, 300, "duplicate name"},
		{"duplicate before its missing schema", func(ts []json.RawMessage) { ts[700] = noSchema("tool_0003") }, 700, "duplicate name"},
		{"missing schema", func(ts []json.RawMessage) { ts[700] = noSchema("tool_x") }, 700, "inputSchema"},
		{"bad name before missing schema", func(ts []json.RawMessage) {
			ts[600] = noSchema("tool_y")
			ts[400] = toolDef("bad name", "x")
		}, 400, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools := base()
			tc.edit(tools)
			for _, opts := range []*discovery.CatalogOptions{nil, {Compiler: &orderCompiler{def: validate.NewCompiler(nil)}}} {
				_, err := discovery.NewCatalog(tools, opts)
				var ce *discovery.CatalogError
				if !errors.As(err, &ce) || ce.Index != tc.index || ce.Reason != tc.reason {
					t.Fatalf("NewCatalog = %v, want tool %d: %s", err, tc.index, tc.reason)
				}
			}
		})
	}
}

// TestCatalogCompilerCalledInOrder checks that a Compiler given in CatalogOptions is
// called on one goroutine, once per tool, in input order, while NewCatalog reads the
// tools on every core.
func TestCatalogCompilerCalledInOrder(t *testing.T) {
	const n = 1000
	tools := make([]json.RawMessage, n)
	var want []string
	for i := range tools {
		schema := map[string]any{"type": "object", "properties": map[string]any{fmt.Sprintf("p%d", i): map[string]any{"type": "string"}}}
		tools[i] = toolDefSchema(fmt.Sprintf("tool_%04d", (i*7919)%n), "A tool.", schema)
		b, _ := json.Marshal(schema)
		want = append(want, string(b))
	}
	cc := &orderCompiler{def: validate.NewCompiler(nil)}
	if _, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{Compiler: cc}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cc.seen, want) {
		t.Fatalf("Compile saw %d schemas, want the %d of the tools in input order", len(cc.seen), len(want))
	}
}
