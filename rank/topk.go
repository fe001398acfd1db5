package rank

import "slices"

// appendTop appends to dst the best k of cands (all of them if k <= 0), best first,
// equal scores ordered by name, and returns the extended slice.
func (s *scratch) appendTop(ix *Index, dst []Hit, cands []uint32, k int) []Hit {
	acc := s.acc
	better := func(a, b uint32) int {
		switch {
		case acc[a] > acc[b]:
			return -1
		case acc[a] < acc[b]:
			return 1
		case ix.order[a] < ix.order[b]:
			return -1
		case ix.order[a] > ix.order[b]:
			return 1
		}
		return 0
	}
	if k > 0 && len(cands) > k {
		// Keep exactly the candidates at or above the k-th score, then sort those.
		cands = s.keep(cands, s.kth(cands, k), 0)
	}
	slices.SortFunc(cands, better)
	if k > 0 && len(cands) > k {
		cands = cands[:k]
	}
	for _, d := range cands {
		dst = append(dst, Hit{Doc: int(d), Score: float64(acc[d]) / scoreScale})
	}
	return dst
}

// atLeast reports whether at least k of docs have a score above x.
func (s *scratch) atLeast(docs []uint32, k int, x int64) bool {
	for _, d := range docs {
		if s.acc[d] > x {
			if k--; k == 0 {
				return true
			}
		}
	}
	return false
}

// kth returns the k-th largest accumulated score among docs (k <= len(docs)), keeping
// the best k scores in a min-heap: most docs cost one comparison with its root.
func (s *scratch) kth(docs []uint32, k int) int64 {
	h := s.sel[:0]
	for _, d := range docs {
		v := s.acc[d]
		if len(h) < k {
			h = append(h, v)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if h[p] <= h[i] {
					break
				}
				h[p], h[i] = h[i], h[p]
				i = p
			}
			continue
		}
		if v <= h[0] {
			continue
		}
		h[0] = v
		for i := 0; ; {
			l := 2*i + 1
			if l >= len(h) {
				break
			}
			m := l
			if r := l + 1; r < len(h) && h[r] < h[l] {
				m = r
			}
			if h[i] <= h[m] {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	s.sel = h
	return h[0]
}

// keep filters docs, in place into the candidate buffer, to those whose score plus rest
// reaches theta.
func (s *scratch) keep(docs []uint32, theta, rest int64) []uint32 {
	out := s.cands[:0]
	if len(docs) > 0 && len(s.cands) > 0 && &docs[0] == &s.cands[0] {
		out = docs[:0]
	}
	for _, d := range docs {
		if s.acc[d]+rest >= theta {
			out = append(out, d)
		}
	}
	s.cands = out
	return out
}
