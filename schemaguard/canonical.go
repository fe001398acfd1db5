package schemaguard

import (
	"bytes"
	"math"
	"strconv"
	"sync"
	"unsafe"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// MaxNesting is the deepest nesting of arrays and objects Canonicalize accepts; deeper
// text is ErrMalformed. It bounds the recursion of the parser, as encoding/json does
// with the same figure, and lies far above any catalog limit (DefaultMaxDepth).
const MaxNesting = 10000

// malformedError is an ErrMalformed with a fixed reason that never quotes the input.
type malformedError string

func (e malformedError) Error() string { return "schemaguard: malformed JSON: " + string(e) }
func (e malformedError) Unwrap() error { return ErrMalformed }

var (
	errSyntax    error = malformedError("invalid syntax")
	errUTF8      error = malformedError("invalid UTF-8")
	errControl   error = malformedError("control character in string")
	errEscape    error = malformedError("invalid escape")
	errSurrogate error = malformedError("lone surrogate")
	errDuplicate error = malformedError("duplicate object key")
	errRange     error = malformedError("number outside IEEE 754 double range")
	errNesting   error = malformedError("nesting deeper than 10000")
	errTrailing  error = malformedError("data after the JSON value")
)

type kind uint8

const (
	kNull kind = iota
	kFalse
	kTrue
	kNumber
	kString
	// kPlain is a string written with no escape: its text is src[a:b], between its
	// quotes, and its canonical form is src[a-1:b+1] as it is (RFC 8259 allows no
	// control character, quote or backslash there, and ScanString checked its UTF-8).
	kPlain
	// kRaw is a value whose text src[a:b] is already its canonical form: a number or
	// a string value written as JCS writes it, or an array or object with no
	// whitespace whose names are plain and in order and whose values are all canonical.
	// A container's subtree is dropped from the tape: it is written as one copy.
	kRaw
	kArray
	kObject
)

// canonical reports whether a node of kind k is written as its text in src.
func (k kind) canonical() bool {
	switch k {
	case kNull, kFalse, kTrue, kPlain, kRaw:
		return true
	}
	return false
}

// A node is one entry of the tape the parser writes: every value in document order,
// each object member as its key (a kString or kPlain node) followed by its value.
type node struct {
	kind kind
	a, b int     // kString: str[a:b]; kPlain, kRaw: src[a:b]; array, object: a = elements or members, b = index past the subtree
	num  float64 // number
}

// canon holds one Canonicalize call's scratch; it is pooled, so steady-state calls
// allocate only when dst must grow.
type canon struct {
	src      []byte
	pos      int
	tape     []node
	str      []byte   // decoded strings, UTF-8
	enc      []byte   // an escaped string value's canonical form, to compare with its text
	members  []member // stack of the members of the objects being written
	nodes    int
	depth    int
	spaces   int  // whitespace bytes skipped so far
	collapse bool // parse text already canonical into kRaw nodes (off only in tests)
}

var canonPool = sync.Pool{New: func() any { return new(canon) }}

// Canonicalize appends the RFC 8785 canonical form of the JSON text src to dst and
// returns it with its Measure. Errors wrap ErrMalformed and never quote src.
//
// src must be one JSON value (RFC 8259) in UTF-8, optionally surrounded by whitespace,
// with no byte order mark. Object members are sorted by the UTF-16 code units of their
// names; strings are written with only the escapes JCS requires; numbers are written as
// ECMAScript's Number.prototype.toString writes the nearest IEEE 754 double (so
// 1.0, 1e0 and 10e-1 all become 1, and -0 becomes 0). Invalid UTF-8, a lone surrogate
// escape, a duplicate member name (compared after unescaping), a number that overflows
// a double, and nesting deeper than MaxNesting are ErrMalformed; a number that
// underflows becomes 0, as in ECMAScript. On error, dst is returned unchanged. dst must
// not overlap src: strings without escapes are copied from src as the form is written.
func Canonicalize(dst, src []byte) ([]byte, Measure, error) {
	return canonicalize(dst, src, true)
}

// canonicalize is Canonicalize; with collapse false it writes every value from the
// tape, even text already in canonical form (the reference the tests compare with).
func canonicalize(dst, src []byte, collapse bool) ([]byte, Measure, error) {
	c := canonPool.Get().(*canon)
	defer c.release()
	c.src, c.pos, c.collapse = src, 0, collapse
	if err := c.value(0); err != nil {
		return dst, Measure{}, err
	}
	c.skipSpace()
	if c.pos != len(c.src) {
		return dst, Measure{}, errTrailing
	}
	start := len(dst)
	out, _, err := c.write(dst, 0)
	if err != nil {
		return dst[:start], Measure{}, err
	}
	return out, Measure{Bytes: len(out) - start, Nodes: c.nodes, Depth: c.depth}, nil
}

func (c *canon) release() {
	c.src = nil
	c.tape, c.str, c.enc, c.members = c.tape[:0], c.str[:0], c.enc[:0], c.members[:0]
	c.nodes, c.depth, c.spaces = 0, 0, 0
	if cap(c.tape) > 1<<16 || cap(c.str) > 1<<20 || cap(c.enc) > 1<<20 || cap(c.members) > 1<<16 {
		return // do not keep an outsized buffer alive in the pool
	}
	canonPool.Put(c)
}

// skipSpace skips whitespace, counting it in c.spaces: a container none was skipped in
// can be its own canonical form.
func (c *canon) skipSpace() {
	if c.pos < len(c.src) && c.src[c.pos] > ' ' { // no whitespace here, as in canonical text
		return
	}
	i := c.pos
	c.pos = jsonlex.SkipSpace(c.src, i)
	c.spaces += c.pos - i
}

// value parses one value at nesting level depth (the number of containers around it)
// onto the tape.
func (c *canon) value(depth int) error {
	c.skipSpace()
	if c.pos >= len(c.src) {
		return errSyntax
	}
	c.nodes++
	switch ch := c.src[c.pos]; ch {
	case '{':
		return c.object(depth + 1)
	case '[':
		return c.array(depth + 1)
	case '"':
		return c.string(false)
	case 't':
		return c.literal("true", kTrue)
	case 'f':
		return c.literal("false", kFalse)
	case 'n':
		return c.literal("null", kNull)
	default:
		if ch == '-' || ('0' <= ch && ch <= '9') {
			return c.number()
		}
		return errSyntax
	}
}

func (c *canon) literal(lit string, k kind) error {
	if len(c.src)-c.pos < len(lit) || string(c.src[c.pos:c.pos+len(lit)]) != lit {
		return errSyntax
	}
	c.pos += len(lit)
	c.tape = append(c.tape, node{kind: k})
	return nil
}

// enter records a container at level and checks the nesting bound.
func (c *canon) enter(level int) error {
	if level > MaxNesting {
		return errNesting
	}
	c.depth = max(c.depth, level)
	return nil
}

func (c *canon) object(level int) error {
	if err := c.enter(level); err != nil {
		return err
	}
	at, start, spaces := len(c.tape), c.pos, c.spaces
	c.tape = append(c.tape, node{kind: kObject})
	c.pos++ // '{'
	c.skipSpace()
	n := 0
	raw := c.collapse // the members so far are canonical, their names plain and in order
	if c.pos < len(c.src) && c.src[c.pos] == '}' {
		c.pos++
	} else {
		prev := member{at: -1}
		for {
			c.skipSpace()
			if c.pos >= len(c.src) || c.src[c.pos] != '"' {
				return errSyntax
			}
			key := len(c.tape)
			if err := c.string(true); err != nil {
				return err
			}
			// Strictly increasing names hold no duplicate. Once whitespace was met, the
			// order is left for write to check.
			if raw = raw && c.spaces == spaces && c.tape[key].kind == kPlain; raw {
				m := member{at: key, key: prefixKey(c.text(&c.tape[key]))}
				raw = prev.at < 0 || c.compareMembers(prev, m) < 0
				prev = m
			}
			c.skipSpace()
			if c.pos >= len(c.src) || c.src[c.pos] != ':' {
				return errSyntax
			}
			c.pos++
			if err := c.value(level); err != nil {
				return err
			}
			raw = raw && c.tape[key+1].kind.canonical()
			n++
			c.skipSpace()
			if c.pos >= len(c.src) {
				return errSyntax
			}
			if c.src[c.pos] == ',' {
				c.pos++
				continue
			}
			if c.src[c.pos] == '}' {
				c.pos++
				break
			}
			return errSyntax
		}
	}
	c.end(at, start, n, raw && c.spaces == spaces)
	return nil
}

// end closes the container whose node is c.tape[at], its text starting at src[start]
// and holding n values: when raw, the text is its canonical form and its subtree is
// replaced by one kRaw node.
func (c *canon) end(at, start, n int, raw bool) {
	if raw {
		c.tape = c.tape[:at+1]
		c.tape[at] = node{kind: kRaw, a: start, b: c.pos}
		return
	}
	c.tape[at].a, c.tape[at].b = n, len(c.tape)
}

func (c *canon) array(level int) error {
	if err := c.enter(level); err != nil {
		return err
	}
	at, start, spaces := len(c.tape), c.pos, c.spaces
	c.tape = append(c.tape, node{kind: kArray})
	c.pos++ // '['
	c.skipSpace()
	n := 0
	raw := c.collapse // the elements so far are canonical
	if c.pos < len(c.src) && c.src[c.pos] == ']' {
		c.pos++
	} else {
		for {
			v := len(c.tape)
			if err := c.value(level); err != nil {
				return err
			}
			raw = raw && c.tape[v].kind.canonical()
			n++
			c.skipSpace()
			if c.pos >= len(c.src) {
				return errSyntax
			}
			if c.src[c.pos] == ',' {
				c.pos++
				continue
			}
			if c.src[c.pos] == ']' {
				c.pos++
				break
			}
			return errSyntax
		}
	}
	c.end(at, start, n, raw && c.spaces == spaces)
	return nil
}

// string parses the string starting at the quote at c.pos: one with escapes is decoded
// into c.str, one without is left where it is in src (kPlain). A value (not a member
// name) whose escapes are those JCS writes is left where it is too (kRaw).
func (c *canon) string(name bool) error {
	// A string of printable ASCII that closes within 16 bytes (most names, many values)
	// is read here, 8 bytes at a time, without a call.
	for i, k := c.pos+1, 0; k < 2; k++ {
		j := jsonlex.PlainPrefix(c.src, i)
		if j < len(c.src) && c.src[j] == '"' {
			c.tape = append(c.tape, node{kind: kPlain, a: c.pos + 1, b: j})
			c.pos = j + 1
			return nil
		}
		if j < i+8 {
			break
		}
		i = j
	}
	s, f := jsonlex.ScanString(c.src, c.pos)
	if f != jsonlex.None {
		return stringFaults[f]
	}
	if !s.Escaped {
		c.tape = append(c.tape, node{kind: kPlain, a: c.pos + 1, b: s.End - 1})
		c.pos = s.End
		return nil
	}
	start := len(c.str)
	c.str = jsonlex.Unescape(c.str, c.src[c.pos+1:s.End-1])
	if c.collapse && !name {
		if c.enc = appendString(c.enc[:0], c.str[start:]); bytes.Equal(c.enc, c.src[c.pos:s.End]) {
			c.str = c.str[:start]
			c.tape = append(c.tape, node{kind: kRaw, a: c.pos, b: s.End})
			c.pos = s.End
			return nil
		}
	}
	c.pos = s.End
	c.tape = append(c.tape, node{kind: kString, a: start, b: len(c.str)})
	return nil
}

// text returns the decoded text of the string node n.
func (c *canon) text(n *node) []byte {
	if n.kind == kPlain {
		return c.src[n.a:n.b]
	}
	return c.str[n.a:n.b]
}

// appendStringNode appends the canonical form of the string node n.
func (c *canon) appendStringNode(dst []byte, n *node) []byte {
	if n.kind == kPlain {
		return append(dst, c.src[n.a-1:n.b+1]...)
	}
	return appendString(dst, c.str[n.a:n.b])
}

// stringFaults maps each jsonlex.Fault to its error.
var stringFaults = [...]error{
	jsonlex.Unterminated:  errSyntax,
	jsonlex.Control:       errControl,
	jsonlex.BadEscape:     errEscape,
	jsonlex.LoneSurrogate: errSurrogate,
	jsonlex.BadUTF8:       errUTF8, // also encoded surrogates and overlong forms
}

// number parses a number per RFC 8259's grammar and converts it to the nearest double.
func (c *canon) number() error {
	src, i := c.src, c.pos
	start := i
	if src[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(src) && '0' <= src[i] && src[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case digits() == 0:
		return errSyntax
	}
	whole := i // past the integer part
	if i < len(src) && src[i] == '.' {
		i++
		if digits() == 0 {
			return errSyntax
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if digits() == 0 {
			return errSyntax
		}
	}
	// An integer of at most 15 characters is below 2^53, exact in a double, and written
	// as its digits (but -0, written 0): its text is its canonical form.
	if c.collapse && i == whole && i-start <= 15 && string(src[start:i]) != "-0" {
		c.tape = append(c.tape, node{kind: kRaw, a: start, b: i})
		c.pos = i
		return nil
	}
	// The digits are read where they are, not copied: a copy allocated once for each
	// number of more than 32 bytes, as long as its text. err, which holds the text, is
	// dropped before src can change.
	f, err := strconv.ParseFloat(unsafe.String(&src[start], i-start), 64)
	if err != nil || math.IsInf(f, 0) {
		return errRange // the grammar is checked above, so only overflow is left
	}
	if c.collapse {
		var buf [32]byte
		if string(appendNumber(buf[:0], f)) == string(src[start:i]) {
			c.tape = append(c.tape, node{kind: kRaw, a: start, b: i})
			c.pos = i
			return nil
		}
	}
	c.pos = i
	c.tape = append(c.tape, node{kind: kNumber, num: f})
	return nil
}
