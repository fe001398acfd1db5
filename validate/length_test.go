package validate

import (
	"strings"
	"testing"
)

// TestLengthCountsCodePoints: minLength and maxLength count code points, as JSON
// Schema 2020-12 defines a string's length; not UTF-16 code units, bytes or graphemes.
// Each string is tried raw and spelled with \u escapes (the tape's two string paths).
//
// SPEC CALL-3
func TestLengthCountsCodePoints(t *testing.T) {
	const (
		poo     = "\U0001F4A9"           // PILE OF POO: 1 code point, 2 UTF-16 units
		stems   = "\U0001D165\U0001D167" // two astral combining marks (Mc, Mn)
		acutes  = "\u0301\u0301\u0301"   // three BMP combining marks, no base
		grinner = "\U0001F600"
	)
	tests := []struct {
		name, schema, str, want string
	}{
		{"two astral under maxLength 2", `{"maxLength":2}`, poo + poo, "ok"},
		{"two astral under minLength 3", `{"minLength":3}`, poo + poo, "invalid:minLength"},
		{"two astral at minLength 2", `{"minLength":2}`, poo + poo, "ok"},
		{"two astral over maxLength 1", `{"maxLength":1}`, poo + poo, "invalid:maxLength"},
		{"one astral under maxLength 1", `{"maxLength":1}`, grinner, "ok"},
		// A base letter with astral combining marks is one grapheme of three code points.
		{"astral combining marks at maxLength 3", `{"maxLength":3}`, "a" + stems, "ok"},
		{"astral combining marks at minLength 3", `{"minLength":3}`, "a" + stems, "ok"},
		{"astral combining marks over maxLength 2", `{"maxLength":2}`, "a" + stems, "invalid:maxLength"},
		{"BMP combining marks over maxLength 2", `{"maxLength":2}`, acutes, "invalid:maxLength"},
		{"BMP combining marks at minLength 3", `{"minLength":3}`, acutes, "ok"},
		{"decomposed e-acute is two", `{"minLength":2,"maxLength":2}`, "e\u0301", "ok"},
		// 1,000 astral characters, exactly at each bound.
		{"astral at maxLength", `{"maxLength":1000}`, strings.Repeat(grinner, 1000), "ok"},
		{"astral at minLength", `{"minLength":1000}`, strings.Repeat(grinner, 1000), "ok"},
		{"astral one over maxLength", `{"maxLength":999}`, strings.Repeat(grinner, 1000), "invalid:maxLength"},
		{"astral one under minLength", `{"minLength":1001}`, strings.Repeat(grinner, 1000), "invalid:minLength"},
		{"mixed at maxLength", `{"maxLength":6}`, "a" + poo + "é" + stems + "z", "ok"},
		{"mixed over maxLength", `{"maxLength":5}`, "a" + poo + "é" + stems + "z", "invalid:maxLength"},
	}
	c := NewCompiler(nil)
	for _, tt := range tests {
		v := mustCompile(t, c, tt.schema)
		forms := []struct{ name, args string }{
			{"raw", `"` + tt.str + `"`},
			{"escaped", `"` + escapeAll(tt.str) + `"`},
		}
		// An escaped ASCII first or last character sends the rest of the raw text
		// through the escape path, or a raw prefix into it.
		if c := tt.str[0]; c < 0x80 {
			forms = append(forms, struct{ name, args string }{"escape first", `"` + escapeAll(tt.str[:1]) + tt.str[1:] + `"`})
		}
		if n := len(tt.str) - 1; tt.str[n] < 0x80 {
			forms = append(forms, struct{ name, args string }{"escape last", `"` + tt.str[:n] + escapeAll(tt.str[n:]) + `"`})
		}
		for _, form := range forms {
			t.Run(tt.name+"/"+form.name, func(t *testing.T) {
				if got := verdict(v.Validate([]byte(form.args))); got != tt.want {
					t.Errorf("Compile(%s).Validate(%.40s) = %s, want %s", tt.schema, form.args, got, tt.want)
				}
			})
		}
	}
}

// escapeAll spells every character of s as \u escapes (a surrogate pair for an astral
// one).
func escapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			b.WriteString(`\u` + hex4s(0xD800+r>>10) + `\u` + hex4s(0xDC00+r&0x3FF))
			continue
		}
		b.WriteString(`\u` + hex4s(r))
	}
	return b.String()
}

func hex4s(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>12&0xF], digits[r>>8&0xF], digits[r>>4&0xF], digits[r&0xF]})
}

// TestStringBoundCountsUTF16Units: the CALL-5 bound on string code units still counts
// UTF-16 units, whatever minLength and maxLength count: 131,073 astral characters are
// 262,146 units, over 262,144, while 262,144 ASCII characters are exactly at it.
//
// SPEC CALL-5
// SPEC CALL-3
func TestStringBoundCountsUTF16Units(t *testing.T) {
	astral := "\U0001F600"
	tests := []struct {
		name, schema, args, want string
	}{
		{"131073 astral characters", `{"type":"string"}`, `"` + strings.Repeat(astral, 131073) + `"`, "limit"},
		{"131073 astral characters escaped", `{"type":"string"}`, `"` + strings.Repeat(`\ud83d\ude00`, 131073) + `"`, "limit"},
		{"131073 astral characters in two strings", `{}`, `["` + strings.Repeat(astral, 131072) + `","` + astral + `"]`, "limit"},
		{"131072 astral characters at maxLength", `{"maxLength":131072}`, `"` + strings.Repeat(astral, 131072) + `"`, "ok"},
		{"131072 astral characters over maxLength", `{"maxLength":131071}`, `"` + strings.Repeat(astral, 131072) + `"`, "invalid:maxLength"},
		{"262144 ASCII characters", `{"type":"string","minLength":262144}`, `"` + strings.Repeat("a", 262144) + `"`, "ok"},
		{"262145 ASCII characters", `{"type":"string"}`, `"` + strings.Repeat("a", 262145) + `"`, "limit"},
	}
	c := NewCompiler(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustCompile(t, c, tt.schema)
			if got := verdict(v.Validate([]byte(tt.args))); got != tt.want {
				t.Errorf("Validate = %s, want %s", got, tt.want)
			}
		})
	}
}
