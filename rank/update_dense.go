package rank

import (
	"math/bits"
)

// updateDense returns dense list s of ix without the docs gone (u.goneDocs) and with
// fresh, and its largest saturation, when kept docs keep their numbers; false when the
// list would have no bitset. A list as it was is ix's set, shared. Another has its own
// bitset and slab positions; the words that changed go to a new slab, the others' still
// point into ix's slabs, shared, unless the slabs would then hold more than half again
// as many postings as the list, or be more than maxSlabs: then every word goes to one
// new slab, so that a chain of versions holds no more than that.
func (u *updater) updateDense(s uint32, fresh []posting, words int) (denseSet, float32, bool) {
	ix := u.ix
	old := ix.denseSet(s)
	m := ix.maxSat[s]
	lostMax := false
	touched := u.touched[:0] // the words that change, ascending
	touch := func(w uint32) {
		if len(touched) == 0 || touched[len(touched)-1] != w {
			touched = append(touched, w)
		}
	}
	gone, fi := 0, 0
	for _, d := range u.goneDocs {
		w, bit := d>>6, uint64(1)<<(d&63)
		if old.bits[w]&bit == 0 {
			continue
		}
		gone++
		lostMax = lostMax || old.word(w)[bits.OnesCount64(old.bits[w]&(bit-1))] == m
		for ; fi < len(fresh) && fresh[fi].doc>>6 <= w; fi++ {
			touch(fresh[fi].doc >> 6)
		}
		touch(w)
	}
	for ; fi < len(fresh); fi++ {
		touch(fresh[fi].doc >> 6)
	}
	u.touched = touched
	n := int(old.n) - gone + len(fresh)
	if !hasSummary(n, words) {
		return denseSet{}, 0, false
	}
	if len(touched) == 0 {
		return *old, m, true
	}
	ds := denseSet{bits: fromChunk(&u.bitsFree, old.bits, words), at: fromChunk(&u.atFree, old.at, words), n: uint32(n)}
	for _, d := range u.goneDocs {
		ds.bits[d>>6] &^= 1 << (d & 63)
	}
	for _, e := range fresh {
		ds.bits[e.doc>>6] |= 1 << (e.doc & 63)
	}
	need := 0
	for _, w := range touched {
		need += bits.OnesCount64(ds.bits[w])
	}
	ds.slabs, ds.nslabs = old.slabs, old.nslabs
	room := int(old.room)
	all := old.nslabs == maxSlabs || room+need > n+n/2
	if all {
		ds.slabs, ds.nslabs, room, need = [maxSlabs][]float32{}, 0, 0, n
	}
	slab := make([]float32, need)
	k, pos := ds.nslabs, 0
	fi = 0
	write := func(w uint32, changed bool) { // word w's postings to slab, from pos
		full := ds.bits[w]
		ds.at[w] = k<<slabAt | uint32(pos)
		if full == 0 {
			return
		}
		oldFull, src := old.bits[w], old.word(w)
		if !changed {
			pos += copy(slab[pos:], src[:bits.OnesCount64(full)])
			return
		}
		for x := full; x != 0; x &= x - 1 {
			b := uint(bits.TrailingZeros64(x))
			if d := w<<6 | uint32(b); fi < len(fresh) && fresh[fi].doc == d {
				slab[pos] = fresh[fi].sat
				fi++
			} else {
				slab[pos] = src[bits.OnesCount64(oldFull&(1<<b-1))]
			}
			pos++
		}
	}
	if !all {
		for _, w := range touched {
			write(w, true)
		}
	} else {
		ti := 0
		for w := range uint32(len(ds.bits)) {
			changed := ti < len(touched) && touched[ti] == w
			if changed {
				ti++
			}
			write(w, changed)
		}
	}
	ds.slabs[k], ds.nslabs = slab, k+1
	ds.room = uint32(room + need)
	return ds, ds.updatedMax(m, lostMax, fresh), true
}

