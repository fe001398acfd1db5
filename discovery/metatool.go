package discovery

import (
	"encoding/json"
	"slices"
	"strings"
	"unsafe"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/internal/tooldef"
	"github.com/deferredtools/deferredtools/metatool"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// maxActions bounds the actions of one meta tool.
const maxActions = 256

// metaTool is a metatool.Tool as a Catalog compiled it.
type metaTool struct {
	arg     string
	actions []metaAction // in the order of the argument's enum
	first   int          // the number of actions[0] among the catalog's actions
	// enumStart and enumEnd delimit the enum array in the tool's canonical form: a
	// narrowed definition replaces those bytes.
	enumStart, enumEnd int
}

// metaAction is one compiled action.
type metaAction struct {
	name, id    string
	readOnly    bool  // the action's own hint, else the tool's
	destructive *bool // the action's own hint; nil: the tool's annotations decide
}

// MetaTool returns the declaration of the named meta tool, its actions in the order of
// the argument's enum, and whether name is one. The declaration is a copy, the
// caller's to change.
func (c *Catalog) MetaTool(name string) (metatool.Tool, bool) {
	i, ok := c.byName[name]
	if !ok || c.metas[i] == nil {
		return metatool.Tool{}, false
	}
	m := c.metas[i]
	out := metatool.Tool{Argument: m.arg, Actions: make([]metatool.Action, len(m.actions))}
	for k, a := range m.actions {
		d := c.declared[a.id]
		out.Actions[k] = metatool.Action{Name: d.Name, ReadOnlyHint: cloneBool(d.ReadOnlyHint), DestructiveHint: cloneBool(d.DestructiveHint)}
	}
	return out, true
}

// safeHeld reports whether s holds a call of tool i with action act (-1: none): a meta
// tool's action is judged by its own hints where it declares them, else by the tool's,
// and is exempt when the tool's name or the action's ID is.
func (c *Catalog) safeHeld(s *safeMode, i, act int) bool {
	t := &c.tools[i]
	if act < 0 {
		return s.holds(t.name, t.readOnly, t.destructive)
	}
	a := c.actionAt(act)
	destructive := t.destructive
	if a.destructive != nil {
		destructive = *a.destructive
	}
	return s.holds(t.name, a.readOnly, destructive) && !s.exempt[a.id]
}

// actionAt returns the catalog's action numbered act.
func (c *Catalog) actionAt(act int) *metaAction {
	m := c.metas[c.actionTool[act]]
	return &m.actions[act-m.first]
}

// validActionName reports whether name is a valid metatool.Action.Name.
func validActionName(name string) bool {
	return len(name) <= 64 && validToolName(name) && !strings.Contains(name, ".")
}

// compileMetaTools compiles decls into c, whose tools are sorted: each declared tool's
// argument and actions are checked against its input schema, and each action ID
// against every tool name and other ID; the first broken rule refuses the catalog.
func (c *Catalog) compileMetaTools(decls map[string]metatool.Tool) error {
	if len(decls) == 0 {
		return nil
	}
	names := make([]string, 0, len(decls))
	for name := range decls {
		names = append(names, name)
	}
	slices.Sort(names) // catalog order, so actions are numbered in name order
	c.metas = make(map[int]*metaTool, len(decls))
	c.declared = make(map[string]metatool.Action)
	c.grantIndex = make(map[string]int, len(c.byName))
	for name, i := range c.byName {
		c.grantIndex[name] = i
	}
	n := len(c.tools)
	for _, name := range names {
		i, ok := c.byName[name]
		if !ok {
			return &CatalogError{Index: -1, Reason: "meta tool: no such tool", Name: nameIfValid(name)}
		}
		fail := func(reason string) error {
			return &CatalogError{Index: int(c.inputOf(i)), Reason: "meta tool: " + reason, Name: name}
		}
		decl := decls[name]
		t := &c.tools[i]
		m := &metaTool{arg: argumentOf(decl), first: len(c.actionTool)}
		schema := inputSchema(t.canonical)
		start, end, enum, ok := actionEnum(schema, m.arg)
		if !ok {
			return fail("argument")
		}
		at := cap(t.canonical) - cap(schema) // schema's offset in the definition
		if len(decl.Actions) == 0 || len(decl.Actions) > maxActions || len(decl.Actions) != len(enum) {
			return fail("actions")
		}
		m.enumStart, m.enumEnd = at+start, at+end
		byAction := make(map[string]metatool.Action, len(decl.Actions))
		for _, a := range decl.Actions {
			if _, dup := byAction[a.Name]; dup || !validActionName(a.Name) {
				return fail("actions")
			}
			byAction[a.Name] = a
		}
		for _, v := range enum {
			a, ok := byAction[v]
			if !ok {
				return fail("actions") // an enum value no declared action names
			}
			id := name + "." + v
			if _, taken := c.grantIndex[id]; taken {
				return fail("action ID") // a tool's name, or another action's ID
			}
			c.grantIndex[id] = n + len(c.actionTool)
			c.actionTool = append(c.actionTool, i)
			ma := metaAction{name: v, id: id, readOnly: t.readOnly, destructive: cloneBool(a.DestructiveHint)}
			if a.ReadOnlyHint != nil {
				ma.readOnly = *a.ReadOnlyHint
			}
			m.actions = append(m.actions, ma)
			c.declared[id] = metatool.Action{Name: v, ReadOnlyHint: cloneBool(a.ReadOnlyHint), DestructiveHint: cloneBool(a.DestructiveHint)}
		}
		c.metas[i] = m
	}
	return nil
}

func cloneBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

// inputOf returns the input position of the tool at catalog position i.
func (c *Catalog) inputOf(i int) int32 {
	for in, p := range c.inputs {
		if int(p) == i {
			return int32(in)
		}
	}
	return -1
}

// inputSchema returns the inputSchema member of def, a canonical tool definition.
func inputSchema(def []byte) []byte {
	f, _ := tooldef.Read(def)
	return f.InputSchema
}

// actionEnum finds, in schema (a canonical input schema), the enum of the action
// argument arg: the byte range of the array in schema and its values. ok is false
// unless schema is {"type":"object",...} listing arg in "required", and
// properties[arg] is an object whose "enum" is an array of distinct strings, and no
// other property's name differs from arg only by case. A schema so shaped accepts
// only objects holding arg, one of the enum's values; a narrowed definition (see
// narrowed) accepts exactly the arguments whose action is served.
func actionEnum(schema []byte, arg string) (start, end int, values []string, ok bool) {
	var typ, required, props []byte
	tooldef.Members(schema, func(key, val []byte) bool {
		switch {
		case keyIs(key, "type"):
			typ = val
		case keyIs(key, "required"):
			required = val
		case keyIs(key, "properties"):
			props = val
		}
		return true
	})
	if string(typ) != `"object"` || !holdsString(required, arg) || len(props) == 0 || props[0] != '{' {
		return 0, 0, nil, false
	}
	var prop []byte
	twin := false
	tooldef.Members(props, func(key, val []byte) bool {
		name, _ := tooldef.StringValue(key)
		switch {
		case name == arg:
			prop = val
		case strings.EqualFold(name, arg):
			twin = true
		}
		return true
	})
	if twin || len(prop) == 0 || prop[0] != '{' {
		return 0, 0, nil, false
	}
	var enum []byte
	tooldef.Members(prop, func(key, val []byte) bool {
		if keyIs(key, "enum") {
			enum = val
		}
		return true
	})
	if len(enum) == 0 || enum[0] != '[' {
		return 0, 0, nil, false
	}
	ok = true
	tooldef.Elements(enum, func(v []byte) {
		s, isString := tooldef.StringValue(v)
		if !isString || slices.Contains(values, s) {
			ok = false
		}
		values = append(values, s)
	})
	// enum aliases schema: its offset there is what schema's capacity exceeds its own by.
	start = cap(schema) - cap(enum)
	return start, start + len(enum), values, ok && len(values) > 0
}

// holdsString reports whether arr, a JSON array, holds the string s.
func holdsString(arr []byte, s string) bool {
	found := false
	if len(arr) > 0 && arr[0] == '[' {
		tooldef.Elements(arr, func(v []byte) {
			if t, ok := tooldef.StringValue(v); ok && t == s {
				found = true
			}
		})
	}
	return found
}

// metaParamText is the text of a meta tool's parameters for ranking: the enum of its
// action argument is left out, so that an action a principal is not served never
// counts towards the tool's score (SPEC DISC-5).
func metaParamText(schema []byte, arg string) string {
	start, end, _, ok := actionEnum(schema, arg)
	if !ok {
		return "" // the catalog is refused: compileMetaTools reads the same
	}
	return tooldef.ParamText(slices.Concat(schema[:start], []byte("[]"), schema[end:]))
}

// argumentOf returns the action argument of m.
func argumentOf(m metatool.Tool) string {
	if m.Argument == "" {
		return metatool.DefaultArgument
	}
	return m.Argument
}

// metaGranted turns the granted numbers of a ResolveIndex decision over c.grantIndex
// (tools, then actions) into the tools to serve, in catalog order: a plain tool as it
// is, a meta tool when at least one of its actions is granted and visible, its own
// name's rows deciding nothing. The visible actions are recorded in s.actions, and a
// meta tool served with fewer than all its actions gets its narrowed definition in
// s.served.
func (d *Discoverer) metaGranted(c *Catalog, granted []int, s *authSet) []int {
	n := len(c.tools)
	s.actions = rank.NewSet(len(c.actionTool))
	cut := len(granted)
	for k, g := range granted {
		if g >= n {
			cut = k
			break
		}
	}
	served := map[int]int{} // meta tool position: its visible actions
	for _, g := range granted[cut:] {
		act := g - n
		i := c.actionTool[act]
		if d.actionVisible(c, i, act) {
			s.actions.Add(act)
			served[i]++
		}
	}
	out := slices.DeleteFunc(granted[:cut], func(i int) bool { return c.metas[i] != nil })
	for i, count := range served {
		out = append(out, i)
		// Under ReadOnly a meta tool is served as read-only when its served actions
		// are, whatever the tool's own hint: narrowed says so even for all actions.
		if m := c.metas[i]; count < len(m.actions) || d.opts.Visibility.ReadOnly {
			if s.served == nil {
				s.served = map[int]*tool{}
			}
			s.served[i] = narrowed(&c.tools[i], m, s.actions)
		}
	}
	slices.Sort(out)
	return out
}

// actionVisible reports whether Visibility serves action act of meta tool i: neither
// the tool nor the action is excluded, and under ReadOnly the action is read-only.
// (The tool's toolset is checked with the tool.)
func (d *Discoverer) actionVisible(c *Catalog, i, act int) bool {
	a := c.actionAt(act)
	if d.exclude[a.id] || d.exclude[c.tools[i].name] {
		return false
	}
	return !d.opts.Visibility.ReadOnly || a.readOnly
}

// narrowed returns meta tool t as served with the actions of set alone: its enum holds
// those, in the catalog's order, and nothing else changes. The result is canonical: an
// action name is plain ASCII, which RFC 8785 writes as it is.
func narrowed(t *tool, m *metaTool, set rank.Set) *tool {
	nt := *t
	b := make([]byte, 0, len(t.canonical))
	b = append(b, t.canonical[:m.enumStart]...)
	b = append(b, '[')
	served := 0
	for k, a := range m.actions {
		if set.Has(m.first + k) {
			if served > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, a.name...)
			b = append(b, '"')
			served++
		}
	}
	b = append(b, ']')
	b = append(b, t.canonical[m.enumEnd:]...)
	nt.canonical = slices.Clip(b) // handed to callers: an append copies (catalog_build.go)
	nt.digest = schemaguard.Digest(b)
	nt.strEscapes, nt.rawEscapes = escapes(b)
	// The tool is read-only as served when every action served is.
	nt.readOnly = true
	for k, a := range m.actions {
		if set.Has(m.first+k) && !a.readOnly {
			nt.readOnly = false
		}
	}
	return &nt
}

