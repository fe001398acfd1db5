package validate

import (
	"errors"
	"fmt"
)

// A Validator checks the JSON text of one tool call's arguments against one compiled
// input schema. It is safe for concurrent use.
//
// Validate answers nil, an error wrapping ErrInvalid (the arguments break the schema;
// usually a *ValidationError), or an error wrapping ErrLimit (a CALL-5 bound was hit,
// no verdict). No error text ever contains argument values or schema text.
type Validator interface {
	Validate(args []byte) error
}

// A Compiler turns an input schema's JSON text into a Validator, once per catalog
// version. It answers an error wrapping ErrUnsupported for a schema it cannot enforce
// exactly (SPEC CALL-4) and ErrLimit for one over the bounds.
type Compiler interface {
	Compile(schema []byte) (Validator, error)
}

var (
	// ErrInvalid reports arguments that do not satisfy the schema.
	ErrInvalid = errors.New("validate: invalid arguments")
	// ErrUnsupported reports a schema the compiler cannot enforce as written.
	ErrUnsupported = errors.New("validate: unsupported schema")
	// ErrLimit reports a schema or arguments beyond a bound of Limits.
	ErrLimit = errors.New("validate: limit exceeded")
)

// A ValidationError says which keyword failed where. Keyword is a JSON Schema keyword
// ("required", "maxLength", ...); Path is the schema-defined location of the failing
// value as a JSON pointer built only from property names the schema declares and array
// indexes (never argument values or undeclared keys).
type ValidationError struct {
	Keyword string
	Path    string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("validate: %s failed at %q", e.Keyword, e.Path)
}

func (e *ValidationError) Unwrap() error { return ErrInvalid }

// An UnsupportedError names the keyword that made a schema unsupported. Keyword is
// always a JSON Schema keyword from a fixed vocabulary (drafts 2020-12 and 07), never
// text copied from the schema: it is "" for a malformed schema (bad JSON, a duplicate
// key, a keyword with a value of the wrong shape) and for a member name that is no
// JSON Schema keyword at all.
type UnsupportedError struct {
	Keyword string
}

func (e *UnsupportedError) Error() string {
	if e.Keyword == "" {
		return "validate: unsupported schema (malformed or unknown keyword)"
	}
	return fmt.Sprintf("validate: unsupported keyword %q", e.Keyword)
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// Limits are the CALL-5 bounds. A zero field means its default.
//
// Schema and arguments are each measured on their own for depth (nesting of objects
// and arrays in the JSON text) and string code units; their nodes (JSON values, object
// keys excluded) are added up. The bytes of number literals count as string code
// units too (a long number is a long run of digits). The JSON text of a schema or of
// arguments is also bounded, to 6 bytes per string code unit plus 16 per node (about
// 1.7 MB by default), so white space cannot make a scan slow.
type Limits struct {
	MaxDepth       int // nesting of schema and arguments; default 32
	MaxNodes       int // schema nodes plus argument nodes; default 8192
	MaxStringUnits int // UTF-16 code units (not code points) over all argument strings; default 262144
	MaxSteps       int // work steps per validation; default 65536
	MaxPattern     int // UTF-16 code units of one pattern; default 512
}

// Options configure a bounded Compiler. The zero value (or nil) is the strict subset
// with default Limits.
type Options struct {
	Limits Limits
	// Annotations lists extra keywords accepted and ignored, beyond "description" and
	// "default" which are always accepted (SPEC CALL-4). See AnnotationKeywords for the
	// documented set; "$schema" is accepted only when it names draft 2020-12 or draft-07.
	// Assertion, applicator and core keywords ($ref, allOf, const, ...) listed here are
	// ignored: they are never accepted as annotations.
	Annotations []string
}

// AnnotationKeywords is the documented set of extra annotation keywords a host may
// accept with Options.Annotations: "title", "examples", "$comment", "$schema" (naming
// draft 2020-12 or draft-07) and "format", which is then an annotation only and never
// rejects a value.
var AnnotationKeywords = []string{"title", "examples", "$comment", "$schema", "format"}
