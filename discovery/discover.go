package discovery

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/observe"
	"github.com/deferredtools/deferredtools/rank"
)

// Limits of the discover method (SPEC DISC-2, PAGE-1).
const (
	MaxLimit         = 16    // the largest limit a request may ask for; also a request's default
	MaxQueryLength   = 500   // Unicode code points
	MaxResponseBytes = 65536 // a whole JSON-RPC response, envelope included
)

// defaultLimit is the limit of a request that names none (SPEC DISC-2: 16).
const defaultLimit = MaxLimit

// maxIDBytes is the JSON-RPC id length Discover reserves in every page it builds: a
// host that frames Discover's result itself stays under MaxResponseBytes with any id
// of up to 64 bytes. HandleJSONRPC counts the real id instead.
const maxIDBytes = 64

// A Request is one discover request (SPEC DISC-1, DISC-2). A next page's Request
// repeats the first page's Query and Limit with Cursor set: a cursor is bound to them,
// to the principal and its scopes and to the grants and contract it was issued under
// (SPEC CURSOR-2), so any difference, or a cursor older than cursor.Lifetime, answers
// invalid_cursor, and the client starts again from the first page.
type Request struct {
	Query  string // 1 to MaxQueryLength code points, no control characters
	Limit  int    // 1 to MaxLimit; 0 means MaxLimit
	Cursor string // the previous page's NextCursor, or empty for the first page
}

// A Result is one page of discovery (SPEC DISC-3): whole tool definitions in rank order,
// the cursor of the next page if any, and the principal's contract digest. Tools are
// the catalog's canonical bytes, shared: do not modify them. Its JSON also carries the
// cache hints of MCP 2026-07-28 (SEP-2549), "ttlMs":0 and "cacheScope":"private": a
// page is one principal's and is never to be served from a cache. A page of
// DiscoverTool, which travels inside a tools/call result, carries no hints.
type Result struct {
	Tools          []json.RawMessage
	NextCursor     string
	ContractDigest string
	toolPage       bool // from DiscoverTool: encoded without the cache hints
}

// Envelope pieces, measured once so page accounting is exact (SPEC PAGE-1, PAGE-2).
const (
	envOpen     = `{"jsonrpc":"2.0","id":`
	envResult   = `,"result":`
	envClose    = `}`
	resTools    = `{"tools":[`
	resToolsEnd = `]`
	resCursor   = `,"nextCursor":"`
	resCache    = `,"ttlMs":0,"cacheScope":"private"` // SEP-2549 hints; not on tool pages
	resMeta     = `,"_meta":{"contract_digest":"`
	resMetaEnd  = `"}}`
)

// AppendJSON appends the result's JSON to dst: {"tools":[...],"nextCursor"?:"...",
// "ttlMs":0,"cacheScope":"private","_meta":{"contract_digest":"..."}}, the DISC-3 shape
// with the cache hints (none on a DiscoverTool page).
func (r *Result) AppendJSON(dst []byte) []byte {
	dst = append(dst, resTools...)
	for i, t := range r.Tools {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, t...)
	}
	dst = append(dst, resToolsEnd...)
	if r.NextCursor != "" {
		dst = append(dst, resCursor...)
		dst = append(dst, r.NextCursor...) // base64url: no escaping needed
		dst = append(dst, '"')
	}
	if !r.toolPage {
		dst = append(dst, resCache...)
	}
	dst = append(dst, resMeta...)
	dst = append(dst, r.ContractDigest...)
	return append(dst, resMetaEnd...)
}

// jsonLen is the length of AppendJSON's output.
func (r *Result) jsonLen() int {
	n := len(resTools) + len(resToolsEnd) + len(resMeta) + len(r.ContractDigest) + len(resMetaEnd)
	if !r.toolPage {
		n += len(resCache)
	}
	for i, t := range r.Tools {
		if i > 0 {
			n++
		}
		n += len(t)
	}
	if r.NextCursor != "" {
		n += len(resCursor) + len(r.NextCursor) + 1
	}
	return n
}

// MarshalJSON encodes the result as AppendJSON does.
func (r *Result) MarshalJSON() ([]byte, error) {
	return r.AppendJSON(make([]byte, 0, r.jsonLen())), nil
}

