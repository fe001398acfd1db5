package discovery

import (
	"fmt"
	"runtime"
	"testing"
	"weak"

	"github.com/deferredtools/deferredtools/grants"
)

// TestCacheKeepsEntriesInUse checks setCache's two generations: an entry looked up
// between every two inserts stays through many generations dropped (a hit in the
// previous one moves it into the current one), while an entry nobody looks up goes
// within two. Both an authorised set and a rows digest are checked.
func TestCacheKeepsEntriesInUse(t *testing.T) {
	var c setCache
	c.init(64 << 10)
	hot, cold := &authSet{scopes: "hot"}, &authSet{scopes: "cold"}
	c.putSet("hot", hot)
	c.putSet("cold", cold)
	snap := &grants.Snapshot{Revision: 1}
	dg := [32]byte{1}
	c.putDigest(addrOf(snap), snapDigest{snap: weak.Make(snap), dg: dg})
	for i := 0; c.rotations < 10; i++ {
		c.putSet(fmt.Sprintf("filler-%06d", i), &authSet{})
		if s, ok := c.set([]byte("hot")); !ok || s != hot {
			t.Fatalf("after %d rotations the set in use is gone", c.rotations)
		}
		if got, ok := c.digest(snap); !ok || got != dg {
			t.Fatalf("after %d rotations the digest in use is gone", c.rotations)
		}
	}
	if _, ok := c.set([]byte("cold")); ok {
		t.Fatal("a set unused for 10 generations is still cached")
	}
	runtime.KeepAlive(snap)
}

// TestCacheDigestAddressReused checks that a rows digest is keyed by its snapshot, not
// merely its address: once the snapshot is dead, a new snapshot the allocator places at
// the same address finds no digest (the weak pointer answers nil), so its own rows are
// digested.
func TestCacheDigestAddressReused(t *testing.T) {
	var c setCache
	c.init(1 << 20)
	addr := func() uintptr {
		old := &grants.Snapshot{Revision: 1, Rows: []grants.Row{{Principal: "*", Tool: "old", Effect: grants.Allow, Revision: 1}}}
		c.putDigest(addrOf(old), snapDigest{snap: weak.Make(old), dg: rowsDigest(old)})
		return addrOf(old)
	}()
	var keep []*grants.Snapshot // so that each try takes a fresh slot
	for range 100 {
		runtime.GC()
		for range 1000 {
			s := &grants.Snapshot{Revision: 2}
			if addrOf(s) != addr {
				keep = append(keep, s)
				continue
			}
			if dg, ok := c.digest(s); ok {
				t.Fatalf("a new snapshot at a dead one's address found its digest %x", dg[:4])
			}
			return
		}
	}
	runtime.KeepAlive(keep)
	t.Skip("the allocator never reused the dead snapshot's address")
}
