package discovery

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
	"weak"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// DefaultMethod is the JSON-RPC method name of discovery (SPEC DISC-1).
const DefaultMethod = "multillm.tools.discover"

// Options configure a Discoverer. A nil *Options means all defaults; New copies it.
type Options struct {
	// Enabled is the switch (SPEC FLAG-1). While false nothing changes: Discover answers
	// method_not_found, ListTools serves the whole catalog, AuthorizeCall allows every
	// call, and the grant store is never read (FLAG-2). See SwitchFromEnv.
	Enabled bool
	// Catalog yields the catalog version of each request. Nil: every request that needs
	// one answers catalog_unavailable (503).
	Catalog CatalogSource
	// Grants reads grant rows. Nil: every request that needs grants answers
	// grants_unavailable (503), never an empty grant set (SPEC ERR-5, FLAG-3).
	Grants grants.Reader
	// Signer seals cursors. Nil: a fresh cursor.NewSigner() for this Discoverer.
	Signer *cursor.Signer
	// Method renames the discover method for HandleJSONRPC. Empty: DefaultMethod.
	Method string
	// RevisionSync makes the grant revision bound into cursors the store's confirmed
	// control revision: a read without one (0), or with one older than a revision this
	// Discoverer already confirmed, answers grants_unavailable (SPEC CURSOR-5). Off, the
	// Discoverer uses one random revision for its lifetime and relies on the observed
	// rows alone to invalidate cursors.
	RevisionSync bool
	// Visibility narrows every path alike (SPEC VIS-1).
	Visibility Visibility
	// CheckCall is the host's own operation check, run after the grant decision and
	// argument validation succeed (SPEC CALL-6). Its error is returned unchanged. Nil:
	// no host check.
	CheckCall func(ctx context.Context, p grants.Principal, tool string, args json.RawMessage) error
	// CacheBytes bounds, in bytes, what the Discoverer caches of each principal's
	// authorised set and of each grant snapshot's digest (see setCache). Zero means
	// DefaultCacheBytes; negative caches nothing, so every request resolves its grants.
	CacheBytes int64
	// GrantTimeout bounds a grant read whose context has no deadline: the read gets one
	// GrantTimeout away, so a frozen store answers grants_unavailable (503) instead of
	// hanging (SPEC ERR-5). A context that has a deadline keeps it. The request stops
	// waiting at the deadline even when the Reader does not return then (see
	// Discoverer.read). Zero means DefaultGrantTimeout; negative adds no deadline and
	// calls the Reader directly, so a read lasts as long as the Reader takes. Reads
	// from a *grants.Memory are called directly, without a deadline: it answers from
	// memory and never waits on I/O.
	GrantTimeout time.Duration

	now func() time.Time // test seam; nil means time.Now
}

// DefaultCacheBytes is the cache bound of a Discoverer whose Options.CacheBytes is zero.
const DefaultCacheBytes = 16 << 20

// DefaultGrantTimeout is the grant read bound of a Discoverer whose Options.GrantTimeout
// is zero.
const DefaultGrantTimeout = 2 * time.Second

// Visibility is the deployment's narrowing of the catalog (SPEC VIS-1). The zero value
// withholds nothing.
type Visibility struct {
	// Exclude withholds tools by exact name.
	Exclude []string
	// ReadOnly serves only tools whose annotations.readOnlyHint is true. It wins over
	// any other selection.
	ReadOnly bool
	// Toolsets, when not empty, serves only tools whose toolset (CatalogOptions.Toolset)
	// is listed.
	Toolsets []string
}

// A Discoverer serves discovery, narrowed tool lists and call authorisation for the
// principals a host authenticates. It opens no socket. It is safe for concurrent use.
// It caches authorised sets by content within Options.CacheBytes (see setCache) and
// keeps no grant snapshot or catalog version alive.
type Discoverer struct {
	opts     Options
	method   string
	signer   *cursor.Signer
	now      func() time.Time
	revision int64    // the process revision when RevisionSync is off
	visKey   [32]byte // digest of Visibility, bound into cursors
	exclude  map[string]bool
	toolsets map[string]bool

	timeout time.Duration // deadline of a grant read without one; 0: none

	confirmed atomic.Int64 // highest control revision confirmed (RevisionSync)
	abandoned atomic.Int64 // grant reads abandoned at their deadline and still running

	cache setCache
}