// Discover answers one discover request for principal p. Its page, framed in a JSON-RPC
// response whose id encodes in at most 64 bytes, is at most MaxResponseBytes.
func (d *Discoverer) Discover(ctx context.Context, p grants.Principal, req Request) (res *Result, err error) {
	if ctx == nil {
		return nil, errNilContext()
	}
	defer d.observe(&ctx, observe.OpDiscover).page(&res, &err)
	if !d.opts.Enabled {
		return nil, newError(CodeMethodNotFound, nil)
	}
	if err := checkRequest(&req); err != nil {
		return nil, err
	}
	cat, err := d.catalog(ctx, false, "")
	if err != nil {
		return nil, err
	}
	return d.discover(ctx, p, cat, req, frame{idLen: maxIDBytes}, nil)
}

// DiscoverParams is Discover for the JSON text of the request's params, checked strictly
// (SPEC DISC-1): unknown members, duplicate members, wrong types and out-of-range values
// answer invalid_params.
func (d *Discoverer) DiscoverParams(ctx context.Context, p grants.Principal, params json.RawMessage) (res *Result, err error) {
	if ctx == nil {
		return nil, errNilContext()
	}
	defer d.observe(&ctx, observe.OpDiscover).page(&res, &err)
	return d.discoverParams(ctx, p, params, frame{idLen: maxIDBytes})
}

// discoverParams answers the discover params text for a page framed as f: the one path
// of DiscoverParams, DiscoverTool and DiscoverFramed. The catalog version is taken
// first, so a version holding the reserved name (ReserveToolName) answers alike
// whatever the params.
func (d *Discoverer) discoverParams(ctx context.Context, p grants.Principal, params json.RawMessage, f frame) (*Result, error) {
	if !d.opts.Enabled {
		return nil, newError(CodeMethodNotFound, nil)
	}
	cat, err := d.catalog(ctx, false, "")
	if err != nil {
		return nil, err
	}
	req, err := parseParams(params, !f.toolResult)
	if err != nil {
		return nil, err
	}
	return d.discover(ctx, p, cat, req, f, nil)
}

// DiscoverTool is DiscoverParams for the discovery tool's arguments (see
// ToolDefinition), which may not hold _meta (invalid_params): the page is sized for a
// tools/call result that carries it twice, as structuredContent and, escaped, as one
// text block, inside a JSON-RPC response whose id encodes in at most 64 bytes and whose
// other framing takes at most 256 bytes. So framed, the response is at most
// MaxResponseBytes (SPEC PAGE-1). The page carries no cache hints: SEP-2549 gives none
// to tools/call results, and a model reads the page.
func (d *Discoverer) DiscoverTool(ctx context.Context, p grants.Principal, args json.RawMessage) (res *Result, err error) {
	if ctx == nil {
		return nil, errNilContext()
	}
	defer d.observe(&ctx, observe.OpDiscoverTool).page(&res, &err)
	return d.discoverParams(ctx, p, args, frame{idLen: maxIDBytes, toolResult: true})
}

// DiscoverToolPinned is DiscoverTool for a call that carries the client's contract pin
// (the tools/call's params._meta.contract_digest): a pin that is not the principal's
// contract digest answers contract_changed before the arguments are read, the order
// AuthorizeCall keeps for every other tool (the grants, then the pin, then the
// arguments), so one cause gets one answer whatever the arguments. An empty pin is
// DiscoverTool.
func (d *Discoverer) DiscoverToolPinned(ctx context.Context, p grants.Principal, args json.RawMessage, pin string) (res *Result, err error) {
	return d.DiscoverToolCall(ctx, p, Call{Arguments: args, ContractPin: pin})
}

// DiscoverToolCall is DiscoverToolPinned for a tools/call of the discovery tool as a
// Call: c.Arguments are the tool's arguments (empty: invalid_params, as for
// DiscoverTool), c.ContractPin its pin, and c.BadContractPin, a pin the client sent
// as no string, answers invalid_params where the pin is checked (after the grants,
// before the arguments). c.Tool and c.Confirmation are not read.
func (d *Discoverer) DiscoverToolCall(ctx context.Context, p grants.Principal, c Call) (res *Result, err error) {
	if ctx == nil {
		return nil, errNilContext()
	}
	defer d.observe(&ctx, observe.OpDiscoverTool).page(&res, &err)
	f := frame{idLen: maxIDBytes, toolResult: true}
	if c.ContractPin == "" && !c.BadContractPin {
		return d.discoverParams(ctx, p, c.Arguments, f)
	}
	if !d.opts.Enabled {
		return nil, newError(CodeMethodNotFound, nil)
	}
	cat, err := d.catalog(ctx, false, "")
	if err != nil {
		return nil, err
	}
	return d.discover(ctx, p, cat, Request{}, f, &pinned{pin: c.ContractPin, bad: c.BadContractPin, params: c.Arguments})
}

