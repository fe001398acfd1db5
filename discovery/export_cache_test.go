package discovery

// CacheStats reports what d's cache holds: rows digests, authorised sets, the bytes
// counted against the budget, and how many generations it has dropped.
func CacheStats(d *Discoverer) (digests, sets int, bytes, rotations int64) {
	c := &d.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur.digests) + len(c.prev.digests), len(c.cur.sets) + len(c.prev.sets),
		c.cur.bytes + c.prev.bytes, c.rotations
}

// MaxAbandonedReads is maxAbandonedReads.
const MaxAbandonedReads = maxAbandonedReads
