package jsonlex

// Valid reports whether b is exactly one JSON value (RFC 8259 grammar, surrounding
// whitespace allowed), accepting what encoding/json's Valid accepts, and returns the
// value's greatest nesting depth (objects and arrays; 0 for a scalar). It has no depth
// limit of its own and no recursion, so a value of any depth is measured, not refused
// halfway; it allocates only for values nested deeper than 64. Like encoding/json it
// checks strings for their grammar alone (escapes, control characters), not for UTF-8
// or surrogate pairing: ScanString checks those.
func Valid(b []byte) (depth int, ok bool) {
	var buf [64]byte
	stack := buf[:0] // the open containers, '{' or '['
	i := SkipSpace(b, 0)
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			stack = append(stack, c)
			depth = max(depth, len(stack))
			i = SkipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				stack = stack[:len(stack)-1]
				i++
			} else {
				if c == '{' {
					if i = validKey(b, i); i < 0 {
						return 0, false
					}
				}
				continue
			}
		case c == '"':
			if i = validString(b, i); i < 0 {
				return 0, false
			}
		case c == '-' || ('0' <= c && c <= '9'):
			if i = validNumber(b, i); i < 0 {
				return 0, false
			}
		case hasWord(b, i, "true"):
			i += 4
		case hasWord(b, i, "false"):
			i += 5
		case hasWord(b, i, "null"):
			i += 4
		default:
			return 0, false
		}
		// After a value: close containers or move to the next element.
		for {
			i = SkipSpace(b, i)
			if len(stack) == 0 {
				return depth, i == len(b)
			}
			if i >= len(b) {
				return 0, false
			}
			top := stack[len(stack)-1]
			if b[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return 0, false
			}
			i = SkipSpace(b, i+1)
			if top == '{' {
				if i = validKey(b, i); i < 0 {
					return 0, false
				}
			}
			break
		}
	}
}

func hasWord(b []byte, i int, w string) bool {
	return len(b)-i >= len(w) && string(b[i:i+len(w)]) == w
}

// validKey reads `"key" :` at b[i] and returns the index of the value after it, or -1.
func validKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = validString(b, i); i < 0 {
		return -1
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return SkipSpace(b, i+1)
}

// validString returns the index just past the string whose opening quote is b[i], or
// -1 when it is unterminated, holds an unescaped control character or a malformed
// escape. Bytes beyond ASCII pass unchecked.
func validString(b []byte, i int) int {
	for i++; ; {
		i = plainRun(b, i)
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(b) {
				return -1
			}
			if b[i+1] != 'u' {
				if unescape[b[i+1]] == 0 {
					return -1
				}
				i += 2
				continue
			}
			if _, ok := Hex4(b, i+2); !ok {
				return -1
			}
			i += 6
		case c < 0x20:
			return -1
		default: // beyond ASCII
			for i++; i < len(b) && b[i] >= 0x80; i++ {
			}
		}
	}
}

// validNumber returns the index just past the number that starts at b[i], or -1.
func validNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if i = digits(b, i); i < 0 {
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = digits(b, i+1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digits(b, i); i < 0 {
			return -1
		}
	}
	return i
}

// digits returns the index past the run of decimal digits at b[i], or -1 when there is
// none.
func digits(b []byte, i int) int {
	start := i
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}
