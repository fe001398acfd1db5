package discovery

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"unsafe"

	"github.com/deferredtools/deferredtools/internal/parallel"
	"github.com/deferredtools/deferredtools/internal/tooldef"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/schemaguard"
	"github.com/deferredtools/deferredtools/validate"
)

// buildChunk is how many tools one goroutine of a catalog build takes at a time.
const buildChunk = 64

// A builder reads, on every core, the inputs of NewCatalog that no tool of Previous
// can stand for as it is: each tool's canonical form, digests, sizes and text for
// ranking; with the default Compiler, a checker that compiles its validator at the
// tool's first call. It looks at no other tool: the checks that do, and the calls of
// the options' functions (a given Compiler's too), stay with NewCatalog.
type builder struct {
	tools  []json.RawMessage
	o      *CatalogOptions
	r      reuse
	prevOf []int32
	probes []probe // probes[k] is input inputs[k] as looked for in Previous; nil without
	inputs []int32 // inputs[k] is the input built as fresh[k]

	compiler validate.Compiler // the Compiler given, nil for the default (lazy) one
	// fresh[k] and docs[k] are what input inputs[k] was read into; early[k] says why it
	// was refused before its name could be compared with the others', noSchema[k] that
	// it has no object inputSchema (refused unless its name is a duplicate).
	fresh    []tool
	docs     []rank.Doc
	pieces   []rank.Pieces // docs[k].ParamPieces, when set, is &pieces[k]
	early    []*CatalogError
	noSchema []bool
	// schemas[k] is the inputSchema of fresh[k] left for compileLate, when a Compiler
	// was given (nil otherwise): it is called in input order, on one goroutine.
	schemas [][]byte
}

func newBuilder(tools []json.RawMessage, o *CatalogOptions, r reuse, prevOf, built []int32, probes []probe, nb int) *builder {
	b := &builder{
		tools: tools, o: o, r: r, prevOf: prevOf, probes: probes,
		inputs:   make([]int32, nb),
		compiler: o.Compiler,
		fresh:    make([]tool, nb),
		docs:     make([]rank.Doc, nb),
		early:    make([]*CatalogError, nb),
		noSchema: make([]bool, nb),
	}
	if b.compiler != nil {
		b.schemas = make([][]byte, nb)
	}
	if !o.IgnoreParamText {
		b.pieces = make([]rank.Pieces, nb)
	}
	for i, k := range built {
		if k >= 0 {
			b.inputs[k] = int32(i)
		}
	}
	return b
}

// scratch is one build worker's space, reused tool after tool: the canonical form
// being written, and the spans of a tool's parameter text.
type scratch struct {
	buf   []byte
	spans []uint32
}

// run reads every input to build.
func (b *builder) run() {
	// scratch[w] is worker w's, written back once a range, not once a tool (the
	// workers' headers share a line).
	scratch := make([]scratch, parallel.Workers(len(b.inputs), buildChunk))
	parallel.Chunks(len(b.inputs), buildChunk, func(w, lo, hi int) {
		s := scratch[w]
		for k := lo; k < hi; k++ {
			b.read(k, &s)
		}
		scratch[w] = s
	})
}

// read reads input inputs[k] into fresh[k], with s as scratch space.
func (b *builder) read(k int, s *scratch) {
	i := int(b.inputs[k])
	if j := b.prevOf[i]; j >= 0 {
		// A tool of Previous whose validator or text for ranking is not this version's.
		nt := b.r.prev.tools[j]
		f, plain, _ := b.readFields(nt.canonical, s)
		if !b.r.validators {
			b.compile(&nt, k, f.InputSchema)
		}
		if !b.r.rank {
			b.docs[k] = b.rankDoc(k, f, nt.canonical, s.spans, plain)
		}
		b.fresh[k] = nt
		return
	}
	raw := b.tools[i]
	nt := &b.fresh[k]
	// Written in the worker's scratch, then kept in a copy of its own length: its length
	// is not known before (indented text shrinks, a number as 1e+300 grows), and the
	// copy of a form still in cache costs less than memory allocated for the text.
	buf, m, err := schemaguard.Canonicalize(s.buf[:0], raw)
	s.buf = buf
	if err != nil {
		b.early[k] = &CatalogError{Index: i, Reason: "malformed", cause: err}
		return
	}
	// Clipped: the form is handed to every caller, so an append must copy it, never
	// write into room past it that another caller's append would share.
	nt.canonical = slices.Clip(slices.Clone(buf))
	// Read from the canonical form: a member name there is spelled one way only.
	f, plain, reason := b.readFields(nt.canonical, s)
	if reason != "" {
		b.early[k] = &CatalogError{Index: i, Reason: reason, Name: nameIfValid(f.Name)}
		return
	}
	if !validToolName(f.Name) {
		b.early[k] = &CatalogError{Index: i, Reason: "name"}
		return
	}
	nt.name = f.Name
	schema := f.InputSchema
	if len(schema) == 0 || schema[0] != '{' {
		b.noSchema[k] = true
		return
	}
	pr := &probe{text: raw}
	if b.probes != nil {
		pr = &b.probes[k]
	}
	nt.readOnly, nt.destructive = f.ReadOnly, f.Destructive
	nt.sample, nt.rawCanonical = pr.sampleOf(), bytes.Equal(raw, nt.canonical)
	if !nt.rawCanonical {
		nt.key = pr.keyOf()
	}
	nt.nodes, nt.depth = m.Nodes, m.Depth
	nt.digest = schemaguard.Digest(nt.canonical)
	nt.strEscapes, nt.rawEscapes = canonicalEscapes(nt.canonical)
	b.compile(nt, k, schema)
	b.docs[k] = b.rankDoc(k, f, nt.canonical, s.spans, plain)
}