// tool returns the definition of cat's tool i as s serves it: a meta tool's narrowed
// form, or the catalog's.
func (s *authSet) tool(cat *Catalog, i int) *tool {
	if s.served != nil {
		if t, ok := s.served[i]; ok {
			return t
		}
	}
	return &cat.tools[i]
}

// metaBytes is what s holds for meta tools, for the cache's budget.
func (s *authSet) metaBytes() int {
	n := 8 * len(s.actions)
	for _, t := range s.served {
		n += 64 + int(unsafe.Sizeof(*t)) + len(t.canonical)
	}
	return n
}

// action decides a call of cat's tool i, granted to s, on its action (SPEC CALL-1,
// VIS-2): for a meta tool, the action argument is read alone from args, before
// anything else of them is decoded, and it must be one action s serves; it returns
// that action's number. Arguments that are not one JSON object holding the argument
// exactly once, as a string naming a served action, answer tool_not_granted:
// undeclared, not granted, withheld, missing, mistyped or repeated alike, whatever
// the other members hold. A plain tool answers -1 without a look at args.
func (s *authSet) action(cat *Catalog, i int, args json.RawMessage) (int, error) {
	if cat.metas == nil {
		return -1, nil
	}
	m := cat.metas[i]
	if m == nil {
		return -1, nil
	}
	var buf [64]byte
	name, ok := appendAction(buf[:0], args, m.arg)
	if ok {
		for k, a := range m.actions {
			if a.name == string(name) && s.actions.Has(m.first+k) {
				return m.first + k, nil
			}
		}
	}
	return -1, newError(CodeToolNotGranted, nil)
}

// readAction reads the string member arg of args, exactly: args must be one valid JSON
// object holding a member named arg (escapes decoded, no case folding) once, a string.
func readAction(args []byte, arg string) (string, bool) {
	b, ok := appendAction(nil, args, arg)
	return string(b), ok
}

// appendAction is readAction appending the decoded value to dst, which with room
// allocates nothing.
func appendAction(dst, args []byte, arg string) ([]byte, bool) {
	if _, valid := jsonlex.Valid(args); !valid || args[jsonlex.SkipSpace(args, 0)] != '{' {
		return dst, false
	}
	var val []byte
	n := 0
	members(args, func(key, v []byte) bool {
		if keyIs(key, arg) {
			n++
			val = v
		}
		return n < 2
	})
	if n != 1 || val[0] != '"' {
		return dst, false
	}
	return jsonlex.Unescape(dst, val[1:len(val)-1]), true // invalid UTF-8 as U+FFFD
}

// grantNames returns the names grant rows decide, numbered for grants.ResolveIndex:
// the tools', then the action IDs'.
func (c *Catalog) grantNames() map[string]int {
	if c.grantIndex != nil {
		return c.grantIndex
	}
	return c.byName
}
