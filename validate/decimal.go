package validate

import "encoding/binary"

// maxExpDigits bounds the significant digits of a number's exponent: |exponent| < 10^9.
// A larger exponent is a CALL-5 limit rather than a verdict.
const maxExpDigits = 9

// decimal is an exact view of a JSON number literal: value = ±0.D × 10^exp, where D
// is the digit stream (integer then fraction digits) from sig0 to sig1, with no
// leading or trailing zero. It allocates nothing and never rounds.
type decimal struct {
	lit   []byte
	neg   bool
	intS  int // integer digits lit[intS:intE]
	intE  int
	fracS int // fraction digits lit[fracS:fracE]
	fracE int
	sig0  int // significant digits: stream indexes [sig0, sig1); sig0 == sig1 for zero
	sig1  int
	exp   int64
}

func parseDecimal(lit []byte) decimal {
	d := decimal{lit: lit}
	i := 0
	if i < len(lit) && lit[i] == '-' {
		d.neg = true
		i++
	}
	d.intS = i
	for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
		i++
	}
	d.intE = i
	d.fracS, d.fracE = i, i
	if i < len(lit) && lit[i] == '.' {
		i++
		d.fracS = i
		for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
			i++
		}
		d.fracE = i
	}
	var e int64
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		eneg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			eneg = lit[i] == '-'
			i++
		}
		for ; i < len(lit); i++ {
			if e < 1e17 {
				e = e*10 + int64(lit[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
	}
	// Leading zeros: in the integer digits, then (if all were zero) the fraction.
	k := zerosFrom(lit, d.intS, d.intE)
	if k < d.intE {
		d.sig0 = k - d.intS
	} else {
		f := zerosFrom(lit, d.fracS, d.fracE)
		d.sig0 = d.intE - d.intS + f - d.fracS
	}
	// Trailing zeros: in the fraction, then (if all were zero) the integer digits.
	n := d.len()
	f := zerosBefore(lit, d.fracS, d.fracE)
	if f > d.fracS {
		d.sig1 = d.intE - d.intS + f - d.fracS
	} else {
		k := zerosBefore(lit, d.intS, d.intE)
		d.sig1 = k - d.intS
	}
	if d.sig1 < d.sig0 {
		d.sig0, d.sig1 = n, n // zero
	}
	d.exp = e + int64(d.intE-d.intS) - int64(d.sig0)
	return d
}

func (d *decimal) len() int { return d.intE - d.intS + d.fracE - d.fracS }

func (d *decimal) digit(k int) byte {
	if n := d.intE - d.intS; k < n {
		return d.lit[d.intS+k]
	} else {
		return d.lit[d.fracS+k-n]
	}
}

func (d *decimal) zero() bool { return d.sig0 == d.sig1 }

// isInteger reports whether the value is integral (so 1.0 and 1e2 are integers).
func (d *decimal) isInteger() bool {
	return d.zero() || d.exp >= int64(d.sig1-d.sig0)
}

// cmpDecimal compares the values of a and b exactly: -1, 0 or +1. -0 equals 0.
func cmpDecimal(a, b *decimal) int {
	az, bz := a.zero(), b.zero()
	switch {
	case az && bz:
		return 0
	case az:
		if b.neg {
			return 1
		}
		return -1
	case bz:
		if a.neg {
			return -1
		}
		return 1
	case a.neg != b.neg:
		if a.neg {
			return -1
		}
		return 1
	}
	c := cmpMagnitude(a, b)
	if a.neg {
		return -c
	}
	return c
}

func cmpMagnitude(a, b *decimal) int {
	if a.exp != b.exp {
		if a.exp < b.exp {
			return -1
		}
		return 1
	}
	na, nb := a.sig1-a.sig0, b.sig1-b.sig0
	for k := 0; k < na && k < nb; k++ {
		x, y := a.digit(a.sig0+k), b.digit(b.sig0+k)
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case na < nb:
		return -1
	case na > nb:
		return 1
	}
	return 0
}

// intValue answers the value of a non-negative integral decimal, saturated at max.
func (d *decimal) intValue(max int64) int64 {
	if d.zero() {
		return 0
	}
	if d.exp > 18 {
		return max
	}
	var v int64
	for k := int64(0); k < d.exp; k++ {
		v *= 10
		if i := d.sig0 + int(k); i < d.sig1 {
			v += int64(d.digit(i) - '0')
		}
	}
	if v > max || v < 0 {
		return max
	}
	return v
}

const zeros8 = 0x3030303030303030 // "00000000"

// zerosFrom answers the first index in [i, end) whose byte is not '0', or end.
func zerosFrom(b []byte, i, end int) int {
	for ; i+8 <= end && binary.LittleEndian.Uint64(b[i:]) == zeros8; i += 8 {
	}
	for i < end && b[i] == '0' {
		i++
	}
	return i
}

// zerosBefore answers the smallest k in [start, end] such that b[k:end] is all '0'.
func zerosBefore(b []byte, start, end int) int {
	for ; end-8 >= start && binary.LittleEndian.Uint64(b[end-8:]) == zeros8; end -= 8 {
	}
	for end > start && b[end-1] == '0' {
		end--
	}
	return end
}
