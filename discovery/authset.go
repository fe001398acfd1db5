package discovery

import (
	"context"
	"encoding/binary"
	"sync"
	"weak"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// authSet is the authorised set of one principal over one catalog version, with what is
// derived from it once: the contract digest and the digest of the observed rows.
type authSet struct {
	bits     rank.Set
	count    int
	contract string   // SPEC CONTRACT-2
	rowsKey  [32]byte // observed rows with their revisions (SPEC CURSOR-2)
	scopes   string
	// Meta tools (metatool.go): the actions served, by action number, and the
	// narrowed definition of each meta tool served with fewer than all its actions.
	actions rank.Set
	served  map[int]*tool
}

// access reads the principal's grants and returns its authorised set over cat, with the
// snapshot and revision it came from: the first steps of every request.
func (d *Discoverer) access(ctx context.Context, p grants.Principal, cat *Catalog) (*grants.Snapshot, int64, *authSet, error) {
	snap, rev, err := d.readGrants(ctx, p)
	if err != nil {
		return nil, 0, nil, err
	}
	set, err := d.authorized(snap, p, cat)
	if err != nil {
		return nil, 0, nil, err
	}
	return snap, rev, set, nil
}

// authorized returns the principal's authorised set over cat for snap: GRANT-2 decisions
// narrowed by Visibility. It is computed once per content of (catalog version, rows,
// principal ID and scopes) while d.cache holds it.
func (d *Discoverer) authorized(snap *grants.Snapshot, p grants.Principal, cat *Catalog) (*authSet, error) {
	c := &d.cache
	if c.half == 0 {
		return d.resolve(snap, p, cat, rowsDigest(snap))
	}
	var kb [256]byte
	key := binary.BigEndian.AppendUint64(kb[:0], cat.cacheKey())
	key = appendPrincipalKey(key[:setKeyLen], p)
	c.mu.Lock()
	dg, known := c.digest(snap)
	if known {
		copy(key[8:setKeyLen], dg[:])
		if s, ok := c.set(key); ok {
			c.mu.Unlock()
			return s, nil
		}
	}
	c.mu.Unlock()
	if !known {
		dg = rowsDigest(snap)
		copy(key[8:setKeyLen], dg[:])
		e := snapDigest{snap: weak.Make(snap), dg: dg}
		c.mu.Lock()
		c.putDigest(addrOf(snap), e)
		s, ok := c.set(key) // the same rows read before, as another snapshot
		c.mu.Unlock()
		if ok {
			return s, nil
		}
	}
	s, err := d.resolve(snap, p, cat, dg)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.putSet(string(key), s)
	c.mu.Unlock()
	return s, nil
}

// resolve computes the principal's authorised set over cat from snap, whose rows digest
// is rows. Visibility is checked for granted tools only, so nothing is computed per
// catalog version.
func (d *Discoverer) resolve(snap *grants.Snapshot, p grants.Principal, cat *Catalog, rows [32]byte) (*authSet, error) {
	dec, err := grants.ResolveIndex(snap, p, cat.grantNames(), len(cat.tools)+len(cat.actionTool))
	if err != nil {
		return nil, grantsError(err)
	}
	v := d.opts.Visibility
	s := &authSet{bits: rank.NewSet(cat.Len()), scopes: scopesKey(p.Scopes), rowsKey: rows}
	sc := resolvePool.Get().(*resolveScratch)
	defer resolvePool.Put(sc)
	sc.granted = dec.AppendGrantedIndex(sc.granted[:0]) // in catalog order
	if cat.metas != nil {
		sc.granted = d.metaGranted(cat, sc.granted, s) // decided per action
	}
	digests := sc.digests[:0]
	for _, i := range sc.granted {
		if t := s.tool(cat, i); d.visible(v, t) {
			s.bits.Add(i)
			digests = append(digests, t.digest)
		}
	}
	sc.digests = digests
	s.count = len(digests)
	s.contract = schemaguard.ContractDigest(digests)
	return s, nil
}

// resolveScratch is the working memory of one resolve call: at most MaxRows tools are
// granted, so it stays below 160 KiB.
type resolveScratch struct {
	granted []int
	digests [][32]byte
}

var resolvePool = sync.Pool{New: func() any { return new(resolveScratch) }}

func (d *Discoverer) visible(v Visibility, t *tool) bool {
	if v.ReadOnly && !t.readOnly {
		return false
	}
	if d.exclude[t.name] {
		return false
	}
	if len(d.toolsets) > 0 && !d.toolsets[t.toolset] {
		return false
	}
	return true
}