// readFields reads the members of the canonical tool def and, in the same pass, the
// parameter text of its inputSchema into s.spans as spans of def (plain says whether
// they are the text; see tooldef.ReadParamSpans), unless parameters are left out of
// ranking.
func (b *builder) readFields(def []byte, s *scratch) (f tooldef.Fields, plain bool, reason string) {
	if b.o.IgnoreParamText {
		f, reason = tooldef.Read(def)
		return f, false, reason
	}
	f, s.spans, plain, reason = tooldef.ReadParamSpans(def, s.spans[:0])
	return f, plain, reason
}

// rankDoc returns the text rank indexes for the tool f, doc k, read from its canonical
// form def, whose parameter text readFields read as spans of def: its pieces when
// plain, no copy of them (the canonical form is kept, and never written), else the
// text decoded. A meta tool's parameter text leaves out its action enum (SPEC DISC-5:
// an action a caller is not served must not move their results). Name is set by the
// caller.
func (b *builder) rankDoc(k int, f tooldef.Fields, def []byte, spans []uint32, plain bool) rank.Doc {
	doc := rank.Doc{Title: cmp.Or(f.Title, f.AnnTitle), Description: f.Description}
	if b.o.IgnoreParamText {
		return doc
	}
	switch m, meta := b.o.MetaTools[f.Name]; {
	case meta:
		doc.Params = metaParamText(f.InputSchema, argumentOf(m))
	case plain && len(spans) == 0: // no parameter text
	case plain:
		b.pieces[k] = rank.Pieces{Src: unsafe.String(unsafe.SliceData(def), len(def)), Spans: slices.Clone(spans)}
		doc.ParamPieces = &b.pieces[k]
	default:
		doc.Params = tooldef.ParamText(f.InputSchema)
	}
	return doc
}

// compile gives t, fresh[k], a checker compiling schema at the tool's first call with
// the default Compiler; a given one is left for compileLate.
func (b *builder) compile(t *tool, k int, schema []byte) {
	if b.schemas != nil {
		b.schemas[k] = schema
		return
	}
	t.check = lazyChecker(schema)
}

// compileLate compiles fresh[k] with the Compiler given, if any.
func (b *builder) compileLate(k int32) {
	if b.schemas == nil {
		return
	}
	b.fresh[k].check = compiledChecker(b.compiler, b.schemas[k])
	b.schemas[k] = nil
}

// escLS and escPS are U+2028 and U+2029 in UTF-8, which canonicalEscapes counts.
var escLS, escPS = []byte("\u2028"), []byte("\u2029")

// canonicalEscapes is escapes of a canonical form, which holds no control character
// (RFC 8785 escapes them): each byte escapes counts is counted by bytes.Count, many
// bytes at a time, instead of one switch per byte (7% of a build's CPU time).
func canonicalEscapes(b []byte) (str, raw int) {
	quotes := bytes.Count(b, []byte{'"'}) + bytes.Count(b, []byte{'\\'})
	html := 5 * (bytes.Count(b, []byte{'<'}) + bytes.Count(b, []byte{'>'}) + bytes.Count(b, []byte{'&'}))
	seps := 0
	if bytes.IndexByte(b, 0xE2) >= 0 {
		seps = 3 * (bytes.Count(b, escLS) + bytes.Count(b, escPS))
	}
	return quotes + html + seps, html + seps
}
