// Package schemaguard gives every tool definition one canonical JSON form (RFC 8785,
// JCS), digests it, and measures it against the catalog limits.
//
// [Canonicalize] parses JSON text itself (it never round-trips through encoding/json,
// which would lose duplicate keys and rewrite strings) and writes the JCS form: members
// sorted by the UTF-16 code units of their names, no whitespace, strings with only the
// escapes JCS mandates, numbers as ECMAScript writes the nearest IEEE 754 double. A
// value whose text already is its canonical form (a number or string spelled as JCS
// spells it; an array or object with no whitespace, plain member names in order and
// only such values) is checked while parsing and copied as one span. The canonical
// form is what the digests hash and what the limits measure (SPEC CONTRACT-1,
// CONTRACT-2, CONTRACT-3).
//
// Decisions where SPEC is silent:
//   - Text that I-JSON (RFC 7493) forbids has no canonical form and is [ErrMalformed]:
//     invalid UTF-8, escaped lone surrogates, duplicate member names (compared after
//     unescaping, so "a" and "\u0061" collide), numbers that overflow a double. A
//     number that underflows becomes 0, as in ECMAScript; integers beyond 2^53 round
//     to the nearest double, as JCS prescribes.
//   - A byte order mark, and nesting deeper than [MaxNesting], are [ErrMalformed].
//   - [Measure] counts every value (not member names) and nesting of arrays and objects.
//   - Canonicalize keeps its scratch space in a sync.Pool: with room in dst it
//     allocates nothing. It is safe for concurrent use.
package schemaguard

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
)

// ErrMalformed reports JSON text that has no canonical form: invalid syntax or UTF-8,
// duplicate object keys, or a number outside IEEE 754 double range.
var ErrMalformed = errors.New("schemaguard: malformed JSON")

// A Measure is the size of a JSON value in its canonical form.
type Measure struct {
	Bytes int // length of the canonical form
	Nodes int // values of any kind: objects, arrays, strings, numbers, booleans, nulls
	Depth int // deepest nesting of objects and arrays; a scalar has depth 0
}

// Digest is the SHA-256 of a tool's canonical form (SPEC CONTRACT-2).
func Digest(canonical []byte) [32]byte { return sha256.Sum256(canonical) }

// ContractDigest returns "sha256:" + lowercase hex of SHA-256 over the concatenated tool
// digests, which the caller passes ordered by tool name (SPEC CONTRACT-2).
func ContractDigest(digests [][32]byte) string {
	h := sha256.New()
	for i := range digests {
		h.Write(digests[i][:])
	}
	var sum [sha256.Size]byte
	out := make([]byte, 0, len("sha256:")+hex.EncodedLen(sha256.Size))
	out = append(out, "sha256:"...)
	return string(hex.AppendEncode(out, h.Sum(sum[:0])))
}

// Limits bound a whole catalog, measured on canonical forms (SPEC CONTRACT-3).
// A zero or negative field means its default.
type Limits struct {
	MaxBytes int // total canonical bytes of all tools; default DefaultMaxBytes
	MaxNodes int // total JSON nodes of all tools; default DefaultMaxNodes
	MaxDepth int // deepest nesting of any tool; default DefaultMaxDepth
}

// Default catalog limits. The 698 tools of six real MCP servers (GitHub, GitLab, Azure,
// Playwright, Notion and the reference servers) total 1,147,990 canonical bytes and
// 32,176 nodes, about 1.6 KB and 46 nodes a tool, and their deepest tool nests 15
// levels of arrays and objects (14 of them in its input schema, which is 7 schemas
// deep: each subschema sits in an object under "properties" or "items"). The defaults admit the scale the library is built for, 10,000 tools of up to
// about 6.7 KB each, with the same node density: 58 times the real bytes, 130 times the
// real nodes and 4 times the real depth. They exist to refuse a runaway catalog (a
// generated schema, a loop in a build step), not to police ordinary ones.
const (
	DefaultMaxBytes = 64 << 20 // 67,108,864 canonical bytes
	DefaultMaxNodes = 1 << 22  // 4,194,304 values
	DefaultMaxDepth = 64       // levels of arrays and objects
)

// A LimitError reports which catalog limit was exceeded. It never includes catalog content.
type LimitError struct {
	Limit string // "bytes", "nodes" or "depth"
	Max   int    // the limit's value, which the catalog's measure exceeded
}

func (e *LimitError) Error() string {
	return "schemaguard: catalog exceeds the " + e.Limit + " limit of " + strconv.Itoa(e.Max)
}

// Check reports a *LimitError when total exceeds l. Bytes are checked first, then
// nodes, then depth; a total equal to its limit passes.
func (l Limits) Check(total Measure) error {
	orDefault := func(v, d int) int {
		if v <= 0 {
			return d
		}
		return v
	}
	switch maxBytes, maxNodes, maxDepth := orDefault(l.MaxBytes, DefaultMaxBytes), orDefault(l.MaxNodes, DefaultMaxNodes), orDefault(l.MaxDepth, DefaultMaxDepth); {
	case total.Bytes > maxBytes:
		return &LimitError{Limit: "bytes", Max: maxBytes}
	case total.Nodes > maxNodes:
		return &LimitError{Limit: "nodes", Max: maxNodes}
	case total.Depth > maxDepth:
		return &LimitError{Limit: "depth", Max: maxDepth}
	}
	return nil
}
