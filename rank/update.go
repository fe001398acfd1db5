package rank

import (
	"cmp"
	"maps"
	"math/bits"
	"slices"
	"strings"
)

// Update returns the index NewIndex(docs) would build, reusing what ix computed for the
// docs it shares with docs: from[i] >= 0 says docs[i] is doc from[i] of ix, the same in
// all four fields, and only its Name is read; from[i] < 0 says docs[i] is analysed. A
// doc of ix may be named by one from[i] at most. ix is not changed: the result shares
// with it what neither ever writes. The result ranks exactly as NewIndex(docs) does
// (TestUpdateRanksAsNewIndex, which compares the two list by list). Its cost: the analysis
// of the new docs; for a common term's list (one with a bitset), when kept docs keep
// their numbers, nothing if it did not change, else a copy of its bitset and slab
// positions and of the postings of the 64-doc words that changed, the others shared
// with ix (every few versions the list is written whole again, so that what it shares
// holds at most half again its postings); when numbers shift, its bitset copied run by
// run of kept docs and its postings in bulk; for the other lists, a copy of their
// postings, together when they did not change, in bulk run by run of kept docs when
// they keep their order (each run's numbers shifted alike), else renumbered one by one
// and sorted; and a copy of the term dictionary when the new docs bring new terms.
// Terms whose docs are all gone stay in the dictionary, held by no doc, until they are a
// quarter of it; then they are dropped (one more pass over the lists).
//
// Update panics when len(from) != len(docs), or a from[i] is out of range or repeated.
// Update of the zero Index is NewIndex(docs).
func (ix *Index) Update(docs []Doc, from []int) *Index {
	if len(from) != len(docs) {
		panic("rank: Update: len(from) != len(docs)")
	}
	nu := &Index{n: len(docs), p: ix.p}
	u := &updater{ix: ix, nu: nu}
	u.remapDocs(from)
	if ix.p == (params{}) { // the zero Index: empty, so every doc is new (remapDocs checked)
		return NewIndex(docs)
	}
	nu.order = u.nameOrder(docs, from)
	u.analyse(docs, from)
	u.listSources()
	u.bucketNews()
	u.merge()
	if dead := nu.deadTerms(); dead > 0 && dead*4 >= len(nu.terms) {
		nu = nu.compact()
	}
	nu.initPool()
	return nu
}

// updater is the state of one Update, built phase by phase: which old doc becomes
// which new one, the new docs' postings, the lists to write and the new postings of each.
type updater struct {
	ix, nu *Index

	remap    []uint32  // remap[d] is the new doc of ix's doc d, noTerm when d is gone
	monotone bool      // kept docs keep their relative order: lists need no sorting
	runs     []run     // when monotone, the kept docs of ix as runs renumbered alike
	inPlace  bool      // every kept doc keeps its number, and nu has ix's number of docs
	goneDocs []uint32  // when inPlace, the docs of ix gone, ascending
	touched  []uint32  // the words of the dense set updateDense writes
	bitsFree []uint64  // what is left of the chunk of bitsets (fromChunk)
	atFree   []uint32  // what is left of the chunk of slab positions (fromChunk)
	news     []added   // the new docs' postings, in doc order
	src      []uint32  // src[l] is the list of ix whose kept postings list l starts from, or noTerm
	bucket   []posting // the new postings by list, in doc order within each
	lists    []uint32  // lists[k] is the list of bucket[k]
}

// A run is docs lo to hi-1 of ix, all kept, each renumbered d+shift.
type run struct {
	lo, hi uint32
	shift  int64
}

// added is one posting of a new doc: its term and whether the doc holds the term in
// its parameters alone.
type added struct {
	id   uint32
	only bool
	e    posting
}

