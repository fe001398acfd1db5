package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/deferredtools/deferredtools/metatool"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/schemaguard"
	"github.com/deferredtools/deferredtools/validate"
)

// A CatalogSource yields the catalog version a request uses. A *Catalog is a
// CatalogSource that always yields itself; a *SwappableCatalog lets a host replace the
// version atomically while requests run. Implementations must be safe for concurrent use.
type CatalogSource interface {
	Catalog(ctx context.Context) (*Catalog, error)
}

// CatalogOptions configure NewCatalog. A nil *CatalogOptions means all defaults.
type CatalogOptions struct {
	// Limits bound the whole catalog, measured on canonical forms (SPEC CONTRACT-3).
	// The zero value means schemaguard's documented defaults.
	Limits schemaguard.Limits
	// Compiler compiles each tool's inputSchema once. Nil means
	// validate.NewCompiler(nil): the bounded validator of the strict CALL-3 subset.
	// NewCatalog does not look inside inputSchema for names differing only by case: a
	// Compiler must read keywords by their exact names, as the default one does.
	// A Compiler given here is called by NewCatalog on one goroutine, tool by tool in
	// input order. The default one compiles a tool's schema at the tool's first call
	// instead (once, however many calls race to it), and its validator or refusal is
	// then kept like a given Compiler's: a call is decided alike either way, and a
	// build does not pay for the validators of tools never called.
	Compiler validate.Compiler
	// Toolset names the toolset a tool belongs to, for toolset selection (SPEC VIS-1).
	// Nil means no tool belongs to any toolset.
	Toolset func(toolName string) string
	// IgnoreParamText ranks each tool by its name, title and description alone, leaving out
	// the text of its parameters (rank.ParamText: their names, descriptions and enum
	// values, which otherwise count a tenth of the description). SPEC DISC-4 lists
	// names, titles and descriptions; by default the descriptions of a tool's
	// parameters are read as part of its descriptions, which finds more of the right
	// tools (rank/TUNING.md has the measurements).
	IgnoreParamText bool
	// Previous is the catalog version this one replaces, or nil. A tool whose JSON text
	// is byte for byte one Previous was built from (looked for where Previous was given
	// it, else by its length and ends; compared byte for byte with the canonical form
	// Previous kept when the text was in canonical form, else by a 128-bit hash keyed at
	// random per process) takes
	// Previous's canonical form, digests and sizes; its
	// compiled validator too when both versions use the default Compiler or the same
	// one (a comparable Compiler value, compared with ==), and its analysed text for
	// ranking when both rank parameter text or neither does. Toolset is called for
	// every tool and Limits checked on the whole catalog, as without Previous. The
	// catalog built is the one NewCatalog builds without Previous, refused alike; it
	// does not retain Previous, only what the two share. A version differing from
	// Previous by a few tools costs a comparison (or hash) of every tool's text with
	// one tool's of Previous (on every core) and a bulk copy of the rank index's
	// postings, not a compilation.
	//
	// A catalog with MetaTools, or replacing one that had them, is built without
	// reuse: Previous is then ignored.
	Previous *Catalog
	// MetaTools declares, by tool name, the catalog's meta tools: tools that take an
	// action argument, each action decided on its own (see package metatool). A declared
	// tool's inputSchema must be {"type":"object"} listing the argument in "required",
	// with properties[argument] an object whose "enum" holds exactly the declared
	// actions' names, each once; the catalog is refused otherwise, and when an action
	// ID is another tool's name or action ID. Nil: no meta tools.
	MetaTools map[string]metatool.Tool
}

// A CatalogError says why NewCatalog refused a catalog: which tool (its position in
// the input) and which rule, never the tool's content. Every refusal of a catalog is
// one: test for it with errors.As.
type CatalogError struct {
	Index int // position of the offending tool, or -1 for the whole catalog
	// Reason is the rule broken: "malformed", "name" (empty, over 128 characters, or a
	// character other than A-Z, a-z, 0-9, '_', '-' and '.'), "duplicate name",
	// "inputSchema", "member names differing only by case", "limit: " and the limit, or for
	// CatalogOptions.MetaTools "meta tool: " and one of "no such tool" (Index -1),
	// "argument" (the schema does not declare the action argument as MetaTools
	// requires), "actions" (no action, more than 256, an invalid or repeated name, or
	// not the enum's values) or "action ID" (an action ID already names a tool or
	// action).
	Reason string
	// Name is the tool's exact "name" member when it was read and is a valid tool name
	// (a host may print it to say which tool), else "". Error does not include it.
	Name  string
	cause error
}

