// Package metatool declares meta tools, catalog tools that serve one resource through
// several actions chosen by one string argument, and reads their declarations from JSON.
//
// A declaration says which argument chooses the action and what each action is; whether
// it fits a catalog (the tool's input schema lists exactly those actions in the
// argument's enum) is decided by discovery.NewCatalog, which takes the declarations in
// discovery.CatalogOptions.MetaTools. Each action has a canonical ID, the tool's name,
// "." and the action's name (gitlab_issue.create), which grant rows and
// discovery.Visibility.Exclude name like a tool.
package metatool

// A Tool declares a catalog tool that serves one resource through several actions,
// chosen by one string argument (gitlab_issue with action create, list or close).
type Tool struct {
	// Argument is the name of the action argument. Empty means DefaultArgument.
	Argument string
	// Actions are the tool's actions, exactly the values of the argument's enum.
	Actions []Action
}

// An Action is one action of a Tool, with the hints it carries itself.
type Action struct {
	// Name is the action's value of the action argument: 1 to 64 characters from
	// A-Z, a-z, 0-9, '_' and '-' (no '.', so an action ID splits at its last '.').
	Name string
	// ReadOnlyHint, when not nil, is the action's own readOnlyHint; nil leaves it to
	// the tool's annotations.readOnlyHint. discovery.Visibility.ReadOnly serves an
	// action whose hint is true.
	ReadOnlyHint *bool
	// DestructiveHint, when not nil, is the action's own destructiveHint; nil leaves
	// it to the tool's annotations.
	DestructiveHint *bool
}

// DefaultArgument is the action argument of a Tool that names none.
const DefaultArgument = "action"
