package discovery

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
	"sync"

	"github.com/deferredtools/deferredtools/grants"
)

// rowsDigest digests the observed rows with their revisions, independent of the order
// the reader returned them in. It is exact: two snapshots share a digest only when they
// hold the same rows (the same multiset), so a snapshot GRANT-5 refuses (a scope twice
// in a row, say) never shares one with a snapshot it accepts.
//
// It is SHA-256 over the rows' self-delimiting encodings (appendRowKey) in a canonical
// order: by a seeded 64-bit hash of the encoding, ties broken by the encoding's bytes.
// Sorting fixed-size hashes rather than the rows' strings keeps the first request after
// a grant change cheap; the order only has to be the same for the same rows in this
// process (digests are compared only here, and the cursors that bind one are
// process-bound too), which a process-wide seed gives.
func rowsDigest(snap *grants.Snapshot) [32]byte {
	sc := rowsScratchPool.Get().(*rowsScratch)
	defer rowsScratchPool.Put(sc)
	n := len(snap.Rows)
	// Each key is a row's hash in its high bits and its position in its low idxBits
	// bits, so sorting the keys sorts the positions by hash.
	idxBits := uint(bits.Len(uint(n)))
	enc, ends, keys := sc.enc[:0], sc.ends[:0], sc.keys[:0]
	for i := range snap.Rows {
		start := len(enc)
		enc = appendRowKey(enc, &snap.Rows[i], &sc.scopes)
		ends = append(ends, len(enc))
		h := rowsHash(enc[start:])
		keys = append(keys, h>>idxBits<<idxBits|uint64(i))
	}
	sorted := sortKeys(sc.sorted[:0], keys, &sc.count)
	row := func(k uint64) []byte {
		i := int(k & (1<<idxBits - 1))
		start := 0
		if i > 0 {
			start = ends[i-1]
		}
		return enc[start:ends[i]]
	}
	// Keys whose hashes agree (in the bits kept) are ordered by position: reorder each
	// such run by the rows' bytes so the order depends on the rows alone.
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j]>>idxBits == sorted[i]>>idxBits {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(sorted[i:j], func(a, b uint64) int { return bytes.Compare(row(a), row(b)) })
		}
		i = j
	}
	out := sc.out[:0]
	for _, k := range sorted {
		out = append(out, row(k)...)
	}
	sum := sha256.Sum256(out)
	if n <= grants.MaxRows && cap(out) <= maxRowsScratch {
		sc.enc, sc.ends, sc.keys, sc.sorted, sc.out = enc[:0], ends[:0], keys[:0], sorted[:0], out[:0]
	} else {
		*sc = rowsScratch{}
	}
	return sum
}

// sortKeys appends keys, uniformly distributed hashes, to dst in increasing order: a
// counting sort into about one bucket per key by their top bits, then each bucket by
// a comparison sort (most hold one key or two). keys is left as it was; count is
// scratch space.
func sortKeys(dst, keys []uint64, count *[]int) []uint64 {
	bucketBits := uint(bits.Len(uint(len(keys))))
	if len(keys) < 2 || bucketBits > 16 {
		dst = append(dst, keys...)
		slices.Sort(dst)
		return dst
	}
	shift := 64 - bucketBits
	c := slices.Grow((*count)[:0], 1<<bucketBits+1)[:1<<bucketBits+1]
	clear(c)
	for _, k := range keys {
		c[k>>shift+1]++
	}
	for b := 1; b < len(c); b++ {
		c[b] += c[b-1]
	}
	out := slices.Grow(dst, len(keys))[:len(keys)]
	for _, k := range keys {
		b := k >> shift
		out[c[b]] = k
		c[b]++
	}
	// c[b] is now where bucket b ends, which is where bucket b+1 starts.
	start := 0
	for b := range 1 << bucketBits {
		if end := c[b]; end-start > 1 {
			slices.Sort(out[start:end])
		}
		start = c[b]
	}
	*count = c
	return out
}

// appendRowKey appends r's encoding: its principal, tool and effect length-prefixed,
// its scopes sorted (repeats kept: the reader's order is no change) and counted, then
// its revision. No two different rows share an encoding, and no encoding is a prefix of
// another's, so a run of them names its rows exactly. sorted is scratch space.
func appendRowKey(b []byte, r *grants.Row, sorted *[]string) []byte {
	b = appendString(b, r.Principal)
	b = appendString(b, r.Tool)
	b = appendString(b, string(r.Effect))
	b = binary.AppendUvarint(b, uint64(len(r.Scopes)))
	scopes := r.Scopes
	if len(scopes) > 1 && !slices.IsSorted(scopes) {
		*sorted = append((*sorted)[:0], scopes...)
		slices.Sort(*sorted)
		scopes = *sorted
	}
	for _, s := range scopes {
		b = appendString(b, s)
	}
	return binary.AppendUvarint(b, uint64(r.Revision))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// rowsHash is the hash that orders rows in rowsDigest, seeded once per process (a
// variable so that tests can make rows collide).
var rowsHash = func(b []byte) uint64 { return maphash.Bytes(rowsSeed, b) }

var rowsSeed = maphash.MakeSeed()

// rowsScratch is the working memory of one rowsDigest call.
type rowsScratch struct {
	enc, out []byte   // the rows' encodings, in the reader's order and then sorted
	ends     []int    // where each row's encoding ends in enc
	keys     []uint64 // one per row: its hash and position
	sorted   []uint64 // keys, sorted
	count    []int    // sortKeys's buckets
	scopes   []string
}

// maxRowsScratch bounds the encoding buffers a pooled rowsScratch keeps: a snapshot of
// MaxRows rows with short names fits. The buffers of a larger snapshot, or of one with
// more than MaxRows rows (which Resolve refuses), go to the garbage collector.
const maxRowsScratch = 1 << 20

var rowsScratchPool = sync.Pool{New: func() any { return new(rowsScratch) }}
