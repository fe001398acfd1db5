package discovery

import (
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/deferredtools/deferredtools/grants"
)

// setCache holds what a Discoverer derives from grant snapshots: each snapshot's rows
// digest, keyed by the snapshot's address with a weak pointer to confirm it (see
// snapDigest), and each authorised set, keyed by content (catalog version, rows digest,
// principal ID and scopes; see setKeyLen). No key or value keeps a snapshot or a
// catalog alive: an address and a weak pointer do not, and a catalog is named by its
// cacheID, a number.
//
// It holds at most its budget in bytes, as setBytes and digestEntryBytes count them
// (upper estimates of the heap an entry takes, map slot included), in two generations
// of half the budget each: entries go into the current one; one that would overfill it
// makes it the previous one and drops the previous one. A hit in the previous
// generation moves the entry into the current one, so entries in use stay and an entry
// unused for a whole generation goes. Entries of a superseded snapshot or catalog
// version are unreachable by key once the version is gone, and go the same way; no
// request waits on more bookkeeping than a map insert.
type setCache struct {
	mu        sync.Mutex
	half      int64 // the byte bound of each generation; 0 caches nothing
	cur, prev cacheGen
	rotations int64 // generations dropped, for tests
}

// cacheGen is one generation of a setCache.
type cacheGen struct {
	digests map[uintptr]snapDigest // by the snapshot's address
	sets    map[string]*authSet
	bytes   int64
}

// snapDigest is the rows digest of the snapshot at an address. The address keeps
// nothing alive; snap confirms the snapshot there is the one digested: an address is
// reused only once its object is dead, and snap then answers nil. (A weak.Pointer key
// would do alone, but weak.Make costs a lock per request; Value is a load.)
type snapDigest struct {
	snap weak.Pointer[grants.Snapshot]
	dg   [32]byte
}

func newCacheGen() cacheGen {
	return cacheGen{digests: map[uintptr]snapDigest{}, sets: map[string]*authSet{}}
}

// addrOf returns the address of snap, a key that does not keep it alive.
func addrOf(snap *grants.Snapshot) uintptr { return uintptr(unsafe.Pointer(snap)) }

// What setBytes and digestEntryBytes count beyond an entry's own variable-length data:
// map slots at their worst load (half full after a doubling), the 8-byte weak handle of
// a digest key, and the authSet struct and allocation rounding of a set.
// TestCacheBounded checks them against the heap.
const (
	digestEntryBytes = 128
	setEntryBytes    = 256
)

// setBytes is what a set entry under key counts against the budget.
func setBytes(key string, s *authSet) int64 {
	return int64(setEntryBytes + len(key) + 8*len(s.bits) + len(s.contract) + len(s.scopes) + s.metaBytes())
}

func (c *setCache) init(budget int64) {
	if budget > 0 {
		c.half = budget / 2
	}
	c.cur, c.prev = newCacheGen(), newCacheGen()
}

// makeRoom readies the current generation for an entry of n bytes and reports whether
// the entry may be stored (one larger than a generation is not). c.mu is held.
func (c *setCache) makeRoom(n int64) bool {
	if n > c.half {
		return false
	}
	if c.cur.bytes+n > c.half {
		c.prev, c.cur = c.cur, newCacheGen() // new maps: a cleared map keeps its memory
		c.rotations++
	}
	c.cur.bytes += n
	return true
}

// digest returns the rows digest stored for snap. c.mu is held.
func (c *setCache) digest(snap *grants.Snapshot) ([32]byte, bool) {
	addr := addrOf(snap)
	if e, ok := c.cur.digests[addr]; ok && e.snap.Value() == snap {
		return e.dg, true
	}
	e, ok := c.prev.digests[addr]
	if !ok || e.snap.Value() != snap {
		return [32]byte{}, false
	}
	delete(c.prev.digests, addr)
	c.prev.bytes -= digestEntryBytes
	c.putDigest(addr, e)
	return e.dg, true
}

// putDigest stores a rows digest under the snapshot's address, replacing the entry of
// a dead snapshot that had it. c.mu is held.
func (c *setCache) putDigest(addr uintptr, e snapDigest) {
	if _, ok := c.cur.digests[addr]; ok || c.makeRoom(digestEntryBytes) {
		c.cur.digests[addr] = e
	}
}

// set returns the authorised set stored under key. c.mu is held.
func (c *setCache) set(key []byte) (*authSet, bool) {
	if s, ok := c.cur.sets[string(key)]; ok { // the conversion does not allocate in a lookup
		return s, true
	}
	s, ok := c.prev.sets[string(key)]
	if ok {
		k := string(key)
		delete(c.prev.sets, k)
		c.prev.bytes -= setBytes(k, s)
		c.putSet(k, s)
	}
	return s, ok
}

// putSet stores an authorised set under key. c.mu is held.
func (c *setCache) putSet(key string, s *authSet) {
	if _, ok := c.cur.sets[key]; !ok && c.makeRoom(setBytes(key, s)) {
		c.cur.sets[key] = s
	}
}

// catalogIDs numbers catalog versions for cache keys; see Catalog.cacheKey.
var catalogIDs atomic.Uint64

// cacheKey returns the number naming c in cache keys, unique in the process, assigned
// on first use. Keys hold the number, never the pointer, so no cache keeps c alive.
func (c *Catalog) cacheKey() uint64 {
	if id := c.cacheID.Load(); id != 0 {
		return id
	}
	c.cacheID.CompareAndSwap(0, catalogIDs.Add(1))
	return c.cacheID.Load()
}

// setKeyLen is the length of the fixed part of an authorised set's key: the catalog's
// cacheKey (8 bytes) and the rows digest (32 bytes). The principal's ID and scope set
// follow (appendPrincipalKey), so no two keys of different content are equal.
const setKeyLen = 8 + 32

// scopesKey encodes scopes as a set: sorted, without repeats, each length-prefixed, so
// no two different sets share a key whatever bytes a host puts in a scope (a NUL too).
func scopesKey(scopes []string) string { return string(appendScopesKey(nil, scopes)) }

// appendScopesKey appends scopesKey(scopes) to dst, without allocating when the scopes
// come sorted or number at most 16.
func appendScopesKey(dst []byte, scopes []string) []byte {
	if !slices.IsSorted(scopes) {
		var buf [16]string
		if len(scopes) <= len(buf) {
			sorted := buf[:len(scopes)]
			copy(sorted, scopes)
			slices.Sort(sorted)
			scopes = sorted
		} else {
			scopes = slices.Sorted(slices.Values(scopes))
		}
	}
	for i, s := range scopes {
		if i > 0 && s == scopes[i-1] {
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	return dst
}

// appendPrincipalKey appends the principal's ID and scope set, unambiguously.
func appendPrincipalKey(dst []byte, p grants.Principal) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(p.ID)))
	dst = append(dst, p.ID...)
	return appendScopesKey(dst, p.Scopes)
}