// toolResultReserve is what DiscoverTool leaves for a tools/call result's own members
// around the page's two copies: {"content":[{"type":"text","text":...}],
// "structuredContent":...} and any further fields a host's encoder adds.
const toolResultReserve = 256

// A frame is how a page travels on the wire, for exact page sizing.
type frame struct {
	idLen      int
	toolResult bool // the page appears raw and escaped, in a tools/call result
}

// fixed is the size of the response without its tools and cursor: the envelope and the
// page's fixed members, the cache hints included on a discover method page.
func (f frame) fixed(contract string) int {
	n := len(envOpen) + f.idLen + len(envResult) + len(envClose)
	page := len(resTools) + len(resToolsEnd) + len(resMeta) + len(contract) + len(resMetaEnd)
	if !f.toolResult {
		return n + page + len(resCache)
	}
	return n + toolResultReserve + 2*page + skeletonEscapes // tool pages carry no hints
}

// tool is the cost of one tool on the page.
func (f frame) tool(t *tool) int {
	if !f.toolResult {
		return len(t.canonical)
	}
	return 2*len(t.canonical) + t.strEscapes + t.rawEscapes
}

// comma is the cost of the separator before every tool but the first.
func (f frame) comma() int {
	if f.toolResult {
		return 2
	}
	return 1
}

// cursor is the cost of the nextCursor member holding token (base64url: no escapes).
func (f frame) cursor(token string) int {
	n := len(resCursor) + len(token) + 1
	if f.toolResult {
		return 2*n + cursorEscapes
	}
	return n
}

// cursorEscapes is what escaping the nextCursor member's fixed bytes adds.
var cursorEscapes, _ = escapes([]byte(resCursor + `"`))

// skeletonEscapes is what escaping the page's fixed members adds (they hold no HTML).
var skeletonEscapes, _ = escapes([]byte(resTools + resToolsEnd + resMeta + resMetaEnd))

// escapes counts the bytes that encoding/json, at its most cautious (HTML escaping on),
// adds to b: str when it encodes b as a string, raw when it compacts b as a
// json.RawMessage. A quote or backslash adds one to str; <, > and & (as \u003c) add five
// to both, U+2028 and U+2029 (as \u2028) three to both; control characters (never raw in
// canonical JSON) five to str.
func escapes(b []byte) (str, raw int) {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"' || c == '\\':
			str++
		case c < 0x20:
			str += 5
		case c == '<' || c == '>' || c == '&':
			str += 5
			raw += 5
		case c == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9):
			str += 3
			raw += 3
		}
	}
	return str, raw
}

// checkRequest applies DISC-2 to a typed request and fills the default limit.
func checkRequest(req *Request) error {
	if req.Limit == 0 {
		req.Limit = defaultLimit
	}
	if req.Limit < 1 || req.Limit > MaxLimit || !validQuery(req.Query) {
		return newError(CodeInvalidParams, nil)
	}
	return nil
}

// validQuery: non-empty, valid UTF-8, at most MaxQueryLength code points, no Cc.
func validQuery(q string) bool {
	if q == "" || len(q) > 4*MaxQueryLength || !utf8.ValidString(q) {
		return false
	}
	n := 0
	for _, r := range q {
		if unicode.Is(unicode.Cc, r) {
			return false
		}
		n++
	}
	return n <= MaxQueryLength
}

// parseParams reads discover params strictly (SPEC DISC-1, DISC-2). meta allows MCP's
// _meta member, which the method's params may carry and the discovery tool's arguments
// may not: its served schema (ToolDefinition) has no such property.
func parseParams(params json.RawMessage, meta bool) (Request, error) {
	if !json.Valid(params) {
		return Request{}, newError(CodeInvalidParams, nil)
	}
	return parseValidParams(params, meta)
}