// remapDocs numbers ix's docs in the new index from from (see Update).
func (u *updater) remapDocs(from []int) {
	u.remap = make([]uint32, u.ix.n)
	for d := range u.remap {
		u.remap[d] = noTerm
	}
	for i, d := range from {
		if d < 0 {
			continue
		}
		if d >= u.ix.n || u.remap[d] != noTerm {
			panic("rank: Update: from names a doc out of range or twice")
		}
		u.remap[d] = uint32(i)
	}
	u.monotone = true
	last := -1
	for _, i := range u.remap {
		if i != noTerm {
			u.monotone = u.monotone && int(i) > last
			last = int(i)
		}
	}
	if !u.monotone {
		return
	}
	u.inPlace = u.nu.n == u.ix.n
	for d, i := range u.remap {
		switch {
		case i == noTerm:
		case len(u.runs) > 0 && u.runs[len(u.runs)-1].hi == uint32(d) && u.remap[d-1]+1 == i:
			u.runs[len(u.runs)-1].hi++
		default:
			shift := int64(i) - int64(d)
			u.runs = append(u.runs, run{uint32(d), uint32(d) + 1, shift})
			u.inPlace = u.inPlace && shift == 0
		}
	}
	if u.inPlace {
		for d, i := range u.remap {
			if i == noTerm {
				u.goneDocs = append(u.goneDocs, uint32(d))
			}
		}
	}
}

// nameOrder returns nameOrder(docs): when kept docs keep their order, from ix's, the
// kept docs in its name order with the new docs, sorted, merged in by binary search.
func (u *updater) nameOrder(docs []Doc, from []int) []uint32 {
	if !u.monotone {
		return nameOrder(docs)
	}
	ix := u.ix
	byName := make([]uint32, len(ix.order)) // ix's docs in name order
	for d, pos := range ix.order {
		byName[pos] = uint32(d)
	}
	kept := byName[:0] // renumbered, in place
	for _, d := range byName {
		if nd := u.remap[d]; nd != noTerm {
			kept = append(kept, nd)
		}
	}
	var fresh []uint32
	for i, d := range from {
		if d < 0 {
			fresh = append(fresh, uint32(i))
		}
	}
	// Ties in name go by number, as nameOrder's stable sort leaves them.
	byNameThenNumber := func(a, b uint32) int {
		return cmp.Or(strings.Compare(docs[a].Name, docs[b].Name), cmp.Compare(a, b))
	}
	slices.SortFunc(fresh, byNameThenNumber)
	order := make([]uint32, len(docs))
	pos, lo := uint32(0), 0
	place := func(ds []uint32) {
		for _, d := range ds {
			order[d] = pos
			pos++
		}
	}
	for _, f := range fresh {
		k, _ := slices.BinarySearchFunc(kept[lo:], f, byNameThenNumber)
		place(kept[lo : lo+k])
		order[f] = pos
		pos++
		lo += k
	}
	place(kept[lo:])
	return order
}

// analyse analyses the new docs (from[i] < 0) into u.news and gives nu its term
// dictionary: ix's, shared while no term is new.
func (u *updater) analyse(docs []Doc, from []int) {
	p := u.ix.p
	v := newInverter(p, u.ix.terms, make(map[string]uint32))
	emit := func(id uint32, e posting, only bool) { u.news = append(u.news, added{id, only && !p.Joined, e}) }
	for i, d := range docs {
		if from[i] < 0 {
			v.doc(i, d, emit)
		}
	}
	u.nu.terms = u.ix.terms
	if len(v.terms) > 0 {
		u.nu.terms = maps.Clone(u.ix.terms)
		maps.Copy(u.nu.terms, v.terms)
	}
}

