package discovery

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
	"github.com/deferredtools/deferredtools/safemode"
)

// DefaultMethod is the JSON-RPC method name of discovery (SPEC DISC-1).
const DefaultMethod = "multillm.tools.discover"

// Options configure a Discoverer. A nil *Options means all defaults; New copies it.
type Options struct {
	// Enabled is the switch (SPEC FLAG-1). While false nothing changes: Discover answers
	// method_not_found, ListTools serves the whole catalog, AuthorizeCall allows every
	// call, and the grant store is never read (FLAG-2). See SwitchFromEnv.
	Enabled bool
	// Catalog yields the catalog version of each request. Nil (or a nil
	// *SwappableCatalog), or a source yielding a Catalog not built by NewCatalog: every
	// request that needs one answers catalog_unavailable (503, SPEC ERR-5).
	Catalog CatalogSource
	// Grants reads grant rows. Nil (or a nil *grants.Memory): every request that needs
	// grants answers grants_unavailable (503), never an empty grant set (SPEC ERR-5,
	// FLAG-3).
	Grants grants.Reader
	// Signer seals and opens cursors (see Sealer). Nil, or a nil *cursor.Signer: a
	// fresh cursor.NewSigner() for this Discoverer.
	Signer Sealer
	// Method renames the discover method for HandleJSONRPC. Empty: DefaultMethod.
	Method string
	// RevisionSync makes the grant revision bound into cursors the store's confirmed
	// control revision: a read without one (0), or with one older than a revision this
	// Discoverer already confirmed, answers grants_unavailable (SPEC CURSOR-5), its
	// cause ErrRevisionUnavailable (also grants.ErrUnavailable). Off, the
	// Discoverer uses one random revision for its lifetime and relies on the observed
	// rows alone to invalidate cursors.
	RevisionSync bool
	// Visibility narrows every path alike (SPEC VIS-1).
	Visibility Visibility
	// SafeMode holds calls to mutating tools until they are confirmed (see package
	// safemode). The zero value is off.
	SafeMode safemode.Options
	// CheckCall is the host's own operation check, run after the grant decision and
	// argument validation succeed (SPEC CALL-6). Its error is returned unchanged. Nil:
	// no host check.
	CheckCall func(ctx context.Context, p grants.Principal, tool string, args json.RawMessage) error
	// CacheBytes bounds, in bytes, what the Discoverer caches of each principal's
	// authorised set and of each grant snapshot's digest, in two generations of half
	// each (an entry unused for a whole generation goes). Zero means 16 MiB; negative
	// caches nothing, so every request resolves its grants.
	CacheBytes int64
	// GrantTimeout bounds a grant read whose context has no deadline: the read gets one
	// GrantTimeout away, so a frozen store answers grants_unavailable (503) instead of
	// hanging (SPEC ERR-5). A context that has a deadline keeps it. The Reader runs in a
	// goroutine of its own, which the request leaves at the deadline even when the
	// Reader does not return then; while 64 reads so left still run, requests answer
	// grants_unavailable without reading. A Reader's panic is raised again on the
	// request's goroutine, where the host's recovery sees it, or dropped when the
	// request has already left. Zero means 2 seconds; negative adds no
	// deadline and calls the Reader directly, so a read lasts as long as the Reader
	// takes. A Reader
	// whose NonBlocking method reports true (grants.NonBlockingReader, as *grants.Memory)
	// is called directly, without a deadline: it never waits.
	GrantTimeout time.Duration
	// Observe, when not nil, receives one observe.Event per decision (see package
	// observe): no query, arguments, cursor or principal. ctx is the context the entry
	// point was given, for correlation with a trace (an OpenTelemetry exemplar, say).
	// It is called on the request's goroutine after the decision is made and before
	// the entry point returns, concurrently from concurrent requests; its time adds to
	// the request's latency, so a slow observer slows requests (the host's to avoid:
	// record without blocking). A panic in Observe is recovered and dropped, so an
	// observer cannot change or fail a decision. Nil: no events; each entry point then
	// pays a nil check (a few nanoseconds) and no allocation.
	Observe func(ctx context.Context, e observe.Event)
}