func (e *CatalogError) Error() string {
	if e.Index < 0 {
		return "discovery: catalog refused: " + e.Reason
	}
	return fmt.Sprintf("discovery: catalog refused: tool %d: %s", e.Index, e.Reason)
}

// Unwrap returns the cause, if any (for example a *schemaguard.LimitError).
func (e *CatalogError) Unwrap() error { return e.cause }

// A Catalog is one immutable, compiled version of the host's tools: canonical bytes,
// digests, sizes and the rank index are computed once here, never per request; so are
// validators, here with a given Compiler, at each tool's first call with the default
// one (see CatalogOptions.Compiler). It is safe for concurrent use. Build one with
// NewCatalog: a Discoverer serves a zero Catalog as no catalog (catalog_unavailable).
type Catalog struct {
	tools    []tool // sorted by name, byte order
	byName   map[string]int
	index    *rank.Index
	total    schemaguard.Measure
	contract string // contract digest of the whole catalog (served while the switch is off)

	// What the tools were compiled with, for a later version's reuse (CatalogOptions.Previous).
	compiler  validate.Compiler // as given: nil for the default
	paramText bool              // ranks parameter text
	inputs    []int32           // inputs[i] is the tool given at position i

	cacheID atomic.Uint64 // names the version in a Discoverer's cache keys; see cacheKey

	// Meta tools (metatool.go), all nil without CatalogOptions.MetaTools.
	metas      map[int]*metaTool          // by catalog position
	declared   map[string]metatool.Action // by action ID, as declared
	grantIndex map[string]int             // byName, and each action ID numbered after the tools
	actionTool []int                      // the position of each action's tool, by action number
}

// tool is one compiled catalog entry.
type tool struct {
	name      string
	canonical []byte // RFC 8785 form: what tools/list and discover serve
	digest    [32]byte
	// The text NewCatalog was given, for reuse (CatalogOptions.Previous): its sample,
	// whether it was canonical (the same bytes), and if not its textKey.
	sample       uint64
	rawCanonical bool
	key          textKey
	// What encoding canonical as a JSON string, and as raw JSON, may add (see escapes),
	// for sizing DiscoverTool's pages.
	strEscapes, rawEscapes int
	nodes, depth           int // canonical's Measure, with len(canonical) its Bytes
	readOnly               bool
	destructive            bool // annotations.destructiveHint is true (safe mode)
	toolset                string
	check                  *checker // its validator; shared with versions reusing it
}

// compiled returns the tool's validator, or why it has none.
func (t *tool) compiled() (validate.Validator, error) { return t.check.compiled() }

// A checker holds one tool's validator or the error its Compiler answered. With a
// Compiler given in CatalogOptions it is compiled by NewCatalog; with the default one
// (defaultCompiler) at the first call of compiled, once: concurrent callers wait for
// that compilation and share its outcome. A catalog reusing a tool of Previous shares
// its checker, compiled or not.
type checker struct {
	once   sync.Once
	schema []byte // the inputSchema (aliasing the canonical form) until compiled
	v      validate.Validator
	err    error // why v is nil
}

// defaultCompiler is the Compiler of CatalogOptions.Compiler nil.
var defaultCompiler = validate.NewCompiler(nil)

// lazyChecker returns a checker compiling schema with defaultCompiler when first asked.
func lazyChecker(schema []byte) *checker { return &checker{schema: schema} }

// compiledChecker returns a checker holding what c compiles schema to, compiled now.
func compiledChecker(c validate.Compiler, schema []byte) *checker {
	k := new(checker)
	k.once.Do(func() { k.v, k.err = compile(c, schema) })
	return k
}

// compiled returns the validator, compiling it first when it is lazy and not yet done.
func (k *checker) compiled() (validate.Validator, error) { return k.compiledWith(defaultCompiler) }

// compiledWith is compiled with c as the lazy checker's Compiler. A compilation that
// panics leaves neither validator nor error, and its panic stops here (it would end
// the request, or the process, of the client that called the tool): the tool fails
// closed with ErrUnsupported.
func (k *checker) compiledWith(c validate.Compiler) (validate.Validator, error) {
	k.once.Do(func() {
		defer func() { _ = recover() }()
		schema := k.schema
		k.schema = nil
		k.v, k.err = compile(c, schema)
	})
	if k.v == nil && k.err == nil {
		return nil, validate.ErrUnsupported
	}
	return k.v, k.err
}

