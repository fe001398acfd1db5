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
// (SPEC CALL-7) behind the same interfaces, with exact number equality and a work
// budget of its own: it estimates the library's work before running it.
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
//     flags, a repeat count over 1,000, a lone surrogate escape such as \uD800, another
//     property such as \p{ASCII}) or whose meaning differs between the engines with no
//     exact translation (POSIX classes, [] and [^], \S inside a class, \A, \z, \Q) is
//     unsupported, and so is a pattern Unicode mode refuses that Go would read another
//     way: a class escape as an end of a range ([\d-z]), a lone brace or bracket (a{,
//     ]), a quantified assertion (^*), \- outside a class, a group name repeated or
//     beginning with a digit. So a pattern compiled here is one JavaScript's
//     new RegExp(p, "u") compiles too (TestPatternsAgreeWithNode compares 20,000 drawn
//     at random, and their matches on 28 strings, when node is installed). Patterns
//     come from the schema only, never from arguments, and are at most MaxPattern UTF-16
//     code units long.
//
// # Bounds
//
// [Limits] holds the CALL-5 bounds. Depth, nodes, UTF-16 code units and text size are checked
// while the argument text is scanned, so 10,000 nested brackets stop at bracket 33.
//
// # Work steps
//
// Validation then spends work steps, at most MaxSteps (65,536). A step is at most about
// 75 ns of process CPU time, measured on the 2-core development machine under heavy
// load, so a budget spent to the last step ends within SPEC PERF-4's 5 ms: cpu-ns/op
// over steps/op of the cases that spend over 8,000 steps (go test ./validate -run '^$'
// -bench 'StepCorpus/|Adversarial/' -benchtime 50x) measured 3 to 68 ns, and 83 to
// 94 ns for 500 strings of 500 letters against [\p{L}\p{N}_.-]+, a ratio that counts
// the scan of the argument text, which no step pays for. Every
// charge is made before the work it pays for, and past the budget Validate stops and
// answers ErrLimit with no verdict. Charges:
//
//   - one per schema applied to a value, one per object member and array element;
//   - while scanning, one per eight key comparisons of the duplicate-key check (an
//     object of up to 16 keys compares them pairwise; a larger one through a hash
//     table, one step per key and per probe);
//   - enum: up to 15 values are scanned, one step per eight (most differ at a glance:
//     another kind, another length) plus equal's charge for the few of the same shape;
//     16 values or more are looked up by hash (an index built at compile time): the
//     value is charged one step per node and per 64 bytes to hash, then compared with
//     values of equal hash only;
//   - equal (enum, uniqueItems): one per node visited and per 64 bytes of strings and
//     numbers; uniqueItems finds duplicates through a hash table, one step per node
//     hashed and per probe, so 8,000 distinct items cost about 8,000 steps;
//   - numeric bounds and "integer": one per 64 bytes of the number;
//   - pattern: by the engine that runs it. A plain literal (searched with
//     bytes.Contains), a pattern of the simple anchored shape the sequence matcher
//     decides, or one whose deterministic automaton fits the construction bounds
//     (4,096 program instructions, 32,768 table cells, 131,072 units of construction
//     work: a few milliseconds at compile time) runs in one table lookup per code
//     point (beyond ASCII, a search among the classes of its block of 64 code points)
//     whatever the pattern: one step plus one per 16 bytes. Any other pattern
//     (word boundaries \b \B, which the automaton does not model, or an automaton too
//     large, as for (a|b)*a(a|b){20}) runs on Go's regexp, whose simulation does
//     work proportional to the input times the program in the worst case: it is
//     charged (bytes + 1) × the compiled program's instruction count (about 35 ns a
//     unit measured at worst), so (a|aa){0,1000}b, 7,003 instructions, is refused
//     on the longest string before it runs.
//
// Why this accounting: the spec bounds work at 65,536 steps and lets us define a step;
// charging every unit by its worst-case time keeps adversarial work bounded, and
// charging realistic work by what it really costs keeps ordinary arguments within the
// node and length bounds from being refused. 8,000 short strings against a pattern,
// one string of 262,144 code units against one, a 512-character string against a
// 512-unit pattern, records of nested objects with enums and formats, and 8,000 items
// against an enum of 260 values all end in a verdict well inside the budget
// (TestStepBudgetCorpus, TestStepBudgetRealCatalogs). What still hits the budget is
// work that grows with a product the bounds leave open: many anyOf/oneOf branches
// each applied to thousands of items, and a pattern without a linear matcher on
// long or many strings (TestStepBudgetAdversarial, TestAdversarial).
//
// # Performance
//
// Validation works on the argument bytes in one pass into a pooled token tape and
// allocates nothing in steady state. On the 2-core development machine a ten-property
// object validates in about 3 µs, 15× faster than santhosh-tekuri/jsonschema and
// google/jsonschema-go with their decoding (bench/validate/README.md has the comparison
// and the commands). The slowest accepted input known is BenchmarkWorstPattern's
// "alternating" case, at SPEC PERF-4's 5 ms bound (the README's PERF table has today's
// figures); BenchmarkWorstCase's takes about 2 ms of CPU.
//
// A compiled program keeps none of the schema text: enum values are copied into a small
// token tape, property names into one string, and identical subschemas without enum
// are one node shared by every program in the process (held by weak pointers, so
// nothing outlives its programs). 10,000 generated schemas of 1-7 KB retain about
// 2 KB each, half their JSON text (2,109 B, 0.50x: go test ./validate -run '^$' -bench
// Retained -benchtime 1x).
//
// Every error text is fixed or names a JSON Schema keyword and a path made of declared
// property names and array indexes only: no argument value, undeclared key or schema
// text ever appears in an error (SPEC ERR-2).
package validate
