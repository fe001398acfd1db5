// Package grants decides which tools exist for a principal, from grant rows that deny by
// default and fail closed.
//
// A Reader answers a principal's applicable rows as a Snapshot; Resolve turns a Snapshot
// into a Decision (SPEC GRANT-2) or refuses it (GRANT-5). Memory is an in-memory Store;
// package grants/sqlstore keeps rows in SQLite or PostgreSQL; package grants/grantstest
// checks any Store against the rules and injects faults.
//
// Decisions where the SPEC is silent:
//
//   - A scope is an RFC 6749 scope-token: one or more printable ASCII characters
//     (%x21 / %x23-5B / %x5D-7E; no space, '"' or '\'). Any other scope makes the row
//     malformed ("scope"), and so does the same scope twice in one row: a row's scopes are
//     a set.
//   - Principal IDs and tool names must be non-empty; they are otherwise compared as exact
//     byte strings.
//   - A Snapshot may only hold rows of the principal it was read for and of AnyPrincipal.
//     A row of any other principal is a reader bug: Resolve refuses the Snapshot as
//     malformed ("principal").
//   - A principal whose ID is AnyPrincipal has no rows of its own: the AnyPrincipal rows
//     decide for it as for anyone without a row.
//   - Every change increments the control revision by one, and the changed row takes the
//     new control revision as its own revision (Memory and the sqlstore do so). A row's
//     revision therefore strictly increases with each change, even across a delete and a
//     re-creation, so a revision once observed never names two different rows.
package grants

