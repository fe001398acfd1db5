package validate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// kind is the JSON type of one tape token.
type kind uint8

const (
	kNull kind = iota + 1
	kFalse
	kTrue
	kNumber
	kString
	kArray
	kObject
)

// token is one JSON value (or object key) of a tape. Containers are followed by their
// children in document order; an object's children alternate key, value.
type token struct {
	kind kind
	esc  bool  // string content was decoded into the arena (it had escapes)
	off  int32 // string content or number literal: [off, end) in src or arena
	end  int32
	n    int32 // array: elements; object: members; string: code points (minLength, maxLength)
	next int32 // index of the first token after this value's subtree
}

// tape is a JSON text flattened into tokens in one pass. It is reused through a pool,
// so a steady-state parse allocates nothing.
type tape struct {
	src   []byte
	arena []byte
	toks  []token
	stack []int32
	keys  []int32
	table []hpair // duplicate-key hash table; i == 0 marks a free slot
	nodes int     // JSON values, keys excluded
	units int     // UTF-16 code units over all strings, keys included
}

// tapeLimits bound one parse.
type tapeLimits struct {
	depth, nodes, units, bytes int
}

// Errors of the parser. They carry no input text (SPEC ERR-2).
var (
	errSyntax    = fmt.Errorf("%w: malformed JSON", ErrInvalid)
	errEncoding  = fmt.Errorf("%w: invalid UTF-8 or lone surrogate in a string", ErrInvalid)
	errDuplicate = fmt.Errorf("%w: duplicate object key", ErrInvalid)
	errDepth     = fmt.Errorf("%w: nesting depth", ErrLimit)
	errNodes     = fmt.Errorf("%w: node count", ErrLimit)
	errUnits     = fmt.Errorf("%w: string code units", ErrLimit)
	errBytes     = fmt.Errorf("%w: text size", ErrLimit)
	errExponent  = fmt.Errorf("%w: number exponent", ErrLimit)
	errSteps     = fmt.Errorf("%w: work steps", ErrLimit)
)

// str returns the decoded content of string token i.
func (t *tape) str(i int32) []byte {
	tk := &t.toks[i]
	if tk.esc {
		return t.arena[tk.off:tk.end]
	}
	return t.src[tk.off:tk.end]
}

// lit returns the literal of number token i.
func (t *tape) lit(i int32) []byte { return t.src[t.toks[i].off:t.toks[i].end] }

// parse fills t from src, enforcing lim, and charges duplicate-key checks to *steps.
// It accepts exactly RFC 8259 JSON with one top-level value, valid UTF-8 and no lone
// surrogate escapes, and rejects duplicate keys in any object.
func (t *tape) parse(src []byte, lim tapeLimits, steps *int) error {
	t.src = src
	t.arena = t.arena[:0]
	t.toks = t.toks[:0]
	t.stack = t.stack[:0]
	t.nodes, t.units = 0, 0
	if len(src) > lim.bytes {
		return errBytes
	}
	i := jsonlex.SkipSpace(src, 0)
	for {
		// A value starts at i.
		if i >= len(src) {
			return errSyntax
		}
		t.nodes++
		if t.nodes > lim.nodes {
			return errNodes
		}
		c := src[i]
		switch {
		case c == '{' || c == '[':
			if len(t.stack) >= lim.depth {
				return errDepth
			}
			k := kArray
			if c == '{' {
				k = kObject
			}
			t.stack = append(t.stack, int32(len(t.toks)))
			t.toks = append(t.toks, token{kind: k})
			i = jsonlex.SkipSpace(src, i+1)
			if i < len(src) && (src[i] == '}' && k == kObject || src[i] == ']' && k == kArray) {
				i++
				if err := t.close(steps); err != nil {
					return err
				}
				goto after
			}
			t.toks[t.stack[len(t.stack)-1]].n++
			if k == kObject {
				var err error
				if i, err = t.key(src, i, lim); err != nil {
					return err
				}
			}
			continue
		case c == '"':
			var err error
			if i, err = t.string(src, i, lim); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9':
			var err error
			if i, err = t.number(src, i, lim); err != nil {
				return err
			}
		case c == 't':
			if !hasLit(src, i, "true") {
				return errSyntax
			}
			t.toks = append(t.toks, token{kind: kTrue, next: int32(len(t.toks) + 1)})
			i += 4
		case c == 'f':
			if !hasLit(src, i, "false") {
				return errSyntax
			}
			t.toks = append(t.toks, token{kind: kFalse, next: int32(len(t.toks) + 1)})
			i += 5
		case c == 'n':
			if !hasLit(src, i, "null") {
				return errSyntax
			}
			t.toks = append(t.toks, token{kind: kNull, next: int32(len(t.toks) + 1)})
			i += 4
		default:
			return errSyntax
		}
	after:
		// A value ended just before i.
		for {
			i = jsonlex.SkipSpace(src, i)
			if len(t.stack) == 0 {
				if i != len(src) {
					return errSyntax
				}
				return nil
			}
			if i >= len(src) {
				return errSyntax
			}
			top := t.stack[len(t.stack)-1]
			k := t.toks[top].kind
			switch c := src[i]; {
			case c == ',':
				i = jsonlex.SkipSpace(src, i+1)
				t.toks[top].n++
				if k == kObject {
					var err error
					if i, err = t.key(src, i, lim); err != nil {
						return err
					}
				}
			case c == '}' && k == kObject, c == ']' && k == kArray:
				i++
				if err := t.close(steps); err != nil {
					return err
				}
				continue
			default:
				return errSyntax
			}
			break
		}
	}
}

