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
	cat, err := d.catalog(ctx)
	if err != nil {
		return err
	}
	_, _, set, err := d.access(ctx, p, cat)
	if err != nil {
		return err
	}
	if i, ok := cat.byName[tool]; !ok || !set.bits.Has(i) {
		return newError(CodeToolNotGranted, nil)
	}
	return nil
}