import (
	"context"
	"errors"
	"iter"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// MaxRows is the most applicable rows (the principal's and "*"'s) one read may return
// (SPEC GRANT-5). A read that finds more fails closed with ErrTooManyRows.
const MaxRows = 4096

// AnyPrincipal is the compatibility principal: its rows apply to every principal that has
// no row of its own for the tool (SPEC GRANT-1, GRANT-2).
const AnyPrincipal = "*"

// An Effect is what a deciding row does: Allow or Deny.
type Effect string

// The two effects. Any other value makes a row malformed.
const (
	Allow Effect = "allow"
	Deny  Effect = "deny"
)

// A Row grants or denies one tool to one principal (SPEC GRANT-1).
type Row struct {
	Principal string   // principal ID, or AnyPrincipal
	Tool      string   // exact tool name
	Scopes    []string // every scope the caller must hold for an Allow row to grant
	Effect    Effect
	Revision  int64 // >= 1; bumped by every change of the row (GRANT-4)
}

// A Principal is the authenticated caller as the host knows it. The library never
// authenticates; it only reads these.
type Principal struct {
	ID     string
	Scopes []string
}

// A Snapshot is one consistent read of a principal's applicable rows and the control
// revision. Readers return a new or shared Snapshot that nobody modifies afterwards.
type Snapshot struct {
	// Revision is the control revision ("model_grants") read with the rows, or 0 when
	// the reader keeps none or could not confirm it.
	Revision int64
	// Rows are the principal's rows and the AnyPrincipal rows, in any order.
	Rows []Row
}

// A Reader reads grant rows. Implementations must be safe for concurrent use, honour
// ctx, and return an error (never an empty Snapshot) when storage cannot answer.
//
// The errors a Reader returns are ErrUnavailable (possibly also wrapping the context's
// error when ctx ended), ErrTooManyRows or a *MalformedError, matched with errors.Is;
// their text never contains storage text. A caller fails closed on any of them.
type Reader interface {
	// ReadGrants returns the rows applicable to principalID: its own rows and the
	// AnyPrincipal rows. More than MaxRows answers ErrTooManyRows.
	ReadGrants(ctx context.Context, principalID string) (*Snapshot, error)
}

// A Store is a Reader that also changes rows. Every change increments the row's
// revision and the control revision in one step (SPEC GRANT-4).
type Store interface {
	Reader
	// Put inserts or replaces the row keyed by (Principal, Tool) and returns it as
	// stored, with its new Revision (the given Revision is ignored).
	Put(ctx context.Context, r Row) (Row, error)
	// Delete removes the row keyed by (principal, tool). Deleting a missing row is not
	// an error and changes nothing.
	Delete(ctx context.Context, principal, tool string) error
}

var (
	// ErrUnavailable reports that grant storage could not be read (or its table is
	// missing). Wrapping errors carry no storage text.
	ErrUnavailable = errors.New("grants: storage unavailable")
	// ErrTooManyRows reports more than MaxRows applicable rows.
	ErrTooManyRows = errors.New("grants: too many applicable rows")
	// ErrMalformed reports a row that breaks the row model; see MalformedError.
	ErrMalformed = errors.New("grants: malformed row")
)

// A MalformedError says which rule a row broke, never its content.
type MalformedError struct {
	Reason string // "principal", "tool", "effect", "scope", "revision", "duplicate"
}

func (e *MalformedError) Error() string { return "grants: malformed row: " + e.Reason }
func (e *MalformedError) Unwrap() error { return ErrMalformed }

// The reasons a MalformedError gives; one allocation each, shared.
var (
	errPrincipal = &MalformedError{Reason: "principal"}
	errTool      = &MalformedError{Reason: "tool"}
	errEffect    = &MalformedError{Reason: "effect"}
	errScope     = &MalformedError{Reason: "scope"}
	errRevision  = &MalformedError{Reason: "revision"}
	errDuplicate = &MalformedError{Reason: "duplicate"}
)

// CheckRow reports a *MalformedError when r breaks the row model: an empty principal or
// tool, an effect other than Allow or Deny, a scope that is not a scope-token (or appears
// twice), or a revision below 1.
func CheckRow(r Row) error {
	if err := checkRowNoScopes(&r); err != nil {
		return err
	}
	if !validScopes(r.Scopes) {
		return errScope
	}
	return nil
}

// checkRowNoScopes is CheckRow but for the scopes, which Resolve checks on its own.
func checkRowNoScopes(r *Row) error {
	switch {
	case r.Principal == "":
		return errPrincipal
	case r.Tool == "":
		return errTool
	case r.Effect != Allow && r.Effect != Deny:
		return errEffect
	case r.Revision < 1:
		return errRevision
	}
	return nil
}

// ValidScope reports whether s is an RFC 6749 scope-token: non-empty, printable ASCII
// without space, '"' or '\'. Such tokens can be joined with single spaces and split back
// without ambiguity.
func ValidScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !scopeChar[s[i]] {
			return false
		}
	}
	return true
}

