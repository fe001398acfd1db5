package validate

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/internal/heapsize"
)

// TestLookupManyProperties checks the bisection over many property names, many of one
// length: every declared name is found (its subschema applies, its path is named),
// every other name is not, and required reports the first missing name in required's
// order.
func TestLookupManyProperties(t *testing.T) {
	var names []string
	for _, a := range "abcdefghij" {
		names = append(names, string(a), string(a)+"x", string(a)+"xy", "k"+string(a))
	}
	props := make([]string, len(names))
	for k, n := range names {
		props[k] = fmt.Sprintf("%q:{\"type\":\"integer\"}", n)
	}
	schema := `{"properties":{` + strings.Join(props, ",") + `},"additionalProperties":false,"required":["jxy","a","b"]}`
	v := mustCompile(t, NewCompiler(nil), schema)
	all := `"jxy":1,"a":1,"b":1`
	for _, n := range names {
		// The required members, then n with a string (n may be one of them).
		args := strings.Replace(`{`+all+`}`, fmt.Sprintf(`%q:1`, n), `"-":0`, 1)
		args = strings.Replace(args, `"-":0,`, "", 1)
		args = strings.Replace(args, `,"-":0`, "", 1)
		args = strings.TrimSuffix(args, "}") + fmt.Sprintf(`,%q:"s"}`, n)
		err := v.Validate([]byte(args))
		ve, ok := err.(*ValidationError)
		if !ok || ve.Keyword != "type" || ve.Path != "/"+n {
			t.Errorf("Validate(%s) = %v, want type at /%s", args, err, n)
		}
	}
	for _, n := range []string{"", "k", "z", "ax ", "kk", "jxyz", "ab", "xa"} {
		args := fmt.Sprintf(`{%s,%q:1}`, all, n)
		if got := verdict(v.Validate([]byte(args))); got != "invalid:additionalProperties" {
			t.Errorf("Validate(%s) = %s, want invalid:additionalProperties", args, got)
		}
	}
	for args, path := range map[string]string{`{"a":1,"b":1}`: "/jxy", `{"jxy":1,"b":1}`: "/a", `{"jxy":1,"a":1}`: "/b"} {
		err := v.Validate([]byte(args))
		if ve, ok := err.(*ValidationError); !ok || ve.Keyword != "required" || ve.Path != path {
			t.Errorf("Validate(%s) = %v, want required at %s", args, err, path)
		}
	}
}

// TestSharedSubschemas checks that identical compiled subschemas are one node, in a
// program and across programs and compilers, whatever their annotations, and that
// subschemas that differ in any keyword, or hold an enum, are not shared.
func TestSharedSubschemas(t *testing.T) {
	c := NewCompiler(nil)
	prop := func(v Validator, name string) *schema {
		o := v.(*program).root.obj
		return o.entries[o.lookup([]byte(name))].sub
	}
	a := mustCompile(t, c, `{"properties":{"x":{"type":"integer","maximum":7,"description":"one"},"y":{"type":"integer","maximum":7}}}`)
	b := mustCompile(t, NewCompiler(&Options{Annotations: []string{"title"}}),
		`{"properties":{"z":{"maximum":7,"type":"integer","title":"t"},"w":{"type":"integer","maximum":7.0},"e":{"type":"integer","maximum":7,"enum":[1,8]}}}`)
	if prop(a, "x") != prop(a, "y") || prop(a, "x") != prop(b, "z") {
		t.Error("identical subschemas are not one node")
	}
	if prop(a, "x") == prop(b, "w") || prop(a, "x") == prop(b, "e") {
		t.Error("different subschemas share a node")
	}
	if got := verdict(b.Validate([]byte(`{"e":2}`))); got != "invalid:enum" {
		t.Errorf("enum beside a shared bound: %s, want invalid:enum", got)
	}
	if got := verdict(b.Validate([]byte(`{"e":8}`))); got != "invalid:maximum" {
		t.Errorf("maximum beside an enum: %s, want invalid:maximum", got)
	}
}