// NewCatalog compiles tools, each the JSON text of a complete MCP tool definition. It
// reads every member by its exact name: "InputSchema" is not "inputSchema". It refuses
// the catalog (a *CatalogError) when a tool is malformed, has an invalid name (a valid
// one is 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.', the names MCP clients
// accept: "files/read" or "get weather" is refused, though an SDK may register it),
// repeats a name, has no object inputSchema, holds two member names that differ only by
// case (in the tool object, its annotations or its _meta: a reader matching names
// case-insensitively, as encoding/json's struct decoding does, would read another tool),
// or the catalog exceeds opts.Limits. Inside inputSchema, "id" and "ID" are distinct
// property names and keywords are the Compiler's to read (the default one refuses an
// unknown keyword such as "Type", so such a tool answers tool_validation_unavailable).
// A tool whose schema the Compiler cannot enforce is kept: calls to it answer
// tool_validation_unavailable (SPEC CALL-4). tools is not retained. The work of each
// tool runs on up to GOMAXPROCS goroutines; the refusal is the one of the first
// offending tool in input order, and Toolset is called in input order, as if the tools
// were read one by one.
//
// With opts.Previous, a tool whose text is byte for byte one Previous was built from
// takes what Previous computed for it (see CatalogOptions.Previous); the catalog is the
// one NewCatalog builds without Previous, and refused alike.
func NewCatalog(tools []json.RawMessage, opts *CatalogOptions) (*Catalog, error) {
	var o CatalogOptions
	if opts != nil {
		o = *opts
	}
	if len(o.MetaTools) > 0 || o.Previous != nil && o.Previous.metas != nil {
		o.Previous = nil // meta tools are built afresh (see CatalogOptions.Previous)
	}
	r := newReuse(&o)
	n := len(tools)
	c := &Catalog{compiler: o.Compiler, paramText: !o.IgnoreParamText}
	// Until sortTools makes it, byName holds the names read that Previous lacks.
	if r.prev == nil {
		c.byName = make(map[string]int, n)
	} else {
		c.byName = make(map[string]int)
	}
	// Each input is read into one of: prevOf[i], the tool of Previous built from the same
	// text, kept as it is; or built[i], its index in fresh (and freshDocs, its text for
	// ranking). named[i] is the tool of Previous of the same name, -1 if none.
	prevOf, built, named := r.match(tools), make([]int32, n), make([]int32, n)
	// First, the texts Previous was built from (prevOf).
	var probes []probe // probes[k]: input k of fresh looked for, with its sample and key
	nb := 0
	for i, raw := range tools {
		built[i] = -1
		if prevOf[i] < 0 || !r.validators || !r.rank {
			built[i] = int32(nb)
			nb++
			if r.prev != nil {
				probes = append(probes, r.probeOf(i, raw))
			}
		}
	}
	b := newBuilder(tools, &o, r, prevOf, built, probes, nb)
	b.run()
	var toolsets []string
	if o.Toolset != nil {
		toolsets = make([]string, n)
	}
	// The names read so far: those Previous holds by their position there, the others as
	// keys of c.byName (whose values are set once all are read).
	var prevSeen []bool
	if r.prev != nil {
		prevSeen = make([]bool, len(r.prev.tools))
	}
	seen := func(i int, name string, j int) bool {
		if j < 0 && r.prev != nil {
			if k, ok := r.prev.byName[name]; ok {
				j = k
			}
		}
		named[i] = int32(j)
		if j >= 0 {
			dup := prevSeen[j]
			prevSeen[j] = true
			return dup
		}
		if _, dup := c.byName[name]; dup {
			return true
		}
		c.byName[name] = -1
		return false
	}
	// Then, in input order, the checks that look at other tools, and what the options'
	// functions compute: their calls come in input order, as each tool passes its checks.
	for i := range tools {
		var t *tool
		k := built[i]
		if j := prevOf[i]; j >= 0 {
			// The same text as a tool of Previous: it passed every check below but the
			// one that looks at the other tools.
			t = &r.prev.tools[j]
			if seen(i, t.name, int(j)) {
				return nil, &CatalogError{Index: i, Reason: "duplicate name", Name: t.name}
			}
			if k >= 0 {
				t = &b.fresh[k]
				if !r.validators {
					b.compileLate(k)
				}
			}
		} else {
			if e := b.early[k]; e != nil {
				return nil, e
			}
			t = &b.fresh[k]
			if seen(i, t.name, -1) {
				return nil, &CatalogError{Index: i, Reason: "duplicate name", Name: t.name}
			}
			if b.noSchema[k] {
				return nil, &CatalogError{Index: i, Reason: "inputSchema", Name: t.name}
			}
			b.compileLate(k)
		}
		if toolsets != nil {
			toolsets[i] = o.Toolset(t.name)
		}
		c.total.Bytes += len(t.canonical)
		c.total.Nodes += t.nodes
		c.total.Depth = max(c.total.Depth, t.depth)
	}
	if err := o.Limits.Check(c.total); err != nil {
		reason := "limit"
		var le *schemaguard.LimitError
		if errors.As(err, &le) {
			reason = "limit: " + le.Limit
		}
		return nil, &CatalogError{Index: -1, Reason: reason, cause: err}
	}
	in := catalogInput{prevOf: prevOf, built: built, named: named, fresh: b.fresh, freshDocs: b.docs, toolsets: toolsets}
	c.sortTools(&in, r)
	if err := c.compileMetaTools(o.MetaTools); err != nil {
		return nil, err
	}
	return c, nil
}

