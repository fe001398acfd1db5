package rpcwire

import (
	"context"

	"github.com/deferredtools/deferredtools/discovery"
)

// NameHeld reports whether the catalog version d serves now holds a tool named name:
// an adapter's check at start that its discovery tool's name is free (d is the
// Discoverer before ReserveToolName, whose catalog holds every name). An empty name or
// an unavailable catalog holds none.
func NameHeld(ctx context.Context, d *discovery.Discoverer, name string) bool {
	if name == "" {
		return false
	}
	c, err := d.Catalog(ctx)
	if err != nil {
		return false
	}
	_, ok := c.Tool(name)
	return ok
}
