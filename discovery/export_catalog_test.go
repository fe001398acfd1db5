package discovery

import (
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
// validators, contract digest and size.
func CatalogState(c *Catalog) ([]CatalogTool, []validate.Validator, string, schemaguard.Measure) {
	tools := make([]CatalogTool, len(c.tools))
	vals := make([]validate.Validator, len(c.tools))
	for i, t := range c.tools {
		tools[i] = CatalogTool{Name: t.name, Canonical: string(t.canonical), Digest: t.digest,
			StrEscapes: t.strEscapes, RawEscapes: t.rawEscapes, Nodes: t.nodes, Depth: t.depth,
			ReadOnly: t.readOnly, Toolset: t.toolset, Position: c.byName[t.name]}
		if t.compErr != nil {
			tools[i].CompErr = t.compErr.Error()
		}
		vals[i] = t.validator
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
