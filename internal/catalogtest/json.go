package catalogtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// obj is a JSON object that keeps its members in their order, so a walk over a template
// draws random numbers in the same order on every run (Go maps iterate at random).
type obj struct {
	keys []string
	vals []any
}

// errJSON reports template text that is not one JSON value.
var errJSON = errors.New("catalogtest: malformed JSON")

// decode parses data into *obj, []any, string, json.Number, bool and nil values.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errJSON
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &obj{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errJSON
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, k)
				o.vals = append(o.vals, v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, errJSON
	default:
		return t, nil // string, json.Number, bool or nil
	}
}

// appendValue appends v as compact JSON, members in their order.
func appendValue(dst []byte, v any) []byte { return AppendJSON(dst, v, nil) }

// AppendJSON appends v as compact JSON: v is a value encoding/json decodes into an any
// (map[string]any, []any, string, json.Number, float64, bool, nil) or one of this
// package's. order, when not nil, orders the member names of each decoded object
// before they are written, depth 0 being v's own; nil sorts them as json.Marshal does.
// Tests write a tool in another member order with it.
func AppendJSON(dst []byte, v any, order func(keys []string, depth int)) []byte {
	return appendJSON(dst, v, order, 0)
}

func appendJSON(dst []byte, v any, order func(keys []string, depth int), depth int) []byte {
	switch x := v.(type) {
	case *obj:
		dst = append(dst, '{')
		for i, k := range x.keys {
			dst = appendMember(dst, i, k, x.vals[i], order, depth)
		}
		return append(dst, '}')
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		if order != nil {
			order(keys, depth)
		}
		dst = append(dst, '{')
		for i, k := range keys {
			dst = appendMember(dst, i, k, x[k], order, depth)
		}
		return append(dst, '}')
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e, order, depth+1)
		}
		return append(dst, ']')
	case string:
		return appendString(dst, x)
	case json.Number:
		return append(dst, x...)
	case bool:
		return strconv.AppendBool(dst, x)
	case nil:
		return append(dst, "null"...)
	case float64:
		b, err := json.Marshal(x)
		if err != nil {
			panic("catalogtest: number JSON cannot write")
		}
		return append(dst, b...)
	}
	panic("catalogtest: unexpected value type")
}

// appendMember appends the i-th member k:v of an object at depth.
func appendMember(dst []byte, i int, k string, v any, order func(keys []string, depth int), depth int) []byte {
	if i > 0 {
		dst = append(dst, ',')
	}
	dst = appendString(dst, k)
	dst = append(dst, ':')
	return appendJSON(dst, v, order, depth+1)
}

// appendString appends s as a JSON string, escaping only what JSON requires.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, `\n`...)
		case c == '\t':
			dst = append(dst, `\t`...)
		case c == '\r':
			dst = append(dst, `\r`...)
		case c < 0x20:
			dst = append(dst, `\u00`...)
			dst = append(dst, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}
