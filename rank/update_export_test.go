package rank

import (
	"fmt"
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
	gd, wd := got.docs[got.off[l]:got.off[l+1]], want.docs[want.off[m]:want.off[m+1]]
	gs, ws := got.sat[got.off[l]:got.off[l+1]], want.sat[want.off[m]:want.off[m+1]]
	switch {
	case !slices.Equal(gd, wd):
		return fmt.Errorf("docs %v, want %v", gd, wd)
	case !slices.Equal(gs, ws):
		return fmt.Errorf("saturations %v, want %v", gs, ws)
	case len(gd) > 0 && got.maxSat[l] != want.maxSat[m]:
		return fmt.Errorf("largest saturation %v, want %v", got.maxSat[l], want.maxSat[m])
	case !slices.Equal(got.dense[l].bits, want.dense[m].bits) || !slices.Equal(got.dense[l].cum, want.dense[m].cum) ||
		(got.dense[l].bits == nil) != (want.dense[m].bits == nil):
		return fmt.Errorf("bitset differs")
	}
	return nil
}
