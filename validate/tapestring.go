package validate

import "github.com/deferredtools/deferredtools/internal/jsonlex"

// faultErr maps each jsonlex fault to the parser error that reports it: malformed text
// is a syntax error, a bad character an encoding error.
var faultErr = [...]error{
	jsonlex.Unterminated:  errSyntax,
	jsonlex.Control:       errSyntax,
	jsonlex.BadEscape:     errSyntax,
	jsonlex.LoneSurrogate: errEncoding,
	jsonlex.BadUTF8:       errEncoding,
}

// string reads the string whose opening quote is src[i] into a token, charges its
// UTF-16 code units to the CALL-5 bound, and answers the index past it. Text with an
// escape is decoded into the arena; other text stays a slice of src. A string of at
// most seven plain bytes (most keys and short values) is read here without a call.
func (t *tape) string(src []byte, i int, lim tapeLimits) (int, error) {
	start := i + 1
	j := jsonlex.PlainPrefix(src, start)
	if j < len(src) && src[j] == '"' {
		// src[start:j] is printable ASCII: one code unit and one code point a byte.
		if t.units += j - start; t.units > lim.units {
			return 0, errUnits
		}
		t.toks = append(t.toks, token{kind: kString, off: int32(start), end: int32(j), n: int32(j - start), next: int32(len(t.toks) + 1)})
		return j + 1, nil
	}
	off := len(t.arena)
	arena, s, f := jsonlex.DecodeStringFrom(t.arena, src, start, j)
	if f != jsonlex.None {
		return 0, faultErr[f]
	}
	t.units += s.Units
	if t.units > lim.units {
		return 0, errUnits
	}
	// n counts code points (SPEC CALL-3): a character beyond the BMP is two units.
	tk := token{kind: kString, off: int32(start), end: int32(s.End - 1), n: int32(s.Units - s.Astral), next: int32(len(t.toks) + 1)}
	if s.Escaped {
		t.arena = arena
		tk.esc, tk.off, tk.end = true, int32(off), int32(len(arena))
	}
	t.toks = append(t.toks, tk)
	return s.End, nil
}