// listSources decides nu's lists: one per term (ix's ids, then the new terms'), then
// one per term with docs holding it in their parameters alone, ix's first.
func (u *updater) listSources() {
	ix := u.ix
	terms := len(u.nu.terms) // ix's terms, then the new ones: ids 0 to terms-1
	src := make([]uint32, terms, terms+len(ix.off))
	for t := range src {
		src[t] = noTerm
		if t < len(ix.terms) {
			src[t] = uint32(t)
		}
	}
	var paramOnly []uint32
	if len(ix.paramOnly) > 0 || slices.ContainsFunc(u.news, func(a added) bool { return a.only }) {
		paramOnly = make([]uint32, terms)
		for t := range paramOnly {
			paramOnly[t] = noTerm
			if t < len(ix.paramOnly) && ix.paramOnly[t] != noTerm {
				paramOnly[t] = uint32(len(src))
				src = append(src, ix.paramOnly[t])
			}
		}
		for _, a := range u.news {
			if a.only && paramOnly[a.id] == noTerm {
				paramOnly[a.id] = uint32(len(src))
				src = append(src, noTerm)
			}
		}
	}
	u.nu.paramOnly = paramOnly
	u.src = src
}

// listOf answers the list of nu a new posting joins.
func (u *updater) listOf(a added) uint32 {
	if a.only {
		return u.nu.paramOnly[a.id]
	}
	return a.id
}

// bucketNews orders the new postings by list, keeping doc order within each: a sort
// of the new postings alone, not a pass over every list.
func (u *updater) bucketNews() {
	slices.SortStableFunc(u.news, func(a, b added) int { return cmp.Compare(u.listOf(a), u.listOf(b)) })
	u.bucket = make([]posting, len(u.news))
	u.lists = make([]uint32, len(u.news))
	for k, a := range u.news {
		u.bucket[k], u.lists[k] = a.e, u.listOf(a)
	}
}

// merge writes each list of nu: its kept postings from ix, renumbered, merged with its
// new ones; a list with a bitset as a dense set (sharing what it can of ix's when kept
// docs keep their numbers: updateDense), the others in the flat arrays, sized for ix's
// flat postings and the new ones (grown when a list loses its bitset, trimmed if many
// went).
func (u *updater) merge() {
	ix, nu := u.ix, u.nu
	words := (nu.n + 63) / 64
	room := len(ix.docs) + len(u.news)
	nu.off = make([]uint32, len(u.src)+1)
	nu.docs = make([]uint32, room)
	nu.sat = make([]float32, room)
	nu.maxSat = make([]float32, len(u.src))
	nu.denseOf = make([]uint32, len(u.src))
	nu.dense = make([]denseSet, 0, len(ix.dense))
	at, k := 0, 0 // the next posting of nu, the next new posting
	// Lists of the flat arrays that keep all their postings as they are, when kept docs
	// keep their numbers, are copied together: postings lo to hi of ix to posting to.
	var lo, hi, to uint32
	flush := func() {
		copy(nu.docs[to:], ix.docs[lo:hi])
		copy(nu.sat[to:], ix.sat[lo:hi])
		lo, hi = 0, 0
	}
	for l, s := range u.src {
		nu.off[l] = uint32(at)
		e := k
		for e < len(u.lists) && u.lists[e] == uint32(l) {
			e++
		}
		if e == k && u.inPlace && s != noTerm && ix.denseOf[s] == noTerm && u.keepsAll(s) {
			if lo == hi || ix.off[s] != hi {
				flush()
				lo, hi, to = ix.off[s], ix.off[s], uint32(at)
			}
			hi = ix.off[s+1]
			u.reserve(at, ix.listLen(s)) // a list of ix may have left its dense set
			at += ix.listLen(s)
			nu.maxSat[l], nu.denseOf[l] = ix.maxSat[s], noTerm
			continue
		}
		flush()
		at = u.mergeList(s, l, at, u.bucket[k:e], words)
		k = e
	}
	flush()
	nu.off[len(u.src)] = uint32(at)
	room = len(nu.docs)
	nu.docs, nu.sat = nu.docs[:at:at], nu.sat[:at:at]
	if at < room-room/8 {
		nu.docs, nu.sat = slices.Clone(nu.docs), slices.Clone(nu.sat)
	}
}

