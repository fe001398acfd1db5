package discovery

import (
	"context"

	"github.com/deferredtools/deferredtools/grants"
)

// AuthorizeTool decides whether p may call tool, from its name alone: the first step of
// AuthorizeCall, for a transport that must answer a refusal before it decodes the
// arguments (SPEC CALL-1, VIS-2). It rereads grants every time; a tool that is unknown,
// withheld by Visibility or not granted answers tool_not_granted, and grant storage
// that fails answers its 503. Nil means the name is granted: the call still needs
// AuthorizeCall, which checks the contract pin, validates the arguments and runs the
// host's CheckCall. While the switch is off it allows every tool and reads no grant
// (FLAG-2).
func (d *Discoverer) AuthorizeTool(ctx context.Context, p grants.Principal, tool string) error {
	if !d.opts.Enabled {
		return nil
	}
	_, _, _, err := d.grantedTool(ctx, p, tool)
	return err
}

// grantedTool rereads p's grants and returns the catalog version, the tool's index in
// it and p's authorised set, or tool_not_granted when the tool is unknown, withheld or
// not granted: the decision both AuthorizeTool and AuthorizeCall start with.
func (d *Discoverer) grantedTool(ctx context.Context, p grants.Principal, tool string) (*Catalog, int, *authSet, error) {
	cat, err := d.catalog(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	_, _, set, err := d.access(ctx, p, cat)
	if err != nil {
		return nil, 0, nil, err
	}
	i, ok := cat.byName[tool]
	if !ok || !set.bits.Has(i) {
		return nil, 0, nil, newError(CodeToolNotGranted, nil)
	}
	return cat, i, set, nil
}