// catalogInput is what NewCatalog read, input by input (see NewCatalog).
type catalogInput struct {
	prevOf, built, named []int32
	fresh                []tool
	freshDocs            []rank.Doc
	toolsets             []string // nil when no Toolset was given
}

// name returns the name of input i.
func (in *catalogInput) name(i int32, r *reuse) string {
	if k := in.built[i]; k >= 0 {
		return in.fresh[k].name
	}
	return r.prev.tools[in.prevOf[i]].name
}

// nameOrder returns the inputs in name order: those named as a tool of r.prev in its
// order (no names compared), merged with the others, sorted.
func (in *catalogInput) nameOrder(r *reuse) []int32 {
	n := len(in.built)
	var inPrev, others []int32
	if r.prev != nil {
		at := make([]int32, len(r.prev.tools))
		for j := range at {
			at[j] = -1
		}
		for i, j := range in.named {
			if j >= 0 {
				at[j] = int32(i)
			} else {
				others = append(others, int32(i))
			}
		}
		inPrev = make([]int32, 0, n-len(others))
		for _, i := range at {
			if i >= 0 {
				inPrev = append(inPrev, i)
			}
		}
	} else {
		others = make([]int32, n)
		for i := range others {
			others[i] = int32(i)
		}
	}
	byName := func(a, b int32) int { return strings.Compare(in.name(a, r), in.name(b, r)) }
	if !slices.IsSortedFunc(others, byName) {
		slices.SortFunc(others, byName)
	}
	if len(inPrev) == 0 {
		return others
	}
	if len(others) == 0 {
		return inPrev
	}
	order := make([]int32, 0, n)
	for len(inPrev) > 0 && len(others) > 0 {
		if in.name(others[0], r) < in.name(inPrev[0], r) {
			order, others = append(order, others[0]), others[1:]
		} else {
			order, inPrev = append(order, inPrev[0]), inPrev[1:]
		}
	}
	order = append(order, others...)
	return append(order, inPrev...)
}