// parseValidParams is parseParams for params already known to be valid JSON or absent,
// such as the params member of a message parseEnvelope read.
func parseValidParams(params json.RawMessage, meta bool) (Request, error) {
	var req Request
	if len(params) == 0 || !utf8.Valid(params) {
		return req, newError(CodeInvalidParams, nil)
	}
	var seenQuery, seenLimit, seenCursor, seenMeta bool
	ok := members(params, func(key, val []byte) bool {
		var seen *bool
		switch {
		case keyIs(key, "query"):
			seen = &seenQuery
		case keyIs(key, "limit"):
			seen = &seenLimit
		case keyIs(key, "cursor"):
			seen = &seenCursor
		case meta && keyIs(key, "_meta"):
			seen = &seenMeta // allowed and ignored, whatever it holds
		default:
			return false // unknown member
		}
		if *seen {
			return false // duplicate member: never resolved silently
		}
		*seen = true
		switch seen {
		case &seenQuery:
			var isString bool
			req.Query, isString = paramString(val)
			return isString
		case &seenCursor:
			var isString bool
			req.Cursor, isString = paramString(val)
			return isString
		case &seenLimit:
			if val[0] != '-' && (val[0] < '0' || val[0] > '9') {
				return false // not a number
			}
			n, ok := smallInteger(string(val))
			if !ok || n < 1 || n > MaxLimit {
				return false
			}
			req.Limit = n
		}
		return true
	})
	if !ok || !seenQuery {
		return req, newError(CodeInvalidParams, nil)
	}
	if err := checkRequest(&req); err != nil {
		return req, err
	}
	return req, nil
}

// paramString decodes the raw JSON string value of a param; ok is false for any other
// value and for a string holding a lone or reversed surrogate escape, text with no
// single meaning that the library's validator refuses too (so the discovery tool's
// served schema, run by it, and its reader agree).
func paramString(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var buf [64]byte
	dec, s, f := jsonlex.DecodeString(buf[:0], raw, 0)
	switch {
	case f != jsonlex.None:
		return "", false
	case s.Escaped:
		return string(dec), true
	}
	return string(raw[1 : s.End-1]), true
}

// smallInteger reports the value of a JSON number when it is an integer in 0..99,
// exactly, whatever its spelling (16, 16.0, 1.6e1, 160e-1), without floating point.
func smallInteger(s string) (int, bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		return 0, false // no negative value is in range; -0 is zero, out of range too
	}
	var digits []byte
	var buf [32]byte
	digits = buf[:0]
	frac := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits = append(digits, s[i])
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits = append(digits, s[i])
			frac++
		}
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			neg = s[i] == '-'
			i++
		}
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if exp > len(s) {
				// Past the count of digits: above 99, or not an integer, or zero.
				return 0, false
			}
			exp = exp*10 + int(s[i]-'0')
		}
		if neg {
			exp = -exp
		}
	}
	if i != len(s) {
		return 0, false
	}
	// value = digits × 10^(exp-frac); strip leading and trailing zeros.
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	e := exp - frac
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		e++
	}
	if len(digits) == 0 {
		return 0, true
	}
	if e < 0 || len(digits)+e > 2 {
		return 0, false // not an integer, or 100 and more
	}
	n := 0
	for _, c := range digits {
		n = n*10 + int(c-'0')
	}
	for ; e > 0; e-- {
		n *= 10
	}
	return n, true
}

// nameFirst puts first, once, the authorised tool whose name is the whole query (white
// space trimmed): a tool whose name ranking cannot read (stop words such as "do_it" or
// "who_am_i", a single letter) is still found by the name a client-side catalog shows
// (SPEC PLAN-2: no plan defers a tool without a discovery path). Every page of a query
// applies it alike, so offsets and cursors walk one ranking.
func nameFirst(hits []rank.Hit, cat *Catalog, set *authSet, query string) []rank.Hit {
	i, ok := cat.byName[strings.TrimSpace(query)]
	if !ok || !set.bits.Has(i) {
		return hits
	}
	hits = slices.DeleteFunc(hits, func(h rank.Hit) bool { return h.Doc == i })
	return slices.Insert(hits, 0, rank.Hit{Doc: i})
}

