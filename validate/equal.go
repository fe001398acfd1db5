package validate

import "hash/maphash"

var (
	hashSeed = maphash.MakeSeed()
	numSeed  = maphash.String(hashSeed, "number")
)

// sameShape reports whether two values may be equal at a glance: same kind, and for
// strings the same length, for arrays and objects the same count. equal decides.
func sameShape(a, b *token) bool {
	switch {
	case a.kind != b.kind:
		return false
	case a.kind == kString:
		return a.n == b.n && a.end-a.off == b.end-b.off
	case a.kind == kArray || a.kind == kObject:
		return a.n == b.n
	}
	return true
}

// equal reports whether value i of ta and value j of tb are equal JSON values: numbers
// by value, objects regardless of member order. It charges one step per node visited
// and gives up (answering false) once the budget is spent; callers check st.steps.
func (st *state) equal(ta *tape, i int32, tb *tape, j int32) bool {
	if !st.spend(1) {
		return false
	}
	a, b := &ta.toks[i], &tb.toks[j]
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kString:
		if a.n != b.n || a.end-a.off != b.end-b.off {
			return false
		}
		if !st.spend(int(a.end-a.off) / 64) {
			return false
		}
		return string(ta.str(i)) == string(tb.str(j))
	case kNumber:
		x, y := ta.lit(i), tb.lit(j)
		if !st.spend((len(x) + len(y)) / 64) {
			return false
		}
		dx, dy := parseDecimal(x), parseDecimal(y)
		return cmpDecimal(&dx, &dy) == 0
	case kArray:
		if a.n != b.n {
			return false
		}
		for x, y := i+1, j+1; x < a.next; x, y = ta.toks[x].next, tb.toks[y].next {
			if !st.equal(ta, x, tb, y) {
				return false
			}
		}
		return true
	case kObject:
		if a.n != b.n {
			return false
		}
		for x, m := i+1, int32(0); m < a.n; m++ {
			kx := ta.str(x)
			found := false
			for y, k := j+1, int32(0); k < b.n; k++ {
				if !st.spend(1) {
					return false
				}
				if string(kx) == string(tb.str(y)) {
					if !st.equal(ta, x+1, tb, y+1) {
						return false
					}
					found = true
					break
				}
				y = tb.toks[y+1].next
			}
			if !found {
				return false
			}
			x = ta.toks[x+1].next
		}
		return true
	}
	return true // null, true, false
}

func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// hashValue hashes value i consistently with equal.
func hashValue(t *tape, i int32) uint64 {
	tk := &t.toks[i]
	switch tk.kind {
	case kNull:
		return 0x11
	case kFalse:
		return 0x22
	case kTrue:
		return 0x33
	case kString:
		return maphash.Bytes(hashSeed, t.str(i))
	case kNumber:
		d := parseDecimal(t.lit(i))
		if d.zero() {
			return 0x44
		}
		h := numSeed ^ uint64(d.exp)*0x9e3779b97f4a7c15
		if d.neg {
			h ^= 0x55
		}
		for k := d.sig0; k < d.sig1; k++ {
			h = (h ^ uint64(d.digit(k))) * 0x100000001b3
		}
		return mix(h)
	case kArray:
		h := uint64(0x66)
		for e := i + 1; e < tk.next; e = t.toks[e].next {
			h = mix(h*31 + hashValue(t, e))
		}
		return h
	}
	h := uint64(0x77)
	for x, m := i+1, int32(0); m < tk.n; m++ {
		h += mix(maphash.Bytes(hashSeed, t.str(x)) ^ mix(hashValue(t, x+1)+1))
		x = t.toks[x+1].next
	}
	return h
}

// hashCost answers the steps of hashing value i, as equal would charge comparing it:
// one per node and one per 64 bytes of each string and number.
func hashCost(t *tape, i int32) int {
	n := 0
	for k := i; k < t.toks[i].next; k++ {
		tk := &t.toks[k]
		n++
		if tk.kind == kString || tk.kind == kNumber {
			n += int(tk.end-tk.off) / 64
		}
	}
	return n
}
