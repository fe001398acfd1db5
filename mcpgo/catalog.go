package mcpgo

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
)

// ErrNilServer is CatalogFromServer's answer to a nil server.
var ErrNilServer = errors.New("mcpgo: nil server")

// CatalogFromServer builds the catalog from the tools s has registered (AddTool,
// AddTools, SetTools), so that tools are registered once: each tool as mcp-go encodes
// it in tools/list, canonicalised by discovery.NewCatalog, which may refuse it (a
// *discovery.CatalogError). opts is discovery.NewCatalog's. Tools added to s later are
// not in the catalog: build it again (with opts.Previous) and swap it in. A nil s
// answers ErrNilServer.
func CatalogFromServer(s *server.MCPServer, opts *discovery.CatalogOptions) (*discovery.Catalog, error) {
	if s == nil {
		return nil, ErrNilServer
	}
	registered := s.ListTools()
	names := make([]string, 0, len(registered))
	for name := range registered {
		names = append(names, name)
	}
	slices.Sort(names)
	tools := make([]json.RawMessage, 0, len(names))
	for _, name := range names {
		def, err := json.Marshal(registered[name].Tool)
		if err != nil {
			return nil, err
		}
		tools = append(tools, def)
	}
	return discovery.NewCatalog(tools, opts)
}
