package sqlstore

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"unsafe"

	"github.com/deferredtools/deferredtools/grants"
)

// DefaultCacheBytes is the snapshot cache bound of a Store whose Options.CacheBytes is
// zero: about 50 principals at grants.MaxRows rows each, or thousands with a few rows.
const DefaultCacheBytes = 32 << 20

// snapshotCache holds the last Snapshot read for each principal, least recently used
// first out, within max bytes as snapshotSize estimates them. It holds only Snapshots of
// successful reads (full or delta); each is valid while the control revision equals its
// Revision.
// It is safe for concurrent use.
type snapshotCache struct {
	mu    sync.Mutex
	max   int64 // <= 0: holds nothing
	bytes int64
	lru   list.List // of *cacheEntry, most recently used at the front
	byKey map[string]*list.Element
}

// A cacheEntry is one principal's cached Snapshot, the triggers' mark of the read that
// answered it (see markQuery) and its estimated size.
type cacheEntry struct {
	principal string
	snap      *grants.Snapshot
	schema    int64
	size      int64
}

func newSnapshotCache(max int64) *snapshotCache {
	return &snapshotCache{max: max, byKey: make(map[string]*list.Element)}
}

// get returns principal's cached Snapshot and the triggers' mark it was read at, or nil.
func (c *snapshotCache) get(principal string) (*grants.Snapshot, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[principal]
	if !ok {
		return nil, 0
	}
	c.lru.MoveToFront(e)
	ce := e.Value.(*cacheEntry)
	return ce.snap, ce.schema
}

// put records snap, read at the triggers' mark schema, as principal's Snapshot
// and answers the Snapshot to return: the cached one, now at schema, when it holds the
// same revision and rows (so callers may key their own caches by the pointer), else
// snap. A Snapshot older than the cached one does not replace it; one larger than the
// whole bound is not kept.
func (c *snapshotCache) put(principal string, snap *grants.Snapshot, schema int64) *grants.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[principal]; ok {
		prev := e.Value.(*cacheEntry)
		if sameSnapshot(prev.snap, snap) {
			c.lru.MoveToFront(e)
			prev.schema = schema
			return prev.snap
		}
		if prev.snap.Revision > snap.Revision {
			return snap
		}
		c.remove(e)
	}
	size := snapshotSize(principal, snap)
	if size > c.max {
		return snap
	}
	c.byKey[principal] = c.lru.PushFront(&cacheEntry{principal: principal, snap: snap, schema: schema, size: size})
	c.bytes += size
	for c.bytes > c.max {
		c.remove(c.lru.Back())
	}
	return snap
}

func (c *snapshotCache) remove(e *list.Element) {
	ce := c.lru.Remove(e).(*cacheEntry)
	delete(c.byKey, ce.principal)
	c.bytes -= ce.size
}

// snapshotSize estimates the bytes a cached Snapshot keeps alive: the entry, the row
// array and each row's tool name, scopes text and scope headers. Principal IDs and
// effects of rows are shared strings (see decodeRow) and counted once.
func snapshotSize(principal string, snap *grants.Snapshot) int64 {
	const entry = 256 // the entry, its list element, map slot and Snapshot header
	n := int64(entry + 2*len(principal) + cap(snap.Rows)*int(unsafe.Sizeof(grants.Row{})))
	for i := range snap.Rows {
		r := &snap.Rows[i]
		n += int64(len(r.Tool) + cap(r.Scopes)*int(unsafe.Sizeof("")))
		for _, s := range r.Scopes {
			n += int64(len(s)) + 1
		}
	}
	return n
}

// countsWrites finds out, after a successful full read, whether the database records
// migration 0020, whose triggers count every write exactly once: only then may a Store
// answer from its cache without reading the rows (it still answers an equal cached
// Snapshot's pointer); and 0021 and 0022, whose tombstones let it bring a cached
// Snapshot up to date from what changed (readDelta). It asks once per Store; a database migrated
// while the Store runs is used so from the next Store on. A failed look-up leaves the
// answer unknown, to ask again after the next full read.
func (s *Store) countsWrites(ctx context.Context) {
	if s.counted.Load() != countedUnknown {
		return
	}
	if s.cache.max <= 0 {
		s.counted.Store(countedNo)
		return
	}
	var counted, deleted int
	q := fmt.Sprintf("SELECT count(CASE WHEN version = %d THEN 1 END), count(CASE WHEN version IN (%d, %d) THEN 1 END) FROM sqlstore_migrations",
		versionCounted, versionDeleted, versionReplaced)
	if err := s.db.QueryRowContext(ctx, q).Scan(&counted, &deleted); err != nil {
		return
	}
	switch {
	case counted == 1 && deleted == 2:
		s.counted.Store(countedDelta)
	case counted == 1:
		s.counted.Store(countedYes)
	default:
		s.counted.Store(countedNo)
	}
}
