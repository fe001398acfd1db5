package discovery

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
)

// AuthorizeTool decides whether p may call tool, from its name alone: the first step of
// AuthorizeCall, for a transport that must answer a refusal before it decodes the
// arguments (SPEC CALL-1, VIS-2). It rereads grants every time; a tool that is unknown,
// withheld by Visibility or not granted answers tool_not_granted (a meta tool is
// granted when one of its actions is served), and grant storage that fails answers its
// 503. Nil means the name is granted: the call still needs
// AuthorizeCall, which checks the contract pin, validates the arguments and runs the
// host's CheckCall. While the switch is off it allows every tool and reads no grant
// (FLAG-2).
func (d *Discoverer) AuthorizeTool(ctx context.Context, p grants.Principal, tool string) (err error) {
	if ctx == nil {
		return errNilContext()
	}
	defer d.observe(&ctx, observe.OpAuthorizeTool).decision(&err)
	if !d.opts.Enabled {
		return nil
	}
	_, _, _, err = d.grantedTool(ctx, p, tool)
	return err
}

// AuthorizeToolThen is AuthorizeTool that, when the tool is granted, also returns the
// rest of the decision: call decides the tools/call as AuthorizeCall does (contract
// pin, arguments, CheckCall) from the grants this decision read, so a transport that
// decides the name before it decodes the arguments reads grants once per call (SPEC
// CALL-1). call serves the one call it was made for: used again, or for another
// principal or tool, it is AuthorizeCall itself and rereads grants. While the switch
// is off call is AuthorizeCall, which allows every call. call is safe for concurrent
// use.
func (d *Discoverer) AuthorizeToolThen(ctx context.Context, p grants.Principal, tool string) (call func(ctx context.Context, p grants.Principal, c Call) error, err error) {
	return d.authorizeThen(ctx, p, tool, nil, false)
}

// AuthorizeActionThen is AuthorizeToolThen for a transport that holds the raw
// arguments (args, the JSON text of "arguments"; empty means {}) but has decoded
// nothing of them: a meta tool's call is also decided on its action, read alone from
// args, so an action not served answers tool_not_granted whatever the other arguments
// hold (see CatalogOptions.MetaTools). For any other tool args are not looked at.
// call decides again the action of the arguments it is given.
func (d *Discoverer) AuthorizeActionThen(ctx context.Context, p grants.Principal, tool string, args json.RawMessage) (call func(ctx context.Context, p grants.Principal, c Call) error, err error) {
	return d.authorizeThen(ctx, p, tool, args, true)
}

// authorizeThen is AuthorizeToolThen, and AuthorizeActionThen when withArgs.
func (d *Discoverer) authorizeThen(ctx context.Context, p grants.Principal, tool string, args json.RawMessage, withArgs bool) (call func(ctx context.Context, p grants.Principal, c Call) error, err error) {
	if ctx == nil {
		return nil, errNilContext()
	}
	defer d.observe(&ctx, observe.OpAuthorizeTool).decision(&err)
	if !d.opts.Enabled {
		return d.AuthorizeCall, nil
	}
	cat, i, set, err := d.grantedTool(ctx, p, tool)
	if err != nil {
		return nil, err
	}
	if withArgs {
		if _, err := set.action(cat, i, argsOrEmpty(args)); err != nil {
			return nil, err
		}
	}
	var used atomic.Bool
	return func(ctx context.Context, q grants.Principal, c Call) error {
		if ctx == nil {
			return errNilContext()
		}
		if c.Tool != tool || q.ID != p.ID || !slices.Equal(q.Scopes, p.Scopes) || used.Swap(true) {
			return d.AuthorizeCall(ctx, q, c)
		}
		return d.thenCall(ctx, q, c, cat, i, set)
	}, nil
}

// grantedTool rereads p's grants and returns the catalog version, the tool's index in
// it and p's authorised set, or tool_not_granted when the tool is unknown, withheld or
// not granted: the decision both AuthorizeTool and AuthorizeCall start with.
func (d *Discoverer) grantedTool(ctx context.Context, p grants.Principal, tool string) (*Catalog, int, *authSet, error) {
	cat, err := d.catalog(ctx, true, tool)
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

// grantedCall decides a call whose tool grantedTool granted as cat's tool i with p's
// authorised set: a meta tool's action (SPEC CALL-1), the contract pin, the arguments
// against the tool's input schema (CALL-2), the host's CheckCall (CALL-6), then safe
// mode's confirmation.
func (d *Discoverer) grantedCall(ctx context.Context, p grants.Principal, c Call, cat *Catalog, i int, set *authSet) error {
	args := argsOrEmpty(c.Arguments)
	act, err := set.action(cat, i, args) // a meta tool: its action first
	if err != nil {
		return err
	}
	if err := checkPin(set, c.ContractPin, c.BadContractPin); err != nil {
		return err
	}
	t := &cat.tools[i]
	v, cerr := t.compiled()
	if v == nil {
		return newError(CodeValidationUnavailable, cerr)
	}
	if err := v.Validate(args); err != nil {
		return validationError(err)
	}
	if d.opts.CheckCall != nil {
		if err := d.opts.CheckCall(ctx, p, c.Tool, args); err != nil {
			return err
		}
	}
	return d.confirm(ctx, p, c, args, t, cat.safeHeld(&d.safe, i, act), set) // safe mode (see Options.SafeMode)
}

// argsOrEmpty returns args, or {} for absent arguments.
func argsOrEmpty(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return emptyObject
	}
	return args
}