// hitsPool recycles rank hit buffers, so a request allocates none that grows with the
// catalog.
var hitsPool = sync.Pool{New: func() any { s := make([]rank.Hit, 0, 64); return &s }}

// bindPool recycles the buffer the cursor binding is hashed from.
var bindPool = sync.Pool{New: func() any { s := make([]byte, 0, 512); return &s }}

// discover builds one page of catalog version cat sized for its framing f. With pin
// set, req is read from pin.params once the pin matches the principal's contract
// digest.
func (d *Discoverer) discover(ctx context.Context, p grants.Principal, cat *Catalog, req Request, f frame, pin *pinned) (*Result, error) {
	snap, rev, set, err := d.access(ctx, p, cat)
	if err != nil {
		return nil, err
	}
	if pin != nil {
		if err := checkPin(set, pin.pin, pin.bad); err != nil {
			return nil, err
		}
		if req, err = parseParams(pin.params, !f.toolResult); err != nil {
			return nil, err
		}
	}
	binding := d.binding(p, set, rev, &req)

	offset, issued, err := d.start(req.Cursor, &binding)
	if err != nil {
		return nil, err
	}

	hp := hitsPool.Get().(*[]rank.Hit)
	defer hitsPool.Put(hp)
	hits := cat.index.Search((*hp)[:0], req.Query, set.bits, offset+req.Limit+1)
	hits = nameFirst(hits, cat, set, req.Query)
	*hp = hits[:0]
	if offset > len(hits) {
		return nil, newError(CodeInvalidCursor, nil) // a cursor past the end cannot come from this ranking
	}
	rest := hits[offset:]

	res := &Result{ContractDigest: set.contract, toolPage: f.toolResult}
	budget := MaxResponseBytes - f.fixed(set.contract)
	n, used := 0, 0
	for n < req.Limit && n < len(rest) {
		size := f.tool(set.tool(cat, rest[n].Doc))
		if n > 0 {
			size += f.comma()
		}
		if used+size > budget {
			break
		}
		used += size
		n++
	}
	if len(rest) > 0 && n == 0 {
		return nil, newError(CodeSchemaTooLarge, nil) // SPEC PAGE-3: never truncated, never replaced
	}
	if n < len(rest) {
		// More follow: the page carries a cursor, which must fit too.
		for {
			token := d.seal(&binding, offset+n, issued)
			if used+f.cursor(token) <= budget {
				res.NextCursor = token
				break
			}
			n--
			if n == 0 {
				return nil, newError(CodeSchemaTooLarge, nil)
			}
			used -= f.tool(set.tool(cat, rest[n].Doc)) + f.comma() // n > 0: it had a comma
		}
	}
	res.Tools = make([]json.RawMessage, n)
	for i := range n {
		res.Tools[i] = set.tool(cat, rest[i].Doc).canonical
	}

	// SPEC CURSOR-4: a grant change observed while the page was prepared answers 409.
	snap2, rev2, err := d.readGrants(ctx, p)
	if err != nil {
		return nil, err
	}
	if snap2 != snap && (rev2 != rev || rowsDigest(snap2) != set.rowsKey) {
		return nil, newError(CodeGrantsChanged, nil)
	}
	d.notePage(ctx, res)
	return res, nil
}

// binding digests every fact a cursor is bound to (SPEC CURSOR-2): principal, scopes,
// contract digest, visibility, grant revision, observed rows, query and limit. The page
// offset is sealed in the cursor itself.
func (d *Discoverer) binding(p grants.Principal, set *authSet, rev int64, req *Request) [32]byte {
	bp := bindPool.Get().(*[]byte)
	b := (*bp)[:0]
	b = appendField(b, "deferredtools/cursor/v1")
	b = appendField(b, p.ID)
	b = appendField(b, set.scopes)
	b = appendField(b, set.contract)
	b = append(b, d.visKey[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(rev))
	b = append(b, set.rowsKey[:]...)
	b = appendField(b, req.Query)
	b = binary.BigEndian.AppendUint64(b, uint64(req.Limit))
	sum := sha256.Sum256(b)
	*bp = b[:0]
	bindPool.Put(bp)
	return sum
}

func appendField(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}