// shiftDense returns dense list s of ix renumbered run by run (u.runs), without the
// docs gone and with fresh, and its largest saturation, when kept docs keep their order;
// false when the list would have no bitset. Its bitset is copied run by run, shifted, and
// its postings to one new slab, in bulk.
func (u *updater) shiftDense(s uint32, fresh []posting, words int) (denseSet, float32, bool) {
	ix := u.ix
	old := ix.denseSet(s)
	m := ix.maxSat[s]
	// The postings of docs gone: those outside every run.
	lostMax, gone, end := false, 0, uint32(0)
	for k := 0; k <= len(u.runs); k++ {
		next := uint32(ix.n)
		if k < len(u.runs) {
			next = u.runs[k].lo
		}
		for d := end; d < next; d++ { // seldom more than a few docs
			w, bit := d>>6, uint64(1)<<(d&63)
			if old.bits[w]&bit != 0 {
				gone++
				lostMax = lostMax || old.word(w)[bits.OnesCount64(old.bits[w]&(bit-1))] == m
			}
		}
		if k < len(u.runs) {
			end = u.runs[k].hi
		}
	}
	n := int(old.n) - gone + len(fresh)
	if !hasSummary(n, words) {
		return denseSet{}, 0, false
	}
	ds := denseSet{bits: fromChunk(&u.bitsFree, nil, words), at: fromChunk(&u.atFree, nil, words), n: uint32(n), room: uint32(n)}
	slab := make([]float32, n)
	pos, all := 0, fresh
	put := func(e posting) {
		ds.bits[e.doc>>6] |= 1 << (e.doc & 63)
		slab[pos] = e.sat
		pos++
	}
	for _, r := range u.runs {
		for len(fresh) > 0 && int64(fresh[0].doc) < int64(r.lo)+r.shift {
			put(fresh[0])
			fresh = fresh[1:]
		}
		copyBits(ds.bits, uint32(int64(r.lo)+r.shift), old.bits, r.lo, r.hi-r.lo)
		for w := r.lo >> 6; w <= (r.hi-1)>>6; w++ {
			in := old.bits[w] & wordRange(w, r.lo, r.hi)
			if in == 0 {
				continue
			}
			first := bits.OnesCount64(old.bits[w] & (1<<bits.TrailingZeros64(in) - 1))
			pos += copy(slab[pos:], old.word(w)[first:first+bits.OnesCount64(in)])
		}
	}
	for _, e := range fresh {
		put(e)
	}
	ds.slabs[0], ds.nslabs = slab, 1
	ds.number()
	return ds, ds.updatedMax(m, lostMax, all), true
}

// wordRange returns the bits of word w that stand for docs lo to hi-1.
func wordRange(w, lo, hi uint32) uint64 {
	x := ^uint64(0)
	if base := w << 6; lo > base {
		x &= ^uint64(0) << (lo - base)
	}
	if base := w << 6; hi < base+64 {
		x &= 1<<(hi-base) - 1
	}
	return x
}

// copyBits sets in dst, from bit to on, the n bits of src from bit from on (dst's are 0).
func copyBits(dst []uint64, to uint32, src []uint64, from, n uint32) {
	for n > 0 {
		k := min(64-from&63, 64-to&63, n)
		v := src[from>>6] >> (from & 63)
		if k < 64 {
			v &= 1<<k - 1
		}
		dst[to>>6] |= v << (to & 63)
		from, to, n = from+k, to+k, n-k
	}
}

// denseChunk is how many dense sets' bitsets (and slab positions) updateDense allocates
// at a time: one allocation for many small arrays.
const denseChunk = 64

// fromChunk returns n elements taken from *free, a chunk of them that it refills with
// room for denseChunk takes when short, holding a copy of src (nil: zeros): the
// bitsets and slab positions of updateDense's sets, one allocation for many.
func fromChunk[T any](free *[]T, src []T, n int) []T {
	if len(*free) < n {
		*free = make([]T, n*denseChunk)
	}
	out := (*free)[:n:n]
	*free = (*free)[n:]
	copy(out, src)
	return out
}

// updatedMax returns the largest saturation of ds, written from a list whose largest
// was m and fresh: read anew when a posting gone held m (lostMax), else m or fresh's.
func (ds *denseSet) updatedMax(m float32, lostMax bool, fresh []posting) float32 {
	if lostMax {
		return ds.largest()
	}
	for _, e := range fresh {
		m = max(m, e.sat)
	}
	return m
}

// largest returns the largest saturation of ds.
func (ds *denseSet) largest() float32 {
	m := float32(0)
	for w, full := range ds.bits {
		if full != 0 {
			for _, x := range ds.word(uint32(w))[:bits.OnesCount64(full)] {
				m = max(m, x)
			}
		}
	}
	return m
}