// New returns a Discoverer. opts is copied; nil means defaults.
func New(opts *Options) *Discoverer {
	d := &Discoverer{}
	if opts != nil {
		d.opts = *opts
		d.opts.Visibility.Exclude = slices.Clone(opts.Visibility.Exclude)
		d.opts.Visibility.Toolsets = slices.Clone(opts.Visibility.Toolsets)
	}
	d.cache.init(cmp.Or(d.opts.CacheBytes, DefaultCacheBytes))
	if _, inMemory := d.opts.Grants.(*grants.Memory); !inMemory {
		d.timeout = max(cmp.Or(d.opts.GrantTimeout, DefaultGrantTimeout), 0)
	}
	d.method = cmp.Or(d.opts.Method, DefaultMethod)
	d.signer = d.opts.Signer
	if d.signer == nil {
		d.signer = cursor.NewSigner()
	}
	d.now = d.opts.now
	if d.now == nil {
		d.now = time.Now
	}
	var b [8]byte
	rand.Read(b[:])
	d.revision = int64(binary.LittleEndian.Uint64(b[:]) >> 1)
	v := d.opts.Visibility
	d.exclude = make(map[string]bool, len(v.Exclude))
	for _, n := range v.Exclude {
		d.exclude[n] = true
	}
	d.toolsets = make(map[string]bool, len(v.Toolsets))
	for _, n := range v.Toolsets {
		d.toolsets[n] = true
	}
	h := sha256.New()
	writeField(h, []byte("visibility/v1"))
	for _, n := range sortedUnique(v.Exclude) {
		writeField(h, []byte(n))
	}
	if v.ReadOnly {
		writeField(h, []byte("read-only"))
	}
	for _, n := range sortedUnique(v.Toolsets) {
		writeField(h, []byte("toolset:"+n))
	}
	h.Sum(d.visKey[:0])
	return d
}

// Enabled reports the switch.
func (d *Discoverer) Enabled() bool { return d.opts.Enabled }

// Method reports the discover method name HandleJSONRPC answers.
func (d *Discoverer) Method() string { return d.method }

