// Package schemaguard gives every tool definition one canonical JSON form (RFC 8785,
// JCS), digests it, and measures it against the catalog limits.
package schemaguard

import "errors"

// ErrMalformed reports JSON text that has no canonical form: invalid syntax or UTF-8,
// duplicate object keys, or a number outside IEEE 754 double range.
var ErrMalformed = errors.New("schemaguard: malformed JSON")

// A Measure is the size of a JSON value in its canonical form.
type Measure struct {
	Bytes int // length of the canonical form
	Nodes int // values of any kind: objects, arrays, strings, numbers, booleans, nulls
	Depth int // deepest nesting of objects and arrays; a scalar has depth 0
}

// Canonicalize appends the RFC 8785 canonical form of the JSON text src to dst and
// returns it with its Measure. Errors wrap ErrMalformed and never quote src.
func Canonicalize(dst, src []byte) ([]byte, Measure, error) {
	panic("unimplemented")
}

// Digest is the SHA-256 of a tool's canonical form (SPEC CONTRACT-2).
func Digest(canonical []byte) [32]byte { panic("unimplemented") }

// ContractDigest returns "sha256:" + lowercase hex of SHA-256 over the concatenated tool
// digests, which the caller passes ordered by tool name (SPEC CONTRACT-2).
func ContractDigest(digests [][32]byte) string { panic("unimplemented") }

// Limits bound a whole catalog, measured on canonical forms (SPEC CONTRACT-3).
// A zero field means its default.
type Limits struct {
	MaxBytes int // total canonical bytes of all tools; default DefaultMaxBytes
	MaxNodes int // total JSON nodes of all tools; default DefaultMaxNodes
	MaxDepth int // deepest nesting of any tool; default DefaultMaxDepth
}

// Default catalog limits.
const (
	DefaultMaxBytes = 16 << 20
	DefaultMaxNodes = 1 << 20
	DefaultMaxDepth = 64
)

// A LimitError reports which catalog limit was exceeded. It never includes catalog content.
type LimitError struct {
	Limit string // "bytes", "nodes" or "depth"
	Max   int
}

func (e *LimitError) Error() string { panic("unimplemented") }

// Check reports a *LimitError when total exceeds l.
func (l Limits) Check(total Measure) error { panic("unimplemented") }
