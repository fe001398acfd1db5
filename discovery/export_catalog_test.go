package discovery

import (
	"cmp"
	"slices"
	"time"

	"github.com/deferredtools/deferredtools/internal/tooldef"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/schemaguard"
	"github.com/deferredtools/deferredtools/validate"
)

// A CatalogTool is what a Catalog computed for one tool, comparable with ==, but for
// the validator, returned apart.
type CatalogTool struct {
	Name, Canonical        string
	Digest                 [32]byte
	StrEscapes, RawEscapes int
	Nodes, Depth           int
	ReadOnly               bool
	Toolset                string
	CompErr                string
	Position               int // byName's answer
}

// CatalogState returns what c computed, tool by tool in c's order, with its
// validators (compiled now when the default Compiler left them to the first call),
// contract digest and size.
func CatalogState(c *Catalog) ([]CatalogTool, []validate.Validator, string, schemaguard.Measure) {
	tools := make([]CatalogTool, len(c.tools))
	vals := make([]validate.Validator, len(c.tools))
	for i, t := range c.tools {
		tools[i] = CatalogTool{Name: t.name, Canonical: string(t.canonical), Digest: t.digest,
			StrEscapes: t.strEscapes, RawEscapes: t.rawEscapes, Nodes: t.nodes, Depth: t.depth,
			ReadOnly: t.readOnly, Toolset: t.toolset, Position: c.byName[t.name]}
		v, err := t.compiled()
		if err != nil {
			tools[i].CompErr = err.Error()
		}
		vals[i] = v
	}
	return tools, vals, c.contract, c.total
}

// CatalogSearch ranks query over every tool of c.
func CatalogSearch(c *Catalog, query string, k int) []rank.Hit {
	all := rank.NewSet(len(c.tools))
	for i := range c.tools {
		all.Add(i)
	}
	return c.index.Search(nil, query, all, k)
}

// CompileAll compiles every validator of c the default Compiler left to the first
// call, as if every tool had been called.
func CompileAll(c *Catalog) {
	for i := range c.tools {
		c.tools[i].compiled()
	}
}

// FirstCallTimes compiles every validator of c the default Compiler left to the first
// call, and returns how long each tool's took, in c's order.
func FirstCallTimes(c *Catalog) []time.Duration {
	out := make([]time.Duration, len(c.tools))
	for i := range c.tools {
		start := time.Now()
		c.tools[i].compiled()
		out[i] = time.Since(start)
	}
	return out
}

// CanonicalRoom returns the length and capacity of each retained canonical form of c,
// in c's order.
func CanonicalRoom(c *Catalog) (lens, caps []int) {
	for _, t := range c.tools {
		lens, caps = append(lens, len(t.canonical)), append(caps, cap(t.canonical))
	}
	return lens, caps
}

// IndexTextMismatch returns the first of queries that c's index ranks otherwise than
// an index over the text read afresh from c's canonical forms (tooldef.Read, ParamText,
// metaParamText, with no bytes shared), or "" when there is none: the text a build
// handed rank as spans or strings of the canonical forms was that text.
func IndexTextMismatch(c *Catalog, queries []string) string {
	docs := make([]rank.Doc, len(c.tools))
	all := rank.NewSet(len(c.tools))
	for i, t := range c.tools {
		f, _ := tooldef.Read(t.canonical)
		docs[i] = rank.Doc{Name: t.name, Title: cmp.Or(f.Title, f.AnnTitle), Description: f.Description}
		switch m := c.metas[i]; {
		case !c.paramText:
		case m != nil:
			docs[i].Params = metaParamText(f.InputSchema, m.arg)
		default:
			docs[i].Params = tooldef.ParamText(f.InputSchema)
		}
		all.Add(i)
	}
	ref := rank.NewIndex(docs)
	for _, q := range queries {
		if !slices.Equal(c.index.Search(nil, q, all, 0), ref.Search(nil, q, all, 0)) {
			return q
		}
	}
	return ""
}
