package discovery

import "github.com/deferredtools/deferredtools/rank"

// ReadAction is readAction, the action gate's reader, for the fuzz test against
// encoding/json.
var ReadAction = readAction

// CallHints returns the hints the catalog compiled for a call of tool with args, as
// the action gate decides its action over every action of the catalog: readOnly is the
// action's own readOnlyHint, else the tool's; destructive the action's own
// destructiveHint, nil when it declares none. ok is false when the gate refuses the call.
func CallHints(c *Catalog, tool string, args []byte) (readOnly bool, destructive *bool, ok bool) {
	i := c.byName[tool]
	all := &authSet{}
	if c.actionTool != nil {
		all.actions = rank.NewSet(len(c.actionTool))
		for a := range c.actionTool {
			all.actions.Add(a)
		}
	}
	act, err := all.action(c, i, args)
	if err != nil {
		return false, nil, false
	}
	if act < 0 {
		return c.tools[i].readOnly, nil, true
	}
	a := c.actionAt(act)
	return a.readOnly, a.destructive, true
}