func hasLit(src []byte, i int, lit string) bool {
	return len(src)-i >= len(lit) && string(src[i:i+len(lit)]) == lit
}

// key parses an object key and its colon at i and answers the index of the value.
func (t *tape) key(src []byte, i int, lim tapeLimits) (int, error) {
	if i >= len(src) || src[i] != '"' {
		return 0, errSyntax
	}
	i, err := t.string(src, i, lim)
	if err != nil {
		return 0, err
	}
	i = jsonlex.SkipSpace(src, i)
	if i >= len(src) || src[i] != ':' {
		return 0, errSyntax
	}
	return jsonlex.SkipSpace(src, i+1), nil
}

// close ends the container on top of the stack and, for an object, rejects a duplicate key.
func (t *tape) close(steps *int) error {
	top := t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
	tk := &t.toks[top]
	tk.next = int32(len(t.toks))
	if tk.kind != kObject || tk.n < 2 {
		return nil
	}
	t.keys = t.keys[:0]
	for j, m := top+1, int32(0); m < tk.n; m++ {
		t.keys = append(t.keys, j)
		j = t.toks[j+1].next
	}
	n := len(t.keys)
	if n <= 16 {
		*steps += n * n / 16 // eight short comparisons a step
		for a := 0; a < n; a++ {
			ka := t.str(t.keys[a])
			for b := a + 1; b < n; b++ {
				if string(ka) == string(t.str(t.keys[b])) {
					return errDuplicate
				}
			}
		}
		return nil
	}
	// Many keys: an open-addressing table of key hashes, one step per key and per probe.
	*steps += n
	size := 1 << bitsLen(2*n)
	mask := size - 1
	t.table = slices.Grow(t.table[:0], size)[:size]
	clear(t.table)
	for _, k := range t.keys {
		key := t.str(k)
		h := maphash.Bytes(hashSeed, key)
		for p := int(h) & mask; ; p = (p + 1) & mask {
			slot := &t.table[p]
			if slot.i == 0 {
				slot.h, slot.i = h, k
				break
			}
			*steps++
			if slot.h == h && string(t.str(slot.i)) == string(key) {
				return errDuplicate
			}
		}
	}
	return nil
}

func bitsLen(n int) int {
	b := 1
	for n > 1 {
		n >>= 1
		b++
	}
	return b
}

// number scans a number literal at i.
// The literal's bytes count against the string code units bound: a long number is a
// long string of digits.
func (t *tape) number(src []byte, i int, lim tapeLimits) (int, error) {
	start := i
	if src[i] == '-' {
		i++
	}
	if i >= len(src) {
		return 0, errSyntax
	}
	switch c := src[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i = digitRun(src, i)
	default:
		return 0, errSyntax
	}
	if i < len(src) && src[i] == '.' {
		i++
		d := i
		i = digitRun(src, i)
		if i == d {
			return 0, errSyntax
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		d := i
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		if i == d {
			return 0, errSyntax
		}
		for d < i-1 && src[d] == '0' {
			d++
		}
		if i-d > maxExpDigits {
			return 0, errExponent
		}
	}
	if i < len(src) {
		// A number must end at a delimiter, which the caller checks; letters are
		// rejected there too, but "01" must fail here.
		if c := src[i]; c >= '0' && c <= '9' {
			return 0, errSyntax
		}
	}
	t.units += i - start
	if t.units > lim.units {
		return 0, errUnits
	}
	t.toks = append(t.toks, token{kind: kNumber, off: int32(start), end: int32(i), next: int32(len(t.toks) + 1)})
	return i, nil
}

// digitRun answers the end of the run of ASCII digits from i, eight bytes at a time.
func digitRun(src []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		// Every byte is a digit when no byte of x-'0' borrows and none of
		// x+(0x7F-'9') carries into its high bit (which also rules out bytes >= 0x80).
		if ((x-lo*'0')|(x+lo*(0x7F-'9'))|x)&hi != 0 {
			break
		}
	}
	for i < len(src) && src[i] >= '0' && src[i] <= '9' {
		i++
	}
	return i
}

// isLimit reports whether err is a bound error (as opposed to a verdict).
func isLimit(err error) bool { return errors.Is(err, ErrLimit) }
