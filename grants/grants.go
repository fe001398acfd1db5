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
	"hash/maphash"
	"iter"
	"math/bits"
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
	slots []uint32 // len is a power of two, or 0; see slotOf
	seed  maphash.Seed
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

func slotOf(hash uint64, row int, state uint8) uint32 {
	return uint32(hash>>48)<<16 | uint32(row)<<4 | uint32(state)
}

func slotRow(sl uint32) int { return int(sl>>4) & (1<<rowBits - 1) }

// newDecision returns an empty table over rows sized for len(rows) tools.
func newDecision(rows []Row) *Decision {
	d := &Decision{rows: rows, seed: maphash.MakeSeed()}
	if n := len(rows); n > 0 {
		d.slots = make([]uint32, 1<<bits.Len(uint(2*n-1)))
	}
	return d
}

// add records that row i (for tool) is of the given kind (seen, plus grant when it
// grants), and reports false when a row of that kind was already recorded for the tool:
// a duplicate key.
func (d *Decision) add(i int, tool string, seen, grant uint8) bool {
	h := maphash.String(d.seed, tool)
	mask := uint64(len(d.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		sl := d.slots[j]
		if sl == 0 {
			d.slots[j] = slotOf(h, i, seen|grant)
			return true
		}
		if sl>>16 == uint32(h>>48) && d.rows[slotRow(sl)].Tool == tool {
			if uint8(sl)&seen != 0 {
				return false
			}
			d.slots[j] = sl | uint32(seen|grant)
			return true
		}
	}
}

// Resolve checks every row of snap (GRANT-5: count, model, duplicate keys) and decides
// for p (GRANT-2). Any check failing answers an error and no Decision: fail closed.
//
// A nil snap answers ErrUnavailable, more than MaxRows rows ErrTooManyRows, and a
// negative snap.Revision, a row that fails CheckRow, a row of another principal or two
// rows with the same key a *MalformedError. The revision itself is not judged here: a
// caller that needs a confirmed revision checks snap.Revision >= 1 (SPEC CURSOR-5).
// The Decision keeps snap.Rows, which nobody may modify afterwards.
func Resolve(snap *Snapshot, p Principal) (*Decision, error) {
	if snap == nil {
		return nil, ErrUnavailable
	}
	if len(snap.Rows) > MaxRows {
		return nil, ErrTooManyRows
	}
	if snap.Revision < 0 {
		return nil, errRevision
	}
	holds := newScopeSet(p.Scopes)
	d := newDecision(snap.Rows)
	for i := range snap.Rows {
		r := &snap.Rows[i]
		if err := checkRowNoScopes(r); err != nil {
			return nil, err
		}
		valid, held := holds.check(r.Scopes)
		if !valid {
			return nil, errScope
		}
		var seen, grant uint8
		switch r.Principal {
		case AnyPrincipal:
			seen = anySeen
			if r.Effect == Allow && held {
				grant = anyGrant
			}
		case p.ID:
			seen = ownSeen
			if r.Effect == Allow && held {
				grant = ownGrant
			}
		default:
			return nil, errPrincipal
		}
		if !d.add(i, r.Tool, seen, grant) {
			return nil, errDuplicate
		}
	}
	return d, nil
}

// Allows reports whether the decision grants tool.
func (d *Decision) Allows(tool string) bool {
	if d == nil || len(d.slots) == 0 {
		return false
	}
	h := maphash.String(d.seed, tool)
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
	table []scopeEntry // len is a power of two, at most half full; n == 0 is empty
	shift uint         // 64 - log2(len(table))
}

type scopeEntry struct {
	a, b uint64 // first and last eight bytes (zero-padded when shorter)
	n    int    // length, >= 1
	s    string
}

// fingerprint returns s's first and last eight bytes, zero-padded.
func fingerprint(s string) (a, b uint64) {
	switch {
	case len(s) >= 8:
		return load64(s), load64(s[len(s)-8:])
	default:
		for i := len(s) - 1; i >= 0; i-- {
			a = a<<8 | uint64(s[i])
		}
		return a, 0
	}
}

func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
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
	bitsN := bits.Len(uint(2*n - 1))
	h := scopeSet{table: make([]scopeEntry, 1<<bitsN), shift: uint(64 - bitsN)}
	mask := len(h.table) - 1
	for _, s := range scopes {
		if !ValidScope(s) {
			continue
		}
		a, b := fingerprint(s)
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

// slot returns where the probe for a fingerprint starts: a multiplicative hash. The
// table only ever holds one principal's scopes, so collisions cost little.
func (h scopeSet) slot(a, b uint64, n int) int {
	x := (a*0x9e3779b97f4a7c15 ^ b ^ uint64(n)) * 0xc2b2ae3d27d4eb4f
	return int(x >> h.shift)
}

// check reports whether need is a valid scope set (valid tokens, none twice) and, if
// so, whether the principal holds all of it. A held scope is valid, so only scopes the
// principal lacks are checked byte by byte.
func (h scopeSet) check(need []string) (valid, held bool) {
	held = true
	for i, s := range need {
		if !h.has(s) {
			if !ValidScope(s) {
				return false, false
			}
			held = false
		}
		for _, t := range need[:i] {
			if s == t {
				return false, false
			}
		}
	}
	return true, held
}

func (h scopeSet) has(s string) bool {
	if len(h.table) == 0 || s == "" {
		return false
	}
	a, b := fingerprint(s)
	mask := len(h.table) - 1
	for j := h.slot(a, b, len(s)); ; j = (j + 1) & mask {
		e := &h.table[j]
		if e.n == 0 {
			return false
		}
		if e.a == a && e.b == b && e.n == len(s) && (len(s) <= 16 || e.s == s) {
			return true
		}
	}
}