// TestProgramKeepsNoSchemaText overwrites the schema text after Compile, and compiles
// another schema whose escaped strings reuse the pooled tape: names, patterns, bounds
// and enum values were copied, so every verdict stays.
func TestProgramKeepsNoSchemaText(t *testing.T) {
	schema := `{"properties":{"name":{"pattern":"^[a-z]+$","enum":["abc","d\u00e9f",{"k":[1,2.50]}]},"n":{"maximum":12.5},"\u00e9":{"type":"null"}},"required":["name"]}`
	cases := map[string]string{
		`{"name":"abc","n":12.5}`:        "ok",
		`{"name":"déf"}`:                 "invalid:pattern",
		`{"name":{"k":[1,2.5]}}`:         "ok",
		`{"name":"abd"}`:                 "invalid:enum",
		`{"name":"abc","n":12.6}`:        "invalid:maximum",
		`{"n":1}`:                        "invalid:required",
		`{"name":{"k":[1,2.5,3]},"n":1}`: "invalid:enum",
		`{"name":"abc","é":1}`:           "invalid:type",
	}
	buf := []byte(schema)
	v, err := NewCompiler(nil).Compile(buf)
	if err != nil {
		t.Fatal(err)
	}
	for k := range buf {
		buf[k] = 'z'
	}
	mustCompile(t, NewCompiler(nil), `{"properties":{"\u0078\u0078\u0078\u0078\u0078\u0078\u0078\u0078\u0078":{"enum":["\u0079\u0079\u0079\u0079\u0079\u0079"]}}}`)
	for args, want := range cases {
		if got := verdict(v.Validate([]byte(args))); got != want {
			t.Errorf("Validate(%s) = %s, want %s", args, got, want)
		}
	}
}

// TestCompileConcurrent compiles the same schemas from several goroutines (the intern
// tables are shared) and checks every program gives the same verdicts.
func TestCompileConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	schemas := make([][]byte, 40)
	for k := range schemas {
		schemas[k] = genSchema(r, 2000)
	}
	c := NewCompiler(nil)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range schemas {
				v, err := c.Compile(s)
				if err != nil {
					t.Error(err)
					return
				}
				if got := verdict(v.Validate([]byte(`{"zz":1}`))); got != "invalid:additionalProperties" && got != "invalid:required" {
					t.Errorf("Validate = %s", got)
				}
			}
		}()
	}
	wg.Wait()
}

// TestInternReleases checks the intern tables keep nothing alive: once the programs
// that share their nodes are gone, their entries go too.
func TestInternReleases(t *testing.T) {
	size := func() int {
		schemas.mu.Lock()
		defer schemas.mu.Unlock()
		return len(schemas.m)
	}
	// Drain first: entries of programs earlier tests dropped leave as their cleanups
	// run, after a collection, and must not leave during the count below.
	base := size()
	for k := 0; k < 100; k++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		n := size()
		if n == base && k >= 2 {
			break
		}
		base = n
	}
	c := NewCompiler(nil)
	vs := make([]Validator, 500)
	for k := range vs {
		vs[k] = mustCompile(t, c, fmt.Sprintf(`{"type":"object","properties":{"a%d":{"type":"integer","maximum":%d}}}`, k, k))
	}
	if got := size(); got < base+1000 {
		t.Fatalf("intern table holds %d entries with the programs alive, want at least %d", got, base+1000)
	}
	runtime.KeepAlive(vs)
	vs = nil
	deadline := time.Now().Add(10 * time.Second)
	for size() > base+100 {
		if time.Now().After(deadline) {
			t.Fatalf("intern table holds %d entries after the programs went, want at most %d", size(), base+100)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRetained checks what compiled programs keep: at most their schemas' JSON
// text on generated schemas (0.76 measured on these 2,000, fewer shared subschemas than
// BenchmarkRetained's 10,000 at 0.50; the schema tape and text kept before the compact
// programs made it 5.4).
func TestRetained(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	gen, size := genSchemas(2000)
	c := NewCompiler(nil)
	heap := heapsize.Retained(func() any {
		vs := make([]Validator, len(gen))
		for k, s := range gen {
			vs[k] = mustCompile(t, c, string(s))
		}
		return vs
	})
	runtime.KeepAlive(gen)
	ratio := float64(heap) / float64(size)
	t.Logf("retained %d B/schema, %.2fx the schema text", heap/int64(len(gen)), ratio)
	if ratio > 1 {
		t.Errorf("programs retain %.2fx their schema text, want at most 1", ratio)
	}
}

// TestWeakTableShrinks checks an intern table gives back its map once most of its
// entries are gone: a Go map keeps its peak capacity through deletes, so 100,000
// entries dropped would otherwise leave about 2.4 MB behind for the process's life.
func TestWeakTableShrinks(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	type value struct {
		p   *int
		pad [2]int
	}
	var w weakTable[uint64, value]
	size := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.m)
	}
	heap := heapsize.Retained(func() any {
		vals := make([]*value, 100000)
		for i := range vals {
			vals[i] = &value{}
			w.intern(uint64(i), vals[i], func(*value) bool { return true })
		}
		if got := size(); got != len(vals) {
			t.Fatalf("table holds %d entries, want %d", got, len(vals))
		}
		runtime.KeepAlive(vals)
		vals = nil
		deadline := time.Now().Add(2 * time.Minute) // liveness only: cleanups run after GC, later under load
		for size() > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("table holds %d entries after the values went", size())
			}
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		return nil
	})
	runtime.KeepAlive(&w)
	t.Logf("empty table retains %d B", heap)
	if heap > 256<<10 {
		t.Errorf("an emptied table retains %d B, want at most 256 KiB", heap)
	}
}