func sortedUnique(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// writeField writes b length-prefixed, so that no two field lists hash alike.
func writeField(h interface{ Write([]byte) (int, error) }, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// authSet is the authorised set of one principal over one catalog version, with what is
// derived from it once: the contract digest and the digest of the observed rows.
type authSet struct {
	bits     rank.Set
	count    int
	contract string   // SPEC CONTRACT-2
	rowsKey  [32]byte // observed rows with their revisions (SPEC CURSOR-2)
	scopes   string
}

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
	return int64(setEntryBytes + len(key) + 8*len(s.bits) + len(s.contract) + len(s.scopes))
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

// readGrants reads the principal's rows and checks the revision (SPEC CURSOR-5). With
// RevisionSync on, a read answering a revision older than one this Discoverer had
// confirmed before the read began is stale; a read racing a newer confirmation is not.
func (d *Discoverer) readGrants(ctx context.Context, p grants.Principal) (*grants.Snapshot, int64, error) {
	if d.opts.Grants == nil {
		return nil, 0, newError(CodeGrantsUnavailable, grants.ErrUnavailable)
	}
	floor := d.confirmed.Load()
	snap, err := d.read(ctx, p.ID)
	if err != nil {
		return nil, 0, grantsError(err)
	}
	if snap == nil {
		return nil, 0, newError(CodeGrantsUnavailable, grants.ErrUnavailable)
	}
	if !d.opts.RevisionSync {
		return snap, d.revision, nil
	}
	rev := snap.Revision
	if rev < 1 || rev < floor {
		return nil, 0, newError(CodeGrantsUnavailable, errRevision)
	}
	for {
		seen := d.confirmed.Load()
		if rev <= seen || d.confirmed.CompareAndSwap(seen, rev) {
			return snap, rev, nil
		}
	}
}

// read reads the principal's rows under a deadline d.timeout away when ctx has none.
// Unless d.timeout is 0, the Reader runs in a goroutine of its own, which the request
// abandons when ctx ends: a driver that does not return when its context ends (SQLite
// waiting out its busy timeout on a locked database does not) cannot hold the request.
// While maxAbandonedReads reads are abandoned and still running, a read answers
// ErrUnavailable without starting another, so a frozen store holds no more goroutines.
func (d *Discoverer) read(ctx context.Context, id string) (*grants.Snapshot, error) {
	if d.timeout == 0 {
		return d.opts.Grants.ReadGrants(ctx, id)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.timeout)
		defer cancel()
	}
	if d.abandoned.Load() >= maxAbandonedReads {
		return nil, grants.ErrUnavailable
	}
	r := &pendingRead{done: make(chan struct{})}
	go func() {
		r.snap, r.err = d.opts.Grants.ReadGrants(ctx, id)
		if !r.state.CompareAndSwap(readRunning, readFinished) {
			d.abandoned.Add(-1) // the request left; nobody reads r
			return
		}
		close(r.done)
	}()
	select {
	case <-r.done:
		return r.snap, r.err
	case <-ctx.Done():
		if r.state.CompareAndSwap(readRunning, readAbandoned) {
			d.abandoned.Add(1)
			return nil, fmt.Errorf("%w: %w", grants.ErrUnavailable, ctx.Err())
		}
		<-r.done // finished as ctx ended: its answer stands
		return r.snap, r.err
	}
}

// maxAbandonedReads bounds the grant reads that requests gave up on and that still run.
const maxAbandonedReads = 64

// pendingRead is one grant read running in its own goroutine (see read).
type pendingRead struct {
	snap  *grants.Snapshot
	err   error
	state atomic.Int32  // readRunning, then readFinished or readAbandoned
	done  chan struct{} // closed once snap and err are set, unless abandoned
}

const (
	readRunning = iota
	readFinished
	readAbandoned
)

// errRevision is the cause of a missing or stale control revision.
var errRevision = &revisionError{}

type revisionError struct{}

func (*revisionError) Error() string { return "discovery: grant revision unavailable or stale" }

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
	dec, err := grants.Resolve(snap, p)
	if err != nil {
		return nil, grantsError(err)
	}
	v := d.opts.Visibility
	s := &authSet{bits: rank.NewSet(cat.Len()), scopes: scopesKey(p.Scopes), rowsKey: rows}
	for name := range dec.Granted() {
		if i, ok := cat.byName[name]; ok && d.visible(v, &cat.tools[i]) {
			s.bits.Add(i)
		}
	}
	digests := make([][32]byte, 0, s.bits.Count())
	for i := range cat.tools {
		if s.bits.Has(i) {
			digests = append(digests, cat.tools[i].digest)
		}
	}
	s.count = len(digests)
	s.contract = schemaguard.ContractDigest(digests)
	return s, nil
}