// keepsAll reports whether no doc of list s of ix, of the flat arrays, is gone.
func (u *updater) keepsAll(s uint32) bool {
	for _, d := range u.ix.docs[u.ix.off[s]:u.ix.off[s+1]] {
		if u.remap[d] == noTerm {
			return false
		}
	}
	return true
}

// reserve makes room in nu's flat arrays for k postings from posting at.
func (u *updater) reserve(at, k int) {
	nu := u.nu
	if need := at + k; need > len(nu.docs) {
		n := max(need, 2*len(nu.docs))
		nu.docs = slices.Grow(nu.docs[:at], n-at)[:n]
		nu.sat = slices.Grow(nu.sat[:at], n-at)[:n]
	}
}

// runsMin is how many postings per run of kept docs (updater.runs) a list needs, when it
// has no bitset, to be copied run by run: below, binary searches would cost more than
// renumbering each posting.
const runsMin = 32

// mergeList writes list l of nu, from list s of ix (none when s is noTerm) and fresh:
// in place of s's dense set when updateDense can, else in the flat arrays from posting
// at (a list with a bitset is then moved to a dense set of its own); it returns the next
// posting of the flat arrays. When kept docs keep their order, a long list of the flat
// arrays is copied run by run (copyRuns), a short one renumbered posting by posting.
func (u *updater) mergeList(s uint32, l, at int, fresh []posting, words int) int {
	ix, nu := u.ix, u.nu
	nu.denseOf[l] = noTerm
	isDense := s != noTerm && ix.denseOf[s] != noTerm
	if isDense && u.monotone {
		update := u.shiftDense
		if u.inPlace {
			update = u.updateDense
		}
		if ds, m, ok := update(s, fresh, words); ok {
			nu.denseOf[l] = uint32(len(nu.dense))
			nu.dense = append(nu.dense, ds)
			nu.maxSat[l] = m
			return at
		}
	}
	first := at
	lostMax := false // a posting gone had the list's largest saturation
	if s != noTerm {
		u.reserve(at, ix.listLen(s)+len(fresh))
	} else {
		u.reserve(at, len(fresh))
	}
	switch {
	case s == noTerm:
		at = u.writeFresh(at, fresh)
	case isDense:
		at, lostMax = u.renumberDense(s, at, fresh)
	case u.monotone && ix.listLen(s) >= runsMin*len(u.runs):
		at, lostMax = u.copyRuns(s, at, fresh)
	default:
		at, lostMax = u.renumber(s, at, fresh)
	}
	docs, sat := nu.docs[first:at], nu.sat[first:at]
	if !u.monotone {
		sortPostings(docs, sat)
	}
	m := float32(0)
	if s == noTerm || lostMax {
		for _, x := range sat {
			m = max(m, x)
		}
	} else {
		m = ix.maxSat[s]
		for _, e := range fresh {
			m = max(m, e.sat)
		}
	}
	nu.maxSat[l] = m
	if hasSummary(len(docs), words) {
		nu.denseOf[l] = uint32(len(nu.dense))
		nu.dense = append(nu.dense, newDenseSet(docs, sat, words))
		return first
	}
	return at
}

// writeFresh writes fresh from posting at of nu and returns the next posting.
func (u *updater) writeFresh(at int, fresh []posting) int {
	for _, e := range fresh {
		u.nu.docs[at], u.nu.sat[at] = e.doc, e.sat
		at++
	}
	return at
}

// renumber writes list s of ix, renumbered posting by posting, merged with fresh, from
// posting at of nu; it returns the next posting and whether a posting gone had the
// list's largest saturation.
func (u *updater) renumber(s uint32, at int, fresh []posting) (int, bool) {
	ix, nu := u.ix, u.nu
	lo, hi := ix.off[s], ix.off[s+1]
	sat := ix.sat[lo:hi]
	lostMax := false
	for k, d := range ix.docs[lo:hi] {
		nd := u.remap[d]
		if nd == noTerm {
			lostMax = lostMax || sat[k] == ix.maxSat[s]
			continue
		}
		for len(fresh) > 0 && fresh[0].doc < nd {
			nu.docs[at], nu.sat[at] = fresh[0].doc, fresh[0].sat
			at++
			fresh = fresh[1:]
		}
		nu.docs[at], nu.sat[at] = nd, sat[k]
		at++
	}
	return u.writeFresh(at, fresh), lostMax
}

