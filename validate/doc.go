// Package validate checks tool-call arguments against a tool's input schema with a
// compiled, bounded program over a fixed subset of JSON Schema (SPEC CALL-2..5, CALL-8).
//
// A host compiles each tool's inputSchema once per catalog version with
// [NewCompiler] and validates every call's argument bytes with [Validator.Validate].
// Compile answers [ErrUnsupported] (an [*UnsupportedError]) for a schema it cannot
// enforce exactly and [ErrLimit] for one over the bounds; Validate answers nil,
// [ErrInvalid] (usually a [*ValidationError]) or [ErrLimit]. The Discoverer maps
// ErrInvalid to HTTP 400 and ErrUnsupported and ErrLimit to 503
// tool_validation_unavailable. [NewFull] is the opt-in full draft 2020-12 validator
// (SPEC CALL-7) behind the same interfaces.
//
// # Keywords
//
// Exactly these keywords are enforced: type (a name or an array of names), required,
// properties, additionalProperties, minLength, maxLength, pattern, enum, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, items (a schema; the array form is
// refused), minItems, maxItems, uniqueItems, anyOf, oneOf. description and default are
// annotations and always accepted; default never fills in a value. Any other keyword
// anywhere in the schema, used or not, makes Compile answer an *UnsupportedError, unless
// the host lists it in [Options.Annotations] (see [AnnotationKeywords]). A malformed
// keyword value (a negative minLength, a type name that does not exist, a duplicate in
// required, an empty anyOf, a duplicate key in the schema text) is refused the same
// way. The boolean schemas true and false are supported anywhere a schema is allowed
// (they are part of draft 2020-12): false rejects every value with keyword "false".
//
// # Decisions where the specification leaves a choice
//
//   - Absent arguments: empty argument text (or only white space) is validated as {}.
//     Any other text, including null, is validated as the value it is, so a schema with
//     "type": "object" rejects null. MCP sends an object; the Discoverer passes {} when
//     a call had no arguments.
//   - JSON text: arguments must be exactly one RFC 8259 JSON value. Malformed text, a
//     duplicate key in any object (also when spelled with escapes, SPEC CALL-8), invalid
//     UTF-8, and a lone or reversed surrogate escape are invalid arguments (ErrInvalid):
//     such text has no single meaning a tool could rely on.
//   - String length (minLength, maxLength) counts code points, as JSON Schema 2020-12
//     defines it and as the official test suite and the mainstream validators count
//     (SPEC CALL-3): "💩💩" has length 2, and a letter with a combining mark counts 2
//     (code points, not graphemes). The CALL-5 bound on string code units counts UTF-16
//     code units instead, so an astral character counts 2 there: the bound measures
//     size, not length: a UTF-16 code unit is at most one 6-byte \uXXXX escape of JSON
//     text (the bound on text size in [Limits] rests on that) and one unit of a
//     JavaScript client's string.
//   - Numbers are compared exactly as decimals, straight from the JSON text: no float64
//     rounding at integer bounds (9007199254740993 is above 9007199254740992), 1.0 is an
//     integer, -0 equals 0, 1e999999 is an integer far above any bound, and enum and
//     uniqueItems compare numbers by value. An exponent of 10^9 or more is a limit
//     (ErrLimit), not a verdict.
//   - enum and uniqueItems compare JSON values by JSON equality: objects regardless of
//     member order, arrays in order, no type coercion (false is not 0).
//   - Patterns are ECMA-262 regular expressions in Unicode mode, searched anywhere in
//     the string (not anchored), run with Go's regexp after an exact translation: "."
//     excludes the four line terminators, \s is ECMA's white space set, \uXXXX and
//     \u{...} are code points, \p{...} takes General_Category and Script values. A
//     construct RE2 cannot run as written (lookahead, lookbehind, backreferences, inline
//     flags) or whose meaning differs between the engines with no exact translation
//     (POSIX classes, [^], \A, \z, \Q) is unsupported. Patterns come from the schema
//     only, never from arguments, and are at most MaxPattern UTF-16 code units long.
//
// # Bounds
//
// [Limits] holds the CALL-5 bounds. Depth, nodes, UTF-16 code units and text size are checked
// while the argument text is scanned, so 10,000 nested brackets stop at bracket 33.
// Validation then spends work steps: one per schema applied to a value, one per object
// member and array element, one per value compared by enum or uniqueItems (whose
// duplicates are found through a hash table, so 8,000 items cost about 8,000 steps),
// one per 64 bytes of long strings and numbers compared, and for a pattern its real
// cost, (input bytes + 1) × the compiled program's instruction count, charged before
// it runs. A validation that would exceed MaxSteps stops and answers ErrLimit, so every
// validation within the bounds ends in milliseconds (SPEC PERF-4).
//
// # Performance
//
// Validation works on the argument bytes in one pass into a pooled token tape and
// allocates nothing in steady state. On the 2-core development machine a ten-property
// object validates in about 3 µs, 15× faster than santhosh-tekuri/jsonschema and
// google/jsonschema-go with their decoding, and the slowest accepted input known
// (BenchmarkWorstCase) in about 2 ms of CPU; bench/validate/README.md has the
// comparison and the commands.
//
// A compiled program keeps none of the schema text: enum values are copied into a small
// token tape, property names into one string, and identical subschemas without enum
// are one node shared by every program in the process (held by weak pointers, so
// nothing outlives its programs). 10,000 generated schemas of 1-7 KB retain about
// 2 KB each, half their JSON text (BenchmarkRetained).
//
// Every error text is fixed or names a JSON Schema keyword and a path made of declared
// property names and array indexes only: no argument value, undeclared key or schema
// text ever appears in an error (SPEC ERR-2).
package validate