// rowsDigest digests the observed rows with their revisions, independent of the order
// the reader returned them in. It is exact: two snapshots share a digest only when they
// hold the same rows, so a snapshot GRANT-5 refuses (a scope twice in a row, say) never
// shares one with a snapshot it accepts.
func rowsDigest(snap *grants.Snapshot) [32]byte {
	order := make([]int, len(snap.Rows))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ra, rb := &snap.Rows[a], &snap.Rows[b]
		if c := strings.Compare(ra.Principal, rb.Principal); c != 0 {
			return c
		}
		return strings.Compare(ra.Tool, rb.Tool)
	})
	h := sha256.New()
	var buf []byte
	var sorted []string
	for _, i := range order {
		r := &snap.Rows[i]
		buf = appendField(buf[:0], r.Principal)
		buf = appendField(buf, r.Tool)
		buf = appendField(buf, string(r.Effect))
		// The scopes as a sorted list, repeats kept: the reader's order is no change,
		// and for valid rows (no repeats) this is scopesKey.
		sorted = append(sorted[:0], r.Scopes...)
		slices.Sort(sorted)
		n := len(buf)
		buf = binary.BigEndian.AppendUint64(buf, 0)
		for _, sc := range sorted {
			buf = binary.AppendUvarint(buf, uint64(len(sc)))
			buf = append(buf, sc...)
		}
		binary.BigEndian.PutUint64(buf[n:], uint64(len(buf)-n-8))
		buf = binary.BigEndian.AppendUint64(buf, uint64(r.Revision))
		h.Write(buf)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

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

// catalog returns the request's catalog version or catalog_unavailable.
func (d *Discoverer) catalog(ctx context.Context) (*Catalog, error) {
	if d.opts.Catalog == nil {
		return nil, newError(CodeCatalogUnavailable, nil)
	}
	c, err := d.opts.Catalog.Catalog(ctx)
	if err != nil || c == nil {
		return nil, newError(CodeCatalogUnavailable, err)
	}
	return c, nil
}

// A ListResult is the principal's authorised tool set (SPEC PAGE-5): every tool, in name
// order, unbounded by the discovery page size, with its contract digest. Tools are the
// catalog's canonical bytes, shared: do not modify them.
type ListResult struct {
	Tools          []json.RawMessage
	ContractDigest string
	// Catalog is the catalog version Tools were read from, for questions about the
	// whole catalog (a planner asks whether a tool name is taken).
	Catalog *Catalog
}

// ListTools returns the principal's authorised tools, narrowed by Visibility. While the
// switch is off it returns the whole catalog and reads no grant (SPEC FLAG-2).
func (d *Discoverer) ListTools(ctx context.Context, p grants.Principal) (*ListResult, error) {
	cat, err := d.catalog(ctx)
	if err != nil {
		return nil, err
	}
	if !d.opts.Enabled {
		r := &ListResult{Tools: make([]json.RawMessage, len(cat.tools)), ContractDigest: cat.contract, Catalog: cat}
		for i := range cat.tools {
			r.Tools[i] = cat.tools[i].canonical
		}
		return r, nil
	}
	_, _, set, err := d.access(ctx, p, cat)
	if err != nil {
		return nil, err
	}
	r := &ListResult{Tools: make([]json.RawMessage, 0, set.count), ContractDigest: set.contract, Catalog: cat}
	for i := range cat.tools {
		if set.bits.Has(i) {
			r.Tools = append(r.Tools, cat.tools[i].canonical)
		}
	}
	return r, nil
}

// A Call is one tools/call as the host received it.
type Call struct {
	Tool      string
	Arguments json.RawMessage // the JSON text of "arguments"; empty means {}
	// ContractPin, when not empty, is the contract digest the client expects; a
	// different one answers contract_changed (SPEC CONTRACT-2).
	ContractPin string
}

// AuthorizeCall decides a tools/call. It rereads grants every time; a tool that is
// unknown, withheld by Visibility or not granted answers tool_not_granted before the
// arguments are looked at (SPEC CALL-1, VIS-2). A granted call's arguments are validated
// against the tool's full input schema (CALL-2), then the host's CheckCall runs (CALL-6).
// AuthorizeCall never executes anything. While the switch is off it allows every call
// and reads no grant (FLAG-2).
func (d *Discoverer) AuthorizeCall(ctx context.Context, p grants.Principal, c Call) error {
	if !d.opts.Enabled {
		return nil
	}
	cat, err := d.catalog(ctx)
	if err != nil {
		return err
	}
	_, _, set, err := d.access(ctx, p, cat)
	if err != nil {
		return err
	}
	i, ok := cat.byName[c.Tool]
	if !ok || !set.bits.Has(i) {
		return newError(CodeToolNotGranted, nil)
	}
	if c.ContractPin != "" && c.ContractPin != set.contract {
		return newError(CodeContractChanged, nil)
	}
	t := &cat.tools[i]
	if t.validator == nil {
		return newError(CodeValidationUnavailable, t.compErr)
	}
	args := c.Arguments
	if len(args) == 0 {
		args = emptyObject
	}
	if err := t.validator.Validate(args); err != nil {
		return validationError(err)
	}
	if d.opts.CheckCall != nil {
		return d.opts.CheckCall(ctx, p, c.Tool, args)
	}
	return nil
}

var emptyObject = json.RawMessage("{}")