// renumberDense is renumber for a list of ix with a dense set.
func (u *updater) renumberDense(s uint32, at int, fresh []posting) (int, bool) {
	ix, nu := u.ix, u.nu
	ds := ix.denseSet(s)
	lostMax := false
	for w, full := range ds.bits {
		if full == 0 {
			continue
		}
		sat := ds.word(uint32(w))
		k := 0
		for x := full; x != 0; x &= x - 1 {
			d := uint32(w)<<6 | uint32(bits.TrailingZeros64(x))
			e := sat[k]
			k++
			nd := u.remap[d]
			if nd == noTerm {
				lostMax = lostMax || e == ix.maxSat[s]
				continue
			}
			for len(fresh) > 0 && fresh[0].doc < nd {
				nu.docs[at], nu.sat[at] = fresh[0].doc, fresh[0].sat
				at++
				fresh = fresh[1:]
			}
			nu.docs[at], nu.sat[at] = nd, e
			at++
		}
	}
	return u.writeFresh(at, fresh), lostMax
}

// copyRuns writes list s of ix, merged with fresh, from posting at of nu, copying the
// postings of each run of kept docs in bulk, shifted by the run's shift; it returns the
// next posting and whether a posting gone had the list's largest saturation. Kept docs
// must keep their order.
func (u *updater) copyRuns(s uint32, at int, fresh []posting) (int, bool) {
	ix, nu := u.ix, u.nu
	pos, hi := ix.off[s], ix.off[s+1]
	lostMax := false
	dropTo := func(end uint32) { // the postings from pos to end are of docs gone
		for k := pos; k < end; k++ {
			lostMax = lostMax || ix.sat[k] == ix.maxSat[s]
		}
		pos = end
	}
	for _, r := range u.runs {
		start := ix.firstAtLeast(s, pos, r.lo)
		if start == hi {
			break
		}
		dropTo(start)
		end := ix.firstAtLeast(s, start, r.hi)
		if start == end {
			continue
		}
		first := uint32(int64(ix.docs[start]) + r.shift)
		for len(fresh) > 0 && fresh[0].doc < first {
			nu.docs[at], nu.sat[at] = fresh[0].doc, fresh[0].sat
			at++
			fresh = fresh[1:]
		}
		n := int(end - start)
		out := nu.docs[at : at+n]
		if r.shift == 0 {
			copy(out, ix.docs[start:end])
		} else {
			for k, d := range ix.docs[start:end] {
				out[k] = uint32(int64(d) + r.shift)
			}
		}
		copy(nu.sat[at:at+n], ix.sat[start:end])
		at += n
		pos = end
	}
	dropTo(hi)
	return u.writeFresh(at, fresh), lostMax
}

// firstAtLeast returns the first posting of list s of ix, a list of the flat arrays,
// from posting from on, whose doc is d or after; every posting before from must be of a
// doc before d.
func (ix *Index) firstAtLeast(s, from uint32, d uint32) uint32 {
	hi := ix.off[s+1]
	if int(d) >= ix.n {
		return hi
	}
	i, _ := slices.BinarySearch(ix.docs[from:hi], d)
	return from + uint32(i)
}

// sortPostings sorts one list's postings, docs and their saturations, by doc.
func sortPostings(docs []uint32, sat []float32) {
	if slices.IsSorted(docs) {
		return
	}
	ps := make([]posting, len(docs))
	for i := range ps {
		ps[i] = posting{docs[i], sat[i]}
	}
	slices.SortFunc(ps, func(a, b posting) int { return int(a.doc) - int(b.doc) })
	for i, e := range ps {
		docs[i], sat[i] = e.doc, e.sat
	}
}