// Defaults of Options.CacheBytes and Options.GrantTimeout, as their docs say.
const (
	defaultCacheBytes   = 16 << 20
	defaultGrantTimeout = 2 * time.Second
)

// Visibility is the deployment's narrowing of the catalog (SPEC VIS-1). The zero value
// withholds nothing.
type Visibility struct {
	// Exclude withholds tools by exact name, and a meta tool's action by its ID.
	Exclude []string
	// ReadOnly serves only tools whose annotations.readOnlyHint is true, and of a meta
	// tool only the actions read-only by their own hint, else the tool's. It wins over
	// any other selection.
	ReadOnly bool
	// Toolsets, when not empty, serves only tools whose toolset (CatalogOptions.Toolset)
	// is listed; a meta tool's actions are in its toolset.
	Toolsets []string
}

// A Discoverer serves discovery, narrowed tool lists and call authorisation for the
// principals a host authenticates. It opens no socket. It is safe for concurrent use.
// It caches authorised sets by content within Options.CacheBytes and keeps no grant
// snapshot or catalog version alive. Use New: the zero value has the switch off and no
// catalog (catalog_unavailable where one is needed).
type Discoverer struct {
	config
	*state // shared with the Discoverers ReserveToolName derives; nil in the zero Discoverer

	reserved string                      // ReserveToolName's name, or ""
	held     atomic.Pointer[heldVersion] // reserved's decision on the last catalog version used
}

// config is what New derives from Options, read-only afterwards.
type config struct {
	opts     Options
	method   string
	signer   Sealer
	revision int64    // the process revision when RevisionSync is off
	visKey   [32]byte // digest of Visibility, bound into cursors
	exclude  map[string]bool
	toolsets map[string]bool

	timeout time.Duration // deadline of a grant read without one; 0: none

	safe safeMode
}

// state is what a Discoverer's requests update.
type state struct {
	confirmed atomic.Int64 // highest control revision confirmed (RevisionSync)
	abandoned atomic.Int64 // grant reads abandoned at their deadline and still running

	cache setCache
}