// scopeChar reports which bytes a scope-token may hold.
var scopeChar = func() (t [256]bool) {
	for c := 0x21; c <= 0x7e; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// validScopes reports whether every scope is valid and none repeats.
func validScopes(scopes []string) bool {
	for i, s := range scopes {
		if !ValidScope(s) {
			return false
		}
		for _, t := range scopes[:i] {
			if s == t {
				return false
			}
		}
	}
	return true
}

// The state of one tool in a Decision.
const (
	ownSeen  uint8 = 1 << iota // the principal has a row for the tool
	ownGrant                   // that row grants
	anySeen                    // AnyPrincipal has a row for the tool
	anyGrant                   // that row grants
)

// granted reports whether state s grants its tool (SPEC GRANT-2): the principal's row
// decides if it exists, else the AnyPrincipal row, else deny.
func granted(s uint8) bool {
	if s&ownSeen != 0 {
		return s&ownGrant != 0
	}
	return s&anyGrant != 0
}

// A Decision is the outcome of GRANT-2 for one principal over one Snapshot.
// It is immutable and safe for concurrent use.
//
// It is an open-addressing hash table (linear probing, at most half full) of packed
// 4-byte slots, from tool name to state: one hash and a probe in a small flat array per
// row keep Resolve over MaxRows rows within PERF-5's 200 µs.
type Decision struct {
	rows  []Row    // the Snapshot's rows, never modified; slots index them
	slots []uint32 // len is a power of two, or 0; see Resolve
	seed  uint64   // random, per Decision: see toolHash
}

// A slot packs, from the low bits: the tool's state (4 bits, never 0 once a row is
// recorded), the index of the tool's first row in rows (12 bits; MaxRows fits) and the
// top 16 bits of the tool's hash. 0 is an empty slot.
const (
	slotState = 0xf
	rowBits   = 12
)

// Every row index must fit in rowBits: this fails to compile if MaxRows outgrows it.
const _ = uint(1<<rowBits - MaxRows)

func slotRow(sl uint32) int { return int(sl>>4) & (1<<rowBits - 1) }

// newDecision returns an empty table over rows sized for len(rows) tools.
func newDecision(rows []Row) *Decision {
	d := &Decision{rows: rows, seed: rand.Uint64()}
	if n := len(rows); n > 0 {
		d.slots = make([]uint32, 1<<bits.Len(uint(2*n-1)))
	}
	return d
}

// Constants of toolHash: odd 64-bit numbers with well mixed bits.
const (
	hashK0 = 0xa0761d6478bd642f
	hashK1 = 0xe7037ed1a0b428db
	hashK2 = 0x8ebc6af09c88c6e3
	hashK3 = 0x589965cc75374cc3
)

// mix multiplies a by b to 128 bits and folds the halves: the step of toolHash.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashWords hashes a string of n bytes, 8 <= n <= 32, from the four eight-byte words at
// offsets 0, q, n-8-q and n-8 with q = (n-6)/3 (at most 8, and n-8-2q <= 8), which
// together cover it.
func hashWords(w0, w1, w2, w3 uint64, n int, seed uint64) uint64 {
	h := mix(w0^seed^hashK0, w1^hashK1) ^ mix(w2^seed^hashK2, w3^hashK3)
	return mix(h^uint64(n), seed^hashK1)
}

// toolHash hashes a tool name with a Decision's random seed. Names of 8 to 32 bytes,
// the common case, take four loads and three multiplications (indexFast inlines that
// path); the seed keeps the table's layout unpredictable. Whatever the hash, a probe
// compares names before it matches, so collisions cost time, never correctness.
func toolHash(s string, seed uint64) uint64 {
	n := len(s)
	if n >= 8 && n <= 32 {
		q := (n - 6) / 3
		return hashWords(load64(s), load64(s[q:]), load64(s[n-8-q:]), load64(s[n-8:]), n, seed)
	}
	h := seed ^ hashK2
	for len(s) >= 16 {
		h = mix(load64(s)^h^hashK0, load64(s[8:])^hashK1)
		s = s[16:]
	}
	var a, b uint64
	switch m := len(s); {
	case m >= 8:
		a, b = load64(s), load64(s[m-8:])
	case m >= 4:
		a, b = uint64(load32(s)), uint64(load32(s[m-4:]))
	case m > 0:
		a = uint64(s[0])<<16 | uint64(s[m/2])<<8 | uint64(s[m-1])
	}
	return mix(mix(a^h^hashK3, b^hashK1)^uint64(n), seed^hashK0)
}

// Resolve checks every row of snap (GRANT-5: count, model, duplicate keys) and decides
// for p (GRANT-2). Any check failing answers an error and no Decision: fail closed.
//
// A nil snap answers ErrUnavailable, more than MaxRows rows ErrTooManyRows, and a
// negative snap.Revision, a row that fails CheckRow, a row of another principal or two
// rows with the same key a *MalformedError. The revision itself is not judged here: a
// caller that needs a confirmed revision checks snap.Revision >= 1 (SPEC CURSOR-5).
// The Decision keeps snap.Rows, which nobody may modify afterwards.
//
// For PERF-5 (4,096 rows in under 200 µs), each row's scopes are checked eight bytes at
// a time and looked up by fingerprint in a table where each of the principal's scopes
// has a slot of its own, and its tool name is hashed once into the Decision's table,
// whose probe also finds duplicate keys. The common case (at most two scopes of 8 to
// 16 bytes, a principal ID of at most 16 bytes, a tool name of 8 to 32 bytes) runs
// without a function call; nothing is allocated per row.
func Resolve(snap *Snapshot, p Principal) (*Decision, error) {
	if snap == nil {
		return nil, ErrUnavailable
	}
	rows := snap.Rows
	if len(rows) > MaxRows {
		return nil, ErrTooManyRows
	}
	if snap.Revision < 0 {
		return nil, errRevision
	}
	// Two passes: the first checks and decides each row into states, the second
	// indexes the tools and finds duplicate keys. When the first stops at a bad row,
	// the second still runs over the rows before it, so the error is the first bad
	// row's, as with one pass.
	var states [MaxRows]uint8
	good, err := decideRows(rows, p, states[:len(rows)])
	d := newDecision(rows)
	if err := d.index(good, states[:good]); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// The loops below have a fast path free of function calls, so that the compiler keeps
// their values in registers; a row off that path (a long or short name or scope, more
// than two scopes, a long principal ID) leaves the loop, is handled by a general
// function, and the loop resumes after it.

// index records the first n rows, whose states are given, in d's table, and reports
// errDuplicate at the first row whose key an earlier row has.
func (d *Decision) index(n int, states []uint8) error {
	for i := 0; i < n; i++ {
		var err error
		if i, err = d.indexFast(i, n, states); err != nil || i == n {
			return err
		}
		if err := d.indexRow(i, states[i]); err != nil {
			return err
		}
	}
	return nil
}

// indexFast records rows from i on while their tool names are 8 to 32 bytes long, and
// answers where it stopped: n, or the row it left to indexRow.
func (d *Decision) indexFast(i, n int, states []uint8) (int, error) {
	rows, slots, seed := d.rows[:n], d.slots, d.seed
	mask := uint64(len(slots) - 1)
	for ; i < len(rows); i++ {
		tool := rows[i].Tool
		m := len(tool)
		if m < 8 || m > 32 {
			return i, nil
		}
		q := (m - 6) / 3 // as toolHash
		w0, w1, w2, w3 := load64(tool), load64(tool[q:]), load64(tool[m-8-q:]), load64(tool[m-8:])
		h := hashWords(w0, w1, w2, w3, m, seed)
		st := uint32(states[i])
		tag := uint32(h>>48) << 16
		for j := h & mask; ; j = (j + 1) & mask {
			sl := slots[j]
			if sl == 0 {
				slots[j] = tag | uint32(i)<<4 | st
				break
			}
			if sl&^0xffff != tag {
				continue
			}
			// The same name: the same length, and the four words that cover it.
			if t := rows[slotRow(sl)].Tool; len(t) == m && load64(t) == w0 && load64(t[q:]) == w1 &&
				load64(t[m-8-q:]) == w2 && load64(t[m-8:]) == w3 {
				if sl&st&uint32(ownSeen|anySeen) != 0 {
					return i, errDuplicate
				}
				slots[j] = sl | st
				break
			}
		}
	}
	return len(rows), nil
}

// indexRow records row i, of any tool name, with state st.
func (d *Decision) indexRow(i int, st uint8) error {
	tool := d.rows[i].Tool
	h := toolHash(tool, d.seed)
	mask := uint64(len(d.slots) - 1)
	tag := uint32(h>>48) << 16
	for j := h & mask; ; j = (j + 1) & mask {
		sl := d.slots[j]
		if sl == 0 {
			d.slots[j] = tag | uint32(i)<<4 | uint32(st)
			return nil
		}
		if sl&^0xffff == tag && d.rows[slotRow(sl)].Tool == tool {
			if uint8(sl)&st&(ownSeen|anySeen) != 0 {
				return errDuplicate
			}
			d.slots[j] = sl | uint32(st)
			return nil
		}
	}
}

// decideRows checks each row but for duplicate keys and writes its state into
// states[i]: ownSeen or anySeen, with ownGrant or anyGrant when it grants p. It answers
// how many rows passed before the first that did not, with that row's error (rules
// checked in CheckRow's order, then the scopes, then the principal), or len(rows) and
// nil.
func decideRows(rows []Row, p Principal, states []uint8) (good int, err error) {
	var holds *scopeSet // for decideRow, built when first needed
	f := fastDecider{idLen: len(p.ID)}
	f.direct, f.mul, f.shift, f.scoped = directTable(p.Scopes)
	if f.idLen >= 1 && f.idLen <= 16 {
		f.ida, f.idb, _ = fingerprint(p.ID)
	} else {
		f.idLen = -1 // every own row takes decideRow
	}
	for i := 0; i < len(rows); i++ {
		if i, err = f.run(rows, states, i); err != nil || i == len(rows) {
			return i, err
		}
		if holds == nil {
			h := newScopeSet(p.Scopes)
			holds = &h
		}
		st, err := decideRow(&rows[i], p, holds)
		if err != nil {
			return i, err
		}
		states[i] = st
	}
	return len(rows), nil
}

// decideRow checks and decides one row of any shape.
func decideRow(r *Row, p Principal, holds *scopeSet) (uint8, error) {
	if err := checkRowNoScopes(r); err != nil {
		return 0, err
	}
	valid, held := holds.check(r.Scopes)
	if !valid {
		return 0, errScope
	}
	var seen, grant uint8
	switch r.Principal {
	case AnyPrincipal:
		seen, grant = anySeen, anyGrant
	case p.ID:
		seen, grant = ownSeen, ownGrant
	default:
		return 0, errPrincipal
	}
	if r.Effect != Allow || !held {
		grant = 0
	}
	return seen | grant, nil
}

// fastDecider is what decideRows' fast path needs: the held scopes' table and the
// principal ID's fingerprint.
type fastDecider struct {
	direct   []scopeKey // see directTable
	mul      uint64
	shift    uint
	scoped   bool // direct holds the principal's scopes: rows with scopes may take the fast path
	idLen    int  // len(p.ID) when 1 to 16, else -1
	ida, idb uint64
}

// A scopeKey is the fingerprint of a scope of 8 to 16 bytes: the whole scope. n == 0
// is an empty entry.
type scopeKey struct {
	a, b uint64
	n    int
}

// directMuls are the multipliers directTable tries.
var directMuls = [...]uint64{0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9, 0xd6e8feb86659fd93}

// maxDirect bounds the entries of a direct table (24 KiB).
const maxDirect = 1 << 10

// directTable returns a table holding each of the principal's valid scopes of 8 to 16
// bytes in its own slot, slot (a^rotl(b,31)^n)*mul >> shift, so that a lookup compares
// one entry and never probes. It tries table sizes of 4 to 32 times the number of such
// scopes (at most maxDirect entries) with a few multipliers; ok is false when none
// fits, which takes more than a couple of hundred such scopes. With no such scope, t
// is empty and ok true.
func directTable(scopes []string) (t []scopeKey, mul uint64, shift uint, ok bool) {
	keys := make([]scopeKey, 0, len(scopes)) // repeats included
	for _, s := range scopes {
		if n := len(s); n >= 8 && n <= 16 && ValidScope(s) {
			keys = append(keys, scopeKey{load64(s), load64(s[n-8:]), n})
		}
	}
	if len(keys) == 0 {
		return nil, 0, 0, true
	}
	lg0 := bits.Len(uint(4*len(keys) - 1))
	var used [maxDirect / 64]uint64 // the slots taken, for the search
	for lg := lg0; lg <= lg0+3 && 1<<lg <= maxDirect; lg++ {
	search:
		for _, m := range directMuls {
			clear(used[:])
			for i, k := range keys {
				j := directSlot(k.a, k.b, k.n, m, uint(64-lg))
				if used[j/64]&(1<<(j%64)) != 0 && !slices.Contains(keys[:i], k) {
					continue search // another scope has this slot
				}
				used[j/64] |= 1 << (j % 64)
			}
			t = make([]scopeKey, 1<<lg)
			for _, k := range keys {
				t[directSlot(k.a, k.b, k.n, m, uint(64-lg))] = k
			}
			return t, m, uint(64 - lg), true
		}
	}
	return nil, 0, 0, false
}

func directSlot(a, b uint64, n int, mul uint64, shift uint) int {
	return int((a ^ bits.RotateLeft64(b, 31) ^ uint64(n)) * mul >> shift)
}

// run decides rows from i on while they take the fast path: at most two scopes of 8 to
// 16 bytes each, a principal "*" or p's ID of at most 16 bytes. It answers where it
// stopped: len(rows), a bad row with its error, or a row it left to decideRow.
func (f *fastDecider) run(rows []Row, states []uint8, i int) (int, error) {
	direct, mul, shift, scoped := f.direct, f.mul, f.shift, f.scoped
	states = states[:len(rows)]
	for ; i < len(rows); i++ {
		r := &rows[i]
		if err := checkRowNoScopes(r); err != nil {
			return i, err
		}

		// Scopes: valid, none twice, and whether p holds them all.
		need := r.Scopes
		if len(need) > 2 || len(need) > 0 && !scoped {
			return i, nil
		}
		held := true
		var a0, b0 uint64
		for k, s := range need {
			n := len(s)
			if n < 8 || n > 16 {
				return i, nil
			}
			a, b := load64(s), load64(s[n-8:]) // together they cover s
			st := scopeLacked
			if len(direct) > 0 {
				if e := &direct[directSlot(a, b, n, mul, shift)]; e.a == a && e.b == b && e.n == n {
					st = scopeHeld
				}
			}
			if st != scopeHeld && badBytes(a)|badBytes(b) != 0 {
				return i, errScope
			}
			if k == 1 && a == a0 && b == b0 && n == len(need[0]) {
				return i, errScope // the same scope twice
			}
			a0, b0 = a, b
			held = held && st == scopeHeld
		}

		// The principal: "*" or p's ID, compared by fingerprint.
		var seen, grant uint8
		if pr := r.Principal; pr == AnyPrincipal {
			seen, grant = anySeen, anyGrant
		} else {
			n := len(pr)
			if n != f.idLen {
				if f.idLen < 0 {
					return i, nil
				}
				return i, errPrincipal
			}
			var a, b uint64
			switch {
			case n >= 8:
				a, b = load64(pr), load64(pr[n-8:])
			case n >= 4:
				a = uint64(load32(pr)) | uint64(load32(pr[n-4:]))<<(8*(n-4))
			default:
				a = uint64(pr[0]) | uint64(pr[n/2])<<(8*(n/2)) | uint64(pr[n-1])<<(8*(n-1))
			}
			if a != f.ida || b != f.idb {
				return i, errPrincipal
			}
			seen, grant = ownSeen, ownGrant
		}
		if r.Effect != Allow || !held {
			grant = 0
		}
		states[i] = seen | grant
	}
	return len(rows), nil
}

// Allows reports whether the decision grants tool.
func (d *Decision) Allows(tool string) bool {
	if d == nil || len(d.slots) == 0 {
		return false
	}
	h := toolHash(tool, d.seed)
	mask := uint64(len(d.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		sl := d.slots[j]
		if sl == 0 {
			return false
		}
		if sl>>16 == uint32(h>>48) && d.rows[slotRow(sl)].Tool == tool {
			return granted(uint8(sl) & slotState)
		}
	}
}

// Granted yields each granted tool name once, in no particular order.
func (d *Decision) Granted() iter.Seq[string] {
	return func(yield func(string) bool) {
		if d == nil {
			return
		}
		for _, sl := range d.slots {
			if sl != 0 && granted(uint8(sl)&slotState) && !yield(d.rows[slotRow(sl)].Tool) {
				return
			}
		}
	}
}

// A scopeSet answers membership in a principal's valid scopes. It is a small
// open-addressing table of scope fingerprints: a scope's length with its first and last
// eight bytes, which for scopes of up to 16 bytes (most of them) is the whole scope, so
// a lookup compares three integers and no bytes. Invalid scopes are left out: no valid
// row scope can equal one.
type scopeSet struct {
	table []scopeEntry // len is a power of two, at most a quarter full; n == 0 is empty
	shift uint         // 64 - log2(len(table))
}

type scopeEntry struct {
	a, b uint64 // first and last eight bytes (zero-padded when shorter)
	n    int    // length, >= 1
	s    string
}

// fingerprint returns s's first and last eight bytes, zero-padded, and whether s is a
// valid scope-token (ValidScope). s must not be empty.
func fingerprint(s string) (a, b uint64, valid bool) {
	n := len(s)
	switch {
	case n > 16:
		return load64(s), load64(s[n-8:]), ValidScope(s)
	case n >= 8:
		a, b = load64(s), load64(s[n-8:])
		return a, b, tokenWord(a) && tokenWord(b) // the two words cover every byte
	case n >= 4:
		// Two overlapping four-byte loads; the bytes they share are the same.
		a = uint64(load32(s)) | uint64(load32(s[n-4:]))<<(8*(n-4))
	default:
		a = uint64(s[0]) | uint64(s[n/2])<<(8*(n/2)) | uint64(s[n-1])<<(8*(n-1))
	}
	// Pad with a valid byte ('a') to test the word.
	return a, 0, tokenWord(a | 0x6161616161616161&^(1<<(8*n)-1))
}

func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func load32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// Word-at-a-time byte tests: lsb and msb have the low and the high bit of every byte.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// tokenWord reports whether every byte of x is a scope-token character (scopeChar):
// 0x21 to 0x7e, except '"' and '\\'.
func tokenWord(x uint64) bool { return badBytes(x) == 0 }

// badBytes tests the eight bytes of x at once, without a branch, and answers non-zero
// when one is not a scope-token character: a byte with the high bit set, below 0x21, or
// equal to 0x7f, '"' or '\\'. (Each term below is exact for "some byte is ..." once
// no high bit is set, and a set high bit makes the answer non-zero anyway.)
func badBytes(x uint64) uint64 {
	v1, v2, v3 := x^0x7f*lsb, x^'"'*lsb, x^'\\'*lsb
	return (x | (x-0x21*lsb)&^x | (v1-lsb)&^v1 | (v2-lsb)&^v2 | (v3-lsb)&^v3) & msb
}

func newScopeSet(scopes []string) scopeSet {
	n := 0
	for _, s := range scopes {
		if ValidScope(s) {
			n++
		}
	}
	if n == 0 {
		return scopeSet{}
	}
	bitsN := bits.Len(uint(4*n - 1)) // at most a quarter full: a miss probes little
	h := scopeSet{table: make([]scopeEntry, 1<<bitsN), shift: uint(64 - bitsN)}
	mask := len(h.table) - 1
	for _, s := range scopes {
		if !ValidScope(s) {
			continue
		}
		a, b, _ := fingerprint(s)
		for j := h.slot(a, b, len(s)); ; j = (j + 1) & mask {
			e := &h.table[j]
			if e.n == 0 {
				*e = scopeEntry{a: a, b: b, n: len(s), s: s}
				break
			}
			if e.a == a && e.b == b && e.n == len(s) && (len(s) <= 16 || e.s == s) {
				break // held twice
			}
		}
	}
	return h
}

// slot returns where the probe for a fingerprint starts.
func (h *scopeSet) slot(a, b uint64, n int) int { return scopeSlot(a, b, n, h.shift) }

// scopeSlot returns where the probe for a fingerprint starts in a table of 1<<(64-shift)
// entries: a multiplicative hash. The table only ever holds one principal's scopes, so
// collisions cost little.
func scopeSlot(a, b uint64, n int, shift uint) int {
	x := (a ^ bits.RotateLeft64(b, 31) ^ uint64(n)) * 0x9e3779b97f4a7c15
	return int(x >> shift)
}

// maxFingerprints is how many scopes of one row check compares by fingerprint for
// repeats; any further scope is compared byte by byte.
const maxFingerprints = 8

// The states find answers for a scope.
const (
	scopeInvalid = iota // not a scope-token
	scopeLacked         // a valid scope the principal does not hold
	scopeHeld           // a scope the principal holds
)

// find returns s's fingerprint and state. A scope the table holds is valid (only valid
// scopes are held), so only lacked scopes are checked for validity; scopes of 8 to 16
// bytes, the common case, take a path with no byte loop.
func (h *scopeSet) find(s string) (a, b uint64, state int) {
	n := len(s)
	short := n >= 8 && n <= 16
	if short {
		a, b = load64(s), load64(s[n-8:])
	} else {
		if n == 0 {
			return 0, 0, scopeInvalid
		}
		var ok bool
		if a, b, ok = fingerprint(s); !ok {
			return a, b, scopeInvalid
		}
	}
	if table := h.table; len(table) > 0 {
		mask := len(table) - 1
		for j := h.slot(a, b, n); ; j = (j + 1) & mask {
			e := &table[j]
			if e.n == 0 {
				break
			}
			if e.a == a && e.b == b && e.n == n && (n <= 16 || e.s == s) {
				return a, b, scopeHeld
			}
		}
	}
	if short && badBytes(a)|badBytes(b) != 0 { // the two words cover every byte
		return a, b, scopeInvalid
	}
	return a, b, scopeLacked
}

// sameScope reports whether scopes s and t, with fingerprints (a, b) and (c, d), are
// equal: fingerprints settle it up to 16 bytes.
func sameScope(s, t string, a, b, c, d uint64) bool {
	return a == c && b == d && len(s) == len(t) && (len(s) <= 16 || s == t)
}

// check reports whether need is a valid scope set (valid tokens, none twice) and, if
// so, whether the principal holds all of it. Rows of one or two scopes, the common
// case, take a straight path.
func (h *scopeSet) check(need []string) (valid, held bool) {
	switch len(need) {
	case 0:
		return true, true
	case 1:
		_, _, st := h.find(need[0])
		return st != scopeInvalid, st == scopeHeld
	case 2:
		a, b, st0 := h.find(need[0])
		if st0 == scopeInvalid {
			return false, false
		}
		c, d, st1 := h.find(need[1])
		if st1 == scopeInvalid || sameScope(need[0], need[1], a, b, c, d) {
			return false, false
		}
		return true, st0 == scopeHeld && st1 == scopeHeld
	}
	held = true
	var fa, fb [maxFingerprints]uint64
	for i, s := range need {
		a, b, st := h.find(s)
		if st == scopeInvalid {
			return false, false
		}
		held = held && st == scopeHeld
		// A repeat: by fingerprint for the first maxFingerprints scopes, then by bytes.
		if i < maxFingerprints {
			for k := range i {
				if sameScope(s, need[k], a, b, fa[k], fb[k]) {
					return false, false
				}
			}
			fa[i], fb[i] = a, b
		} else if slices.Contains(need[:i], s) {
			return false, false
		}
	}
	return true, held
}
