package metatool

import (
	"errors"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/internal/tooldef"
)

// ErrRefused reports declarations that Parse refused; see Error.
var ErrRefused = errors.New("metatool: declarations refused")

// An Error says why Parse refused its text: which rule, never the text's content.
type Error struct {
	// Reason is the rule broken: "malformed" (not one JSON object of UTF-8 text),
	// "member" (a member not in the format, repeated, or of the wrong type) or
	// "empty" (no meta tool).
	Reason string
}

func (e *Error) Error() string { return "metatool: declarations refused: " + e.Reason }

// Unwrap returns ErrRefused.
func (e *Error) Unwrap() error { return ErrRefused }

// Parse reads meta tool declarations (discovery.CatalogOptions.MetaTools) from JSON
// text: an object mapping each meta tool's name to
//
//	{"argument": NAME, "actions": [{"name": NAME, "readOnlyHint": BOOL, "destructiveHint": BOOL}, ...]}
//
// where "argument" and the hints are optional. Members are read by their exact names;
// an unknown, repeated or mistyped member refuses the text with an *Error. Whether the
// declarations fit a catalog is discovery.NewCatalog's to decide.
func Parse(text []byte) (map[string]Tool, error) {
	if _, ok := jsonlex.Valid(text); !ok || !validUTF8Strings(text) || text[jsonlex.SkipSpace(text, 0)] != '{' {
		return nil, &Error{Reason: "malformed"}
	}
	out := map[string]Tool{}
	bad := false
	tooldef.Members(text, func(key, val []byte) bool {
		name, _ := tooldef.StringValue(key)
		if _, dup := out[name]; dup {
			bad = true
			return false
		}
		m, ok := parseTool(val)
		out[name], bad = m, !ok
		return ok
	})
	switch {
	case bad:
		return nil, &Error{Reason: "member"}
	case len(out) == 0:
		return nil, &Error{Reason: "empty"}
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

// parseTool reads one declaration: {"argument"?: string, "actions": [...]}.
func parseTool(val []byte) (m Tool, ok bool) {
	var seenArg, seenActions bool
	ok = tooldef.Members(val, func(key, v []byte) bool {
		switch {
		case keyIs(key, "argument") && !seenArg:
			return readString(v, &m.Argument, &seenArg)
		case keyIs(key, "actions") && !seenActions:
			seenActions = true
			if v[0] != '[' {
				return false
			}
			good := true
			tooldef.Elements(v, func(item []byte) {
				a, itemOK := parseAction(item)
				good = good && itemOK
				m.Actions = append(m.Actions, a)
			})
			return good
		}
		return false // unknown or repeated
	})
	return m, ok && seenActions
}

// readString reads the string member value v into *dst and marks it seen; false when v
// is not a string.
func readString(v []byte, dst *string, seen *bool) bool {
	*seen = true
	s, ok := tooldef.StringValue(v)
	*dst = s
	return ok
}

// parseAction reads one action: {"name": string, "readOnlyHint"?: bool,
// "destructiveHint"?: bool}.
func parseAction(val []byte) (a Action, ok bool) {
	seenName := false
	ok = tooldef.Members(val, func(key, v []byte) bool {
		var hint **bool
		switch {
		case keyIs(key, "name") && !seenName:
			return readString(v, &a.Name, &seenName)
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

// keyIs reports whether the raw key (quotes included) names name, escapes decoded.
func keyIs(raw []byte, name string) bool { return jsonlex.Equal(raw[1:len(raw)-1], name) }
