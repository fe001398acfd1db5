package rank

import (
	"fmt"
	"math/bits"
	"slices"
)

// SameIndex returns an error naming the first difference between got and want other
// than their terms' ids: docs, name order, each term's postings, largest saturation
// and bitset, and its list of docs holding it in their parameters alone. A term got
// holds and want does not must be held by no doc.
func SameIndex(got, want *Index) error {
	if got.n != want.n || !slices.Equal(got.order, want.order) {
		return fmt.Errorf("%d docs, want %d, or another name order", got.n, want.n)
	}
	for w, id := range want.terms {
		gid, ok := got.terms[w]
		if !ok {
			return fmt.Errorf("term %q missing", w)
		}
		if err := sameList(got, gid, want, id); err != nil {
			return fmt.Errorf("term %q: %v", w, err)
		}
		if err := sameList(got, got.paramOnlyList(gid), want, want.paramOnlyList(id)); err != nil {
			return fmt.Errorf("term %q, in parameters alone: %v", w, err)
		}
	}
	for w, id := range got.terms {
		if _, ok := want.terms[w]; !ok && got.held(id) > 0 {
			return fmt.Errorf("term %q held by %d docs, want none", w, got.held(id))
		}
	}
	return nil
}

// paramOnlyList returns the list of the docs holding term t in their parameters alone,
// or noTerm.
func (ix *Index) paramOnlyList(t uint32) uint32 {
	if int(t) < len(ix.paramOnly) {
		return ix.paramOnly[t]
	}
	return noTerm
}

// sameList compares list l of got with list m of want; noTerm is an empty list.
func sameList(got *Index, l uint32, want *Index, m uint32) error {
	if l == noTerm || m == noTerm {
		if l != noTerm && got.listLen(l) > 0 || m != noTerm && want.listLen(m) > 0 {
			return fmt.Errorf("a list on one side only")
		}
		return nil
	}
	gd, gs := got.postingsOf(l)
	wd, ws := want.postingsOf(m)
	gds, wds := got.denseSet(l), want.denseSet(m)
	switch {
	case !slices.Equal(gd, wd):
		return fmt.Errorf("docs %v, want %v", gd, wd)
	case !slices.Equal(gs, ws):
		return fmt.Errorf("saturations %v, want %v", gs, ws)
	case len(gd) > 0 && got.maxSat[l] != want.maxSat[m]:
		return fmt.Errorf("largest saturation %v, want %v", got.maxSat[l], want.maxSat[m])
	case (gds == nil) != (wds == nil) || gds != nil && (!slices.Equal(gds.bits, wds.bits) || gds.n != wds.n):
		return fmt.Errorf("bitset differs")
	}
	return nil
}

// postingsOf returns the docs of list l and their saturations, in doc order, wherever
// they are stored.
func (ix *Index) postingsOf(l uint32) ([]uint32, []float32) {
	ds := ix.denseSet(l)
	if ds == nil {
		lo, hi := ix.off[l], ix.off[l+1]
		return slices.Clone(ix.docs[lo:hi]), slices.Clone(ix.sat[lo:hi])
	}
	var docs []uint32
	var sat []float32
	for w, full := range ds.bits {
		k := 0
		for x := full; x != 0; x &= x - 1 {
			docs = append(docs, uint32(w)<<6|uint32(bits.TrailingZeros64(x)))
			sat = append(sat, ds.word(uint32(w))[k])
			k++
		}
	}
	return docs, sat
}

// flat returns the postings of every list one after another, in list order, as one
// array of offsets, one of docs and one of saturations: the layout of the index before
// dense sets kept their postings apart, which the golden digests hash.
func (ix *Index) flat() (off, docs []uint32, sat []float32) {
	lists := len(ix.maxSat)
	off = make([]uint32, lists+1)
	for l := range lists {
		d, s := ix.postingsOf(uint32(l))
		docs, sat = append(docs, d...), append(sat, s...)
		off[l+1] = uint32(len(docs))
	}
	return off, docs, sat
}