// New returns a Discoverer. opts is copied; nil means defaults.
func New(opts *Options) *Discoverer {
	d := &Discoverer{state: &state{}}
	if opts != nil {
		d.opts = *opts
		d.opts.Visibility.Exclude = slices.Clone(opts.Visibility.Exclude)
		d.opts.Visibility.Toolsets = slices.Clone(opts.Visibility.Toolsets)
	}
	// A nil pointer of the library's own collaborators is no collaborator (ERR-5).
	if m, ok := d.opts.Grants.(*grants.Memory); ok && m == nil {
		d.opts.Grants = nil
	}
	if s, ok := d.opts.Catalog.(*SwappableCatalog); ok && s == nil {
		d.opts.Catalog = nil
	}
	d.cache.init(cmp.Or(d.opts.CacheBytes, defaultCacheBytes))
	d.safe = newSafeMode(&d.opts.SafeMode)
	if r, ok := d.opts.Grants.(grants.NonBlockingReader); !ok || !r.NonBlocking() {
		d.timeout = max(cmp.Or(d.opts.GrantTimeout, defaultGrantTimeout), 0)
	}
	d.method = cmp.Or(d.opts.Method, DefaultMethod)
	d.signer = d.opts.Signer
	if s, ok := d.signer.(*cursor.Signer); d.signer == nil || ok && s == nil {
		d.signer = cursor.NewSigner()
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

// errToolNameReserved is the cause of the catalog_unavailable *Error that a
// Discoverer from ReserveToolName answers while the catalog version holds its reserved
// name; it never reaches the wire. A host asks the unreserved Discoverer's Catalog
// whether it holds the name (Catalog.Tool), as the adapters do at start.
var errToolNameReserved = errors.New("discovery: the catalog holds a reserved tool name")

// ReserveToolName returns a Discoverer that serves as d does, sharing its options,
// caches, cursor and confirmation keys and grant reads, with name reserved for a tool
// the host serves beside the catalog (an adapter's discovery tool, ToolDefinition):
// while the switch is on and the catalog version a request uses holds a tool of that
// name, ListTools, Catalog, every form of Discover (DiscoverTool included) and
// AuthorizeTool, AuthorizeCall and their Then forms for that name answer
// catalog_unavailable (503), so that the name is never
// served with two schemas (SPEC DISC-3, CALL-2). Calls of other tools go on. The
// decision is taken on the version the request uses, once per catalog version, not
// per request. d is unchanged (a name d reserves is not carried over: one name per
// Discoverer); an empty name returns d.
func (d *Discoverer) ReserveToolName(name string) *Discoverer {
	if name == "" {
		return d
	}
	return &Discoverer{config: d.config, state: d.state, reserved: name}
}

// heldVersion is a reserving Discoverer's decision on one catalog version, named by
// its cacheKey: whether the version holds the reserved name.
type heldVersion struct {
	id   uint64
	held bool
}

// reservedIn reports whether c holds the reserved tool name while the switch is on,
// deciding once per catalog version: the last version's decision is kept.
func (d *Discoverer) reservedIn(c *Catalog) bool {
	if d.reserved == "" || !d.opts.Enabled {
		return false
	}
	id := c.cacheKey()
	if h := d.held.Load(); h != nil && h.id == id {
		return h.held
	}
	_, held := c.byName[d.reserved]
	d.held.Store(&heldVersion{id: id, held: held})
	return held
}

// catalog returns the request's catalog version, or catalog_unavailable: also for a
// version holding the reserved tool name (see ReserveToolName), unless the request
// is a call (call set) of another tool.
func (d *Discoverer) catalog(ctx context.Context, call bool, tool string) (*Catalog, error) {
	c, err := d.source(ctx)
	if err != nil {
		return nil, err
	}
	d.noteCatalog(ctx, c)
	if (!call || tool == d.reserved) && d.reservedIn(c) {
		return nil, newError(CodeCatalogUnavailable, errToolNameReserved)
	}
	return c, nil
}

// Catalog returns the catalog version Options.Catalog yields now, or the
// catalog_unavailable *Error, also for a version holding the name reserved by
// ReserveToolName; it reads no grant.
func (d *Discoverer) Catalog(ctx context.Context) (*Catalog, error) {
	c, err := d.source(ctx)
	if err == nil && d.reservedIn(c) {
		return nil, newError(CodeCatalogUnavailable, errToolNameReserved)
	}
	return c, err
}

// source returns the catalog version Options.Catalog yields now, or
// catalog_unavailable.
func (d *Discoverer) source(ctx context.Context) (*Catalog, error) {
	if ctx == nil {
		return nil, errNilContext()
	}
	if d.opts.Catalog == nil {
		return nil, newError(CodeCatalogUnavailable, nil)
	}
	c, err := d.opts.Catalog.Catalog(ctx)
	if err != nil || !c.built() {
		return nil, newError(CodeCatalogUnavailable, err)
	}
	return c, nil
}

// A ListResult is the principal's authorised tool set (SPEC PAGE-5): every tool, in name
// order, unbounded by the discovery page size, with its contract digest. Tools are the
// catalog's canonical bytes, shared: do not modify them. One built by literal, without
// Catalog, holds no tool for Tool and SafeModeHolds.
type ListResult struct {
	Tools          []json.RawMessage
	ContractDigest string
	// Catalog is the catalog version Tools were read from, for questions about the
	// whole catalog (a planner asks whether a tool name is taken).
	Catalog *Catalog
	set     *authSet  // nil while the switch is off
	safe    *safeMode // the Discoverer's; nil while the switch is off
}

// Tool returns the definition Tools holds for the named tool (a meta tool's narrowed
// to the actions served), and whether Tools holds it.
func (r *ListResult) Tool(name string) (json.RawMessage, bool) {
	if r.Catalog == nil {
		return nil, false // not made by ListTools
	}
	i, ok := r.Catalog.byName[name]
	switch {
	case !ok:
		return nil, false
	case r.set == nil:
		return r.Catalog.tools[i].canonical, true
	case !r.set.bits.Has(i):
		return nil, false
	}
	return r.set.tool(r.Catalog, i).canonical, true
}

// ListTools returns the principal's authorised tools, narrowed by Visibility. While the
// switch is off it returns the whole catalog and reads no grant (SPEC FLAG-2).
func (d *Discoverer) ListTools(ctx context.Context, p grants.Principal) (res *ListResult, err error) {
	if ctx == nil {
		return nil, errNilContext()
	}
	defer d.observe(&ctx, observe.OpList).list(&res, &err)
	cat, err := d.catalog(ctx, false, "")
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
	r := &ListResult{Tools: make([]json.RawMessage, 0, set.count), ContractDigest: set.contract, Catalog: cat, set: set, safe: &d.safe}
	for i := range cat.tools {
		if set.bits.Has(i) {
			r.Tools = append(r.Tools, set.tool(cat, i).canonical)
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
	// BadContractPin reports a pin the client sent as anything but a JSON string (a
	// number, object, array, bool or null): the call answers invalid_params, decided
	// where ContractPin is, after the grants and before the arguments, whatever
	// ContractPin holds.
	BadContractPin bool
	// Confirmation is the confirmation token of a call safe mode holds (see
	// Options.SafeMode), from params._meta[safemode.MetaKey]; empty when the call
	// carries none.
	Confirmation string
}

// A pinned request is read only once the client's contract pin has been checked
// (DiscoverToolPinned): its params are parsed after the pin, as a call's arguments
// are validated after its pin (SPEC CONTRACT-2).
type pinned struct {
	pin    string
	bad    bool // the client's pin was no string (Call.BadContractPin)
	params json.RawMessage
}

// checkPin decides a client's contract pin against the authorised set: a pin that
// was no string is invalid_params, one that is not the set's contract digest
// contract_changed (SPEC CONTRACT-2); an empty pin pins nothing.
func checkPin(set *authSet, pin string, bad bool) error {
	switch {
	case bad:
		return newError(CodeInvalidParams, nil)
	case pin != "" && pin != set.contract:
		return newError(CodeContractChanged, nil)
	}
	return nil
}

// AuthorizeCall decides a tools/call. It rereads grants every time; a tool that is
// unknown, withheld by Visibility or not granted answers tool_not_granted before the
// arguments are looked at (SPEC CALL-1, VIS-2). A granted call's arguments are validated
// against the tool's full input schema (CALL-2), then the host's CheckCall runs (CALL-6).
// A meta tool's call is decided on its action first, read alone from the arguments (see
// CatalogOptions.MetaTools): an action not served answers tool_not_granted. In safe
// mode it then holds a mutating call without a valid confirmation token (see
// Options.SafeMode). AuthorizeCall never executes anything. While the switch is off it
// allows every call and reads no grant (FLAG-2).
func (d *Discoverer) AuthorizeCall(ctx context.Context, p grants.Principal, c Call) (err error) {
	if ctx == nil {
		return errNilContext()
	}
	defer d.observe(&ctx, observe.OpAuthorizeCall).decision(&err)
	if !d.opts.Enabled {
		return nil
	}
	cat, i, set, err := d.grantedTool(ctx, p, c.Tool)
	if err != nil {
		return err
	}
	return d.grantedCall(ctx, p, c, cat, i, set)
}

var emptyObject = json.RawMessage("{}")
