package discovery

import (
	"errors"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// ErrMetaTools reports meta tool declarations that ParseMetaTools refused; see
// MetaToolsError.
var ErrMetaTools = errors.New("discovery: meta tools refused")

// A MetaToolsError says why ParseMetaTools refused its text: which rule, never the
// text's content.
type MetaToolsError struct {
	// Reason is the rule broken: "malformed" (not one JSON object of UTF-8 text),
	// "member" (a member not in the format, repeated, or of the wrong type) or
	// "empty" (no meta tool).
	Reason string
}

func (e *MetaToolsError) Error() string { return "discovery: meta tools refused: " + e.Reason }

// Unwrap returns ErrMetaTools.
func (e *MetaToolsError) Unwrap() error { return ErrMetaTools }

// ParseMetaTools reads meta tool declarations (CatalogOptions.MetaTools) from JSON
// text: an object mapping each meta tool's name to
//
//	{"argument": NAME, "actions": [{"name": NAME, "readOnlyHint": BOOL, "destructiveHint": BOOL}, ...]}
//
// where "argument" and the hints are optional. Members are read by their exact names;
// an unknown, repeated or mistyped member refuses the text with a *MetaToolsError.
// Whether the declarations fit a catalog is NewCatalog's to decide.
func ParseMetaTools(text []byte) (map[string]MetaTool, error) {
	if _, ok := jsonlex.Valid(text); !ok || !validUTF8Strings(text) || text[jsonlex.SkipSpace(text, 0)] != '{' {
		return nil, &MetaToolsError{Reason: "malformed"}
	}
	out := map[string]MetaTool{}
	bad := false
	members(text, func(key, val []byte) bool {
		name, _ := stringValue(key)
		if _, dup := out[name]; dup {
			bad = true
			return false
		}
		m, ok := parseMetaTool(val)
		out[name], bad = m, !ok
		return ok
	})
	switch {
	case bad:
		return nil, &MetaToolsError{Reason: "member"}
	case len(out) == 0:
		return nil, &MetaToolsError{Reason: "empty"}
	}
	return out, nil
}

// validUTF8Strings reports whether every string of text, valid JSON, is valid UTF-8
// without lone surrogate escapes, so that every name reads one way.
func validUTF8Strings(text []byte) bool {
	for i := 0; i < len(text); i++ {
		if text[i] == '"' {
			s, f := jsonlex.ScanString(text, i)
			if f != jsonlex.None {
				return false
			}
			i = s.End - 1
		}
	}
	return true
}

// parseMetaTool reads one declaration: {"argument"?: string, "actions": [...]}.
func parseMetaTool(val []byte) (m MetaTool, ok bool) {
	var seenArg, seenActions bool
	ok = members(val, func(key, v []byte) bool {
		switch {
		case keyIs(key, "argument") && !seenArg:
			seenArg = true
			var isString bool
			m.Argument, isString = stringValue(v)
			return isString
		case keyIs(key, "actions") && !seenActions:
			seenActions = true
			if v[0] != '[' {
				return false
			}
			good := true
			arrayItems(v, func(item []byte) {
				a, itemOK := parseMetaAction(item)
				good = good && itemOK
				m.Actions = append(m.Actions, a)
			})
			return good
		}
		return false // unknown or repeated
	})
	return m, ok && seenActions
}

// parseMetaAction reads one action: {"name": string, "readOnlyHint"?: bool,
// "destructiveHint"?: bool}.
func parseMetaAction(val []byte) (a MetaAction, ok bool) {
	seenName := false
	ok = members(val, func(key, v []byte) bool {
		var hint **bool
		switch {
		case keyIs(key, "name") && !seenName:
			seenName = true
			var isString bool
			a.Name, isString = stringValue(v)
			return isString
		case keyIs(key, "readOnlyHint") && a.ReadOnlyHint == nil:
			hint = &a.ReadOnlyHint
		case keyIs(key, "destructiveHint") && a.DestructiveHint == nil:
			hint = &a.DestructiveHint
		default:
			return false // unknown or repeated
		}
		b := string(v) == "true"
		if !b && string(v) != "false" {
			return false
		}
		*hint = &b
		return true
	})
	return a, ok && seenName
}
