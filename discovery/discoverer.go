package discovery

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

	now func() time.Time // test seam; nil means time.Now
}

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
type Discoverer struct {
	opts     Options
	method   string
	signer   *cursor.Signer
	now      func() time.Time
	revision int64    // the process revision when RevisionSync is off
	visKey   [32]byte // digest of Visibility, bound into cursors
	exclude  map[string]bool
	toolsets map[string]bool

	confirmed atomic.Int64 // highest control revision confirmed (RevisionSync)

	mu     sync.Mutex
	sets   map[setKey]map[string]*authSet // authorised sets, by snapshot, catalog, principal
	cached int                            // sets held in sets
	masks  map[*Catalog]rank.Set          // visibility masks, by catalog version
}

// maxCached bounds each cache of the Discoverer; a full cache is cleared, not evicted
// entry by entry, so no request ever waits on bookkeeping.
const maxCached = 4096

// New returns a Discoverer. opts is copied; nil means defaults.
func New(opts *Options) *Discoverer {
	d := &Discoverer{sets: map[setKey]map[string]*authSet{}, masks: map[*Catalog]rank.Set{}}
	if opts != nil {
		d.opts = *opts
		d.opts.Visibility.Exclude = slices.Clone(opts.Visibility.Exclude)
		d.opts.Visibility.Toolsets = slices.Clone(opts.Visibility.Toolsets)
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

// setKey names the snapshot and catalog version of authorised sets. Snapshots are
// immutable (grants.Reader's contract), so a pointer names its content; within one
// snapshot and catalog, sets are keyed by principal and scopes (see principalKey).
type setKey struct {
	snap *grants.Snapshot
	cat  *Catalog
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
	snap, err := d.opts.Grants.ReadGrants(ctx, p.ID)
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
// narrowed by Visibility. It is computed once per (snapshot, principal, catalog).
func (d *Discoverer) authorized(snap *grants.Snapshot, p grants.Principal, cat *Catalog) (*authSet, error) {
	key := setKey{snap: snap, cat: cat}
	var kb [256]byte
	pkey := appendPrincipalKey(kb[:0], p)
	d.mu.Lock()
	s, ok := d.sets[key][string(pkey)] // the conversion does not allocate in a lookup
	d.mu.Unlock()
	if ok {
		return s, nil
	}
	dec, err := grants.Resolve(snap, p)
	if err != nil {
		return nil, grantsError(err)
	}
	mask := d.mask(cat)
	s = &authSet{bits: rank.NewSet(cat.Len()), scopes: scopesKey(p.Scopes)}
	for name := range dec.Granted() {
		if i, ok := cat.byName[name]; ok && mask.Has(i) {
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
	s.rowsKey = rowsDigest(snap)
	d.mu.Lock()
	if d.cached >= maxCached {
		clear(d.sets)
		d.cached = 0
	}
	inner := d.sets[key]
	if inner == nil {
		inner = map[string]*authSet{}
		d.sets[key] = inner
	}
	if _, dup := inner[string(pkey)]; !dup {
		inner[string(pkey)] = s
		d.cached++
	}
	d.mu.Unlock()
	return s, nil
}

// rowsDigest digests the observed rows with their revisions, independent of the order
// the reader returned them in.
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
	var n [8]byte
	for _, i := range order {
		r := &snap.Rows[i]
		writeField(h, []byte(r.Principal))
		writeField(h, []byte(r.Tool))
		writeField(h, []byte(r.Effect))
		writeField(h, []byte(scopesKey(r.Scopes))) // a set: the reader's order is no change
		binary.BigEndian.PutUint64(n[:], uint64(r.Revision))
		h.Write(n[:])
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// mask returns the tools of cat that Visibility serves, computed once per catalog.
func (d *Discoverer) mask(cat *Catalog) rank.Set {
	d.mu.Lock()
	m, ok := d.masks[cat]
	d.mu.Unlock()
	if ok {
		return m
	}
	v := d.opts.Visibility
	m = rank.NewSet(cat.Len())
	for i, t := range cat.tools {
		if d.visible(v, &t) {
			m.Add(i)
		}
	}
	d.mu.Lock()
	if len(d.masks) >= 64 {
		clear(d.masks)
	}
	d.masks[cat] = m
	d.mu.Unlock()
	return m
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
}

// ListTools returns the principal's authorised tools, narrowed by Visibility. While the
// switch is off it returns the whole catalog and reads no grant (SPEC FLAG-2).
func (d *Discoverer) ListTools(ctx context.Context, p grants.Principal) (*ListResult, error) {
	cat, err := d.catalog(ctx)
	if err != nil {
		return nil, err
	}
	if !d.opts.Enabled {
		r := &ListResult{Tools: make([]json.RawMessage, len(cat.tools)), ContractDigest: cat.contract}
		for i := range cat.tools {
			r.Tools[i] = cat.tools[i].canonical
		}
		return r, nil
	}
	_, _, set, err := d.access(ctx, p, cat)
	if err != nil {
		return nil, err
	}
	r := &ListResult{Tools: make([]json.RawMessage, 0, set.count), ContractDigest: set.contract}
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