// sortTools stores the tools read, in name order, with the contract digest and the rank
// index over them: a tool of r.prev whose text for ranking is analysed alike keeps its
// doc of r.prev's index.
func (c *Catalog) sortTools(in *catalogInput, r reuse) {
	order := in.nameOrder(&r)
	n := len(order)
	// Built from scratch, every input i was read into fresh[i] (built[i] == i): the tools
	// and docs are put in name order where they are, not copied into arrays of their own.
	inPlace := r.prev == nil
	var docs []rank.Doc
	if inPlace {
		c.tools, docs = in.fresh, in.freshDocs
		permute(order, c.tools, docs)
	} else {
		c.tools, docs = make([]tool, n), make([]rank.Doc, n)
	}
	c.inputs = make([]int32, n)
	from := make([]int, n)
	digests := make([][32]byte, n)
	reused, same := 0, r.prev != nil && n == len(r.prev.tools)
	// Names all those of r.prev at the same positions: c.byName is r.prev's.
	sameNames := same
	for p, i := range order {
		sameNames = sameNames && int(in.named[i]) == p
	}
	if sameNames {
		c.byName = r.prev.byName
	} else if r.prev != nil {
		c.byName = make(map[string]int, n)
	}
	for p, i := range order {
		t := &c.tools[p]
		c.inputs[i] = int32(p)
		if !inPlace {
			if k := in.built[i]; k >= 0 {
				*t = in.fresh[k]
				docs[p] = in.freshDocs[k]
			} else {
				*t = r.prev.tools[in.prevOf[i]]
			}
		}
		from[p] = -1
		if j := in.prevOf[i]; j >= 0 && r.rank {
			from[p] = int(j)
			reused++
		}
		same = same && from[p] == p
		t.toolset = ""
		if in.toolsets != nil {
			t.toolset = in.toolsets[i]
		}
		if !sameNames {
			c.byName[t.name] = p
		}
		docs[p].Name = t.name
		digests[p] = t.digest
	}
	switch {
	case same: // every tool as it was, in the same order: the index is the same
		c.index = r.prev.index
	case reused > 0:
		c.index = r.prev.index.Update(docs, from)
	default:
		c.index = rank.NewIndex(docs)
	}
	c.contract = schemaguard.ContractDigest(digests)
}

// permute moves tools[order[p]] and docs[order[p]] to tools[p] and docs[p], for every
// p, in place: order is a permutation of the indexes, each cycle of it followed once.
func permute(order []int32, tools []tool, docs []rank.Doc) {
	done := make([]bool, len(order))
	for p := range order {
		if done[p] || int(order[p]) == p {
			continue
		}
		t, d := tools[p], docs[p]
		j := p
		for {
			done[j] = true
			k := int(order[j])
			if k == p {
				tools[j], docs[j] = t, d
				break
			}
			tools[j], docs[j] = tools[k], docs[k]
			j = k
		}
	}
}

// compile compiles schema, failing closed when the Compiler answers nothing.
func compile(c validate.Compiler, schema []byte) (validate.Validator, error) {
	v, err := c.Compile(schema)
	if v == nil && err == nil {
		err = validate.ErrUnsupported // a Compiler that answered nothing: fail closed
	}
	return v, err
}

// nameIfValid returns name when it is a valid tool name, else "".
func nameIfValid(name string) string {
	if validToolName(name) {
		return name
	}
	return ""
}

// validToolName reports whether name is a tool name MCP clients accept: 1 to 128
// characters from A-Z, a-z, 0-9, '_', '-' and '.'.
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Catalog returns c itself, so a *Catalog is a static CatalogSource.
func (c *Catalog) Catalog(context.Context) (*Catalog, error) { return c, nil }

// built reports whether c was built by NewCatalog: not nil, not a zero Catalog.
func (c *Catalog) built() bool { return c != nil && c.index != nil }

// Len reports the number of tools.
func (c *Catalog) Len() int { return len(c.tools) }

// Names returns the tool names in byte order.
func (c *Catalog) Names() []string {
	names := make([]string, len(c.tools))
	for i, t := range c.tools {
		names[i] = t.name
	}
	return names
}

// Tool returns the canonical definition of the named tool, and whether it exists. The
// returned bytes are shared and must not be modified; an append copies them (no room
// is left past them). A meta tool's holds every action: ListResult.Tool gives the
// definition a principal is served.
func (c *Catalog) Tool(name string) (json.RawMessage, bool) {
	i, ok := c.byName[name]
	if !ok {
		return nil, false
	}
	return c.tools[i].canonical, true // clipped when built: a caller's append copies it
}

// Size reports the canonical size of the whole catalog (SPEC CONTRACT-3).
func (c *Catalog) Size() schemaguard.Measure { return c.total }

// SwappableCatalog is a CatalogSource whose version a host replaces atomically with
// Store; a request sees one version from start to end. The zero value holds no catalog
// and answers catalog_unavailable.
type SwappableCatalog struct {
	p atomic.Pointer[Catalog]
}

// Store makes c the version every later request uses.
func (s *SwappableCatalog) Store(c *Catalog) { s.p.Store(c) }

// Catalog returns the current version.
func (s *SwappableCatalog) Catalog(context.Context) (*Catalog, error) {
	if c := s.p.Load(); c != nil {
		return c, nil
	}
	return nil, newError(CodeCatalogUnavailable, nil)
}
