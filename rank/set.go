package rank

import "math/bits"

// A Set is a bitset of doc indexes: bit i set means doc i is in the set.
// The zero value is the empty set.
type Set []uint64

// NewSet returns an empty set able to hold docs 0..n-1 (none when n < 1).
func NewSet(n int) Set { return make(Set, (max(n, 0)+63)/64) }

// Add puts doc i in the set. i must be below the capacity given to NewSet: past it
// Add panics, as an index out of range does (the zero Set holds no doc).
func (s Set) Add(i int) { s[i>>6] |= 1 << (uint(i) & 63) }

// Has reports whether doc i is in the set.
func (s Set) Has(i int) bool {
	w := i >> 6
	return w >= 0 && w < len(s) && s[w]&(1<<(uint(i)&63)) != 0
}

// Count reports the number of docs in the set.
func (s Set) Count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}
