package rank

// deadTerms counts the terms of ix no doc holds: those whose docs an Update removed.
func (ix *Index) deadTerms() int {
	n := 0
	for t := range len(ix.terms) {
		if ix.held(uint32(t)) == 0 {
			n++
		}
	}
	return n
}

// compact returns ix without the terms no doc holds, the others renumbered, so that a
// long run of Updates keeps no more than a quarter of its terms dead. It shares the
// dense sets with ix.
func (ix *Index) compact() *Index {
	newID := make([]uint32, len(ix.terms))
	var src []uint32 // the lists of ix the lists of the result are, in order
	for t := range newID {
		newID[t] = noTerm
		if ix.held(uint32(t)) > 0 {
			newID[t] = uint32(len(src))
			src = append(src, uint32(t))
		}
	}
	live := len(src)
	terms := make(map[string]uint32, live)
	for w, t := range ix.terms {
		if newID[t] != noTerm {
			terms[w] = newID[t]
		}
	}
	var paramOnly []uint32
	if len(ix.paramOnly) > 0 {
		paramOnly = make([]uint32, live)
		for i, t := range src[:live] {
			paramOnly[i] = noTerm
			if int(t) < len(ix.paramOnly) && ix.paramOnly[t] != noTerm && ix.listLen(ix.paramOnly[t]) > 0 {
				paramOnly[i] = uint32(len(src))
				src = append(src, ix.paramOnly[t])
			}
		}
		if len(src) == live {
			paramOnly = nil
		}
	}
	nu := &Index{n: ix.n, p: ix.p, order: ix.order,
		terms: terms, paramOnly: paramOnly}
	total := 0
	for _, l := range src {
		if ix.denseOf[l] == noTerm {
			total += ix.listLen(l)
		}
	}
	nu.off = make([]uint32, len(src)+1)
	nu.docs = make([]uint32, 0, total)
	nu.sat = make([]float32, 0, total)
	nu.maxSat = make([]float32, len(src))
	nu.denseOf = make([]uint32, len(src))
	nu.dense = make([]denseSet, 0, len(ix.dense))
	for i, l := range src {
		nu.off[i] = uint32(len(nu.docs))
		nu.maxSat[i], nu.denseOf[i] = ix.maxSat[l], noTerm
		if ds := ix.denseSet(l); ds != nil {
			nu.denseOf[i] = uint32(len(nu.dense))
			nu.dense = append(nu.dense, *ds)
			continue
		}
		lo, hi := ix.off[l], ix.off[l+1]
		nu.docs = append(nu.docs, ix.docs[lo:hi]...)
		nu.sat = append(nu.sat, ix.sat[lo:hi]...)
	}
	nu.off[len(src)] = uint32(len(nu.docs))
	return nu
}
