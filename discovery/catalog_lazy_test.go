package discovery

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/validate"
)

// lazySchemas are input schemas the default Compiler accepts, refuses as unsupported
// ($ref, an unknown keyword) and refuses as over a bound.
var lazySchemas = []string{
	`{"type":"object","properties":{"q":{"type":"string","maxLength":5}},"required":["q"]}`,
	`{"type":"object","properties":{"q":{"$ref":"#/$defs/x"}},"$defs":{"x":{}}}`,
	`{"type":"object","Type":"string"}`,
	`{"type":"object","properties":{"q":{"type":"string","pattern":"` + strings.Repeat("a", 600) + `"}}}`,
}

// TestDefaultCompilerLazy checks that with the default Compiler NewCatalog compiles no
// validator, that a tool's first calls, however many race, compile it once into what
// the Compiler answers for its schema, and that a version reusing the tool through
// Previous shares the compiled validator.
func TestDefaultCompilerLazy(t *testing.T) {
	var tools []json.RawMessage
	for i, s := range lazySchemas {
		tools = append(tools, json.RawMessage(`{"name":"t`+string(rune('a'+i))+`","inputSchema":`+s+`}`))
	}
	cat, err := NewCatalog(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cat.tools {
		if cat.tools[i].check.schema == nil {
			t.Fatalf("tool %s: validator compiled by NewCatalog, want at the first call", cat.tools[i].name)
		}
	}
	type result struct {
		v   validate.Validator
		err error
	}
	got := make([][]result, 16)
	var wg sync.WaitGroup
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range cat.tools {
				v, err := cat.tools[i].compiled()
				got[g] = append(got[g], result{v, err})
			}
		}()
	}
	wg.Wait()
	for i, s := range lazySchemas {
		name := "t" + string(rune('a'+i))
		p := cat.byName[name]
		wv, werr := validate.NewCompiler(nil).Compile([]byte(s))
		first := got[0][p]
		if (first.v == nil) != (wv == nil) || errors.Is(first.err, validate.ErrUnsupported) != errors.Is(werr, validate.ErrUnsupported) ||
			errors.Is(first.err, validate.ErrLimit) != errors.Is(werr, validate.ErrLimit) {
			t.Errorf("tool %s: compiled (%v, %v), the default Compiler answers (%v, %v)", name, first.v != nil, first.err, wv != nil, werr)
		}
		for g := range got {
			if got[g][p] != first {
				t.Errorf("tool %s: goroutine %d got another validator or error: compiled more than once", name, g)
			}
		}
		if cat.tools[p].check.schema != nil {
			t.Errorf("tool %s: schema kept after compiling", name)
		}
	}
	next, err := NewCatalog(tools, &CatalogOptions{Previous: cat})
	if err != nil {
		t.Fatal(err)
	}
	for i := range next.tools {
		if next.tools[i].check != cat.tools[i].check {
			t.Errorf("tool %s: Previous's compiled validator not shared", next.tools[i].name)
		}
	}
}

// TestCheckerPanicFailsClosed checks that a tool whose compilation panicked answers no
// validator and ErrUnsupported afterwards, never a nil error with a nil validator.
func TestCheckerPanicFailsClosed(t *testing.T) {
	k := lazyChecker([]byte(`{}`))
	func() {
		defer func() { _ = recover() }()
		k.once.Do(func() { panic("compiler bug") })
	}()
	if v, err := k.compiled(); v != nil || !errors.Is(err, validate.ErrUnsupported) {
		t.Fatalf("compiled() after a panic = %v, %v; want nil, ErrUnsupported", v, err)
	}
}

// panicCompiler is a Compiler with a bug: it panics.
type panicCompiler struct{}

func (panicCompiler) Compile([]byte) (validate.Validator, error) { panic("compiler bug") }

// TestCheckerPanicAtFirstCall checks that a lazy compilation that panics does not
// panic the call that asked for it (a request's goroutine, which a client chose by
// calling the tool): that call and every later one get no validator and
// ErrUnsupported, so the tool answers tool_validation_unavailable.
func TestCheckerPanicAtFirstCall(t *testing.T) {
	k := lazyChecker([]byte(`{"type":"object"}`))
	for i := range 2 {
		var v validate.Validator
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("call %d: the compiler's panic reached the caller: %v", i, p)
				}
			}()
			v, err = k.compiledWith(panicCompiler{})
		}()
		if v != nil || !errors.Is(err, validate.ErrUnsupported) {
			t.Fatalf("call %d after a panicking compilation = %v, %v; want nil, ErrUnsupported", i, v, err)
		}
	}
	if v, err := k.compiled(); v != nil || !errors.Is(err, validate.ErrUnsupported) {
		t.Fatalf("compiled() after a panicking compilation = %v, %v; want nil, ErrUnsupported", v, err)
	}
}
