package grants

// This file keeps the implementation of Resolve before the PERF-5 rewrite, as
// resolveOld, for the side-by-side benchmark BenchmarkResolveOld and the equivalence
// test TestResolveMatchesOld.

import (
	"fmt"
	"hash/maphash"
	"iter"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// A oldDecision is the outcome of GRANT-2 for one principal over one Snapshot.
// It is immutable and safe for concurrent use.
//
// It is an open-addressing hash table (linear probing, at most half full) of packed
// 4-byte slots, from tool name to state: one hash and a probe in a small flat array per
// row keep resolveOld over MaxRows rows within PERF-5's 200 µs.
type oldDecision struct {
	rows  []Row    // the Snapshot's rows, never modified; slots index them
	slots []uint32 // len is a power of two, or 0; see oldSlotOf
	seed  maphash.Seed
}

func oldSlotOf(hash uint64, row int, state uint8) uint32 {
	return uint32(hash>>48)<<16 | uint32(row)<<4 | uint32(state)
}

func oldSlotRow(sl uint32) int { return int(sl>>4) & (1<<rowBits - 1) }

// newOldDecision returns an empty table over rows sized for len(rows) tools.
func newOldDecision(rows []Row) *oldDecision {
	d := &oldDecision{rows: rows, seed: maphash.MakeSeed()}
	if n := len(rows); n > 0 {
		d.slots = make([]uint32, 1<<bits.Len(uint(2*n-1)))
	}
	return d
}

// add records that row i (for tool) is of the given kind (seen, plus grant when it
// grants), and reports false when a row of that kind was already recorded for the tool:
// a duplicate key.
func (d *oldDecision) add(i int, tool string, seen, grant uint8) bool {
	h := maphash.String(d.seed, tool)
	mask := uint64(len(d.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		sl := d.slots[j]
		if sl == 0 {
			d.slots[j] = oldSlotOf(h, i, seen|grant)
			return true
		}
		if sl>>16 == uint32(h>>48) && d.rows[oldSlotRow(sl)].Tool == tool {
			if uint8(sl)&seen != 0 {
				return false
			}
			d.slots[j] = sl | uint32(seen|grant)
			return true
		}
	}
}

// resolveOld checks every row of snap (GRANT-5: count, model, duplicate keys) and decides
// for p (GRANT-2). Any check failing answers an error and no oldDecision: fail closed.
//
// A nil snap answers ErrUnavailable, more than MaxRows rows ErrTooManyRows, and a
// negative snap.Revision, a row that fails CheckRow, a row of another principal or two
// rows with the same key a *MalformedError. The revision itself is not judged here: a
// caller that needs a confirmed revision checks snap.Revision >= 1 (SPEC CURSOR-5).
// The oldDecision keeps snap.Rows, which nobody may modify afterwards.
func resolveOld(snap *Snapshot, p Principal) (*oldDecision, error) {
	if snap == nil {
		return nil, ErrUnavailable
	}
	if len(snap.Rows) > MaxRows {
		return nil, ErrTooManyRows
	}
	if snap.Revision < 0 {
		return nil, errRevision
	}
	holds := newOldScopeSet(p.Scopes)
	d := newOldDecision(snap.Rows)
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
func (d *oldDecision) Allows(tool string) bool {
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
		if sl>>16 == uint32(h>>48) && d.rows[oldSlotRow(sl)].Tool == tool {
			return granted(uint8(sl) & slotState)
		}
	}
}

// Granted yields each granted tool name once, in no particular order.
func (d *oldDecision) Granted() iter.Seq[string] {
	return func(yield func(string) bool) {
		if d == nil {
			return
		}
		for _, sl := range d.slots {
			if sl != 0 && granted(uint8(sl)&slotState) && !yield(d.rows[oldSlotRow(sl)].Tool) {
				return
			}
		}
	}
}

// A oldScopeSet answers membership in a principal's valid scopes. It is a small
// open-addressing table of scope fingerprints: a scope's length with its first and last
// eight bytes, which for scopes of up to 16 bytes (most of them) is the whole scope, so
// a lookup compares three integers and no bytes. Invalid scopes are left out: no valid
// row scope can equal one.
type oldScopeSet struct {
	table []oldScopeEntry // len is a power of two, at most half full; n == 0 is empty
	shift uint            // 64 - log2(len(table))
}

type oldScopeEntry struct {
	a, b uint64 // first and last eight bytes (zero-padded when shorter)
	n    int    // length, >= 1
	s    string
}

// oldFingerprint returns s's first and last eight bytes, zero-padded.
func oldFingerprint(s string) (a, b uint64) {
	switch {
	case len(s) >= 8:
		return oldLoad64(s), oldLoad64(s[len(s)-8:])
	default:
		for i := len(s) - 1; i >= 0; i-- {
			a = a<<8 | uint64(s[i])
		}
		return a, 0
	}
}

func oldLoad64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func newOldScopeSet(scopes []string) oldScopeSet {
	n := 0
	for _, s := range scopes {
		if ValidScope(s) {
			n++
		}
	}
	if n == 0 {
		return oldScopeSet{}
	}
	bitsN := bits.Len(uint(2*n - 1))
	h := oldScopeSet{table: make([]oldScopeEntry, 1<<bitsN), shift: uint(64 - bitsN)}
	mask := len(h.table) - 1
	for _, s := range scopes {
		if !ValidScope(s) {
			continue
		}
		a, b := oldFingerprint(s)
		for j := h.slot(a, b, len(s)); ; j = (j + 1) & mask {
			e := &h.table[j]
			if e.n == 0 {
				*e = oldScopeEntry{a: a, b: b, n: len(s), s: s}
				break
			}
			if e.a == a && e.b == b && e.n == len(s) && (len(s) <= 16 || e.s == s) {
				break // held twice
			}
		}
	}
	return h
}

// slot returns where the probe for a oldFingerprint starts: a multiplicative hash. The
// table only ever holds one principal's scopes, so collisions cost little.
func (h oldScopeSet) slot(a, b uint64, n int) int {
	x := (a*0x9e3779b97f4a7c15 ^ b ^ uint64(n)) * 0xc2b2ae3d27d4eb4f
	return int(x >> h.shift)
}

// check reports whether need is a valid scope set (valid tokens, none twice) and, if
// so, whether the principal holds all of it. A held scope is valid, so only scopes the
// principal lacks are checked byte by byte.
func (h oldScopeSet) check(need []string) (valid, held bool) {
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

func (h oldScopeSet) has(s string) bool {
	if len(h.table) == 0 || s == "" {
		return false
	}
	a, b := oldFingerprint(s)
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

// perfRows builds MaxRows applicable rows for alice, as rows4096 in grants_test.go does:
// half hers, half AnyPrincipal's, each with two scopes, a seventh of them deny rows.
func perfRows() ([]Row, Principal) {
	rows := make([]Row, 0, MaxRows)
	for i := range MaxRows {
		p, e := "alice", Allow
		if i%2 == 1 {
			p = AnyPrincipal
		}
		if i%7 == 0 {
			e = Deny
		}
		rows = append(rows, Row{Principal: p, Tool: fmt.Sprintf("service%02d.operation_%04d", i%40, i/2),
			Scopes: []string{"tools:read", fmt.Sprintf("svc%02d:call", i%40)}, Effect: e, Revision: 1})
	}
	pr := Principal{ID: "alice", Scopes: []string{"tools:read"}}
	for i := range 40 {
		if i%3 != 0 {
			pr.Scopes = append(pr.Scopes, fmt.Sprintf("svc%02d:call", i))
		}
	}
	return rows, pr
}

// SPEC PERF-5: the implementation before the rewrite, over the rows of
// BenchmarkResolve, to compare side by side with it in one run.
func BenchmarkResolveOld(b *testing.B) {
	benchResolve(b, func(snap *Snapshot, p Principal) error { _, err := resolveOld(snap, p); return err })
}

// BenchmarkResolveNew is BenchmarkResolve (grants_test.go) with the CPU time metric, to
// compare with BenchmarkResolveOld.
func BenchmarkResolveNew(b *testing.B) {
	benchResolve(b, func(snap *Snapshot, p Principal) error { _, err := Resolve(snap, p); return err })
}

// benchResolve runs resolve over perfRows and reports, besides the wall time, the
// process CPU time per operation ("cpu-ns/op"), which a loaded machine disturbs less.
func benchResolve(b *testing.B, resolve func(*Snapshot, Principal) error) {
	rows, p := perfRows()
	snap := &Snapshot{Revision: 7, Rows: rows}
	b.ReportAllocs()
	start, ok := processCPU()
	for b.Loop() {
		if err := resolve(snap, p); err != nil {
			b.Fatal(err)
		}
	}
	if end, _ := processCPU(); ok {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkResolveMapBaseline builds a plain Go map of the same tool names: no check,
// no decision; the floor a map-based Resolve could not go below.
func BenchmarkResolveMapBaseline(b *testing.B) {
	rows, _ := perfRows()
	b.ReportAllocs()
	for b.Loop() {
		m := make(map[string]int32, len(rows))
		for i := range rows {
			m[rows[i].Tool] = int32(i)
		}
	}
}

// TestResolveMatchesOld checks that Resolve answers what resolveOld answers, the same
// error or the same granted set, over random snapshots with and without faults.
func TestResolveMatchesOld(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 18))
	scopes := []string{"a", "ab", "abc", "abcd", "abcdefg", "tools:read", "svc01:call",
		"exactly16bytes:x", "a-scope-longer-than-16-bytes", "a-scope-longer-than-16-bytez",
		"bad scope", "bad\"q", "bad\\b", "\x7f", "caf\u00e9", "", "~!#[]^", "x\x00y"}
	tools := []string{"t1", "t2", "t3", "service01.operation_0001", "service02.operation_0001"}
	// Many held scopes of 8 to 16 bytes.
	var many []string
	for i := range 400 {
		many = append(many, fmt.Sprintf("scope:%05d", i))
	}
	ids := []string{"alice", "a", "abc", "abcdefgh", "exactly-16-bytes", "a-principal-id-longer-than-16", AnyPrincipal}
	for iter := range 12000 {
		id := ids[rng.IntN(len(ids))]
		p := Principal{ID: id}
		for range rng.IntN(5) {
			p.Scopes = append(p.Scopes, scopes[rng.IntN(len(scopes))])
		}
		switch rng.IntN(8) {
		case 0: // too many for a direct table: rows with scopes take decideRow
			p.Scopes = append(p.Scopes, many...)
		case 1: // enough that a direct table needs a few tries
			p.Scopes = append(p.Scopes, many[:150]...)
		}
		var rows []Row
		for range rng.IntN(6) {
			r := Row{Principal: []string{id, AnyPrincipal, id, AnyPrincipal, "bob", "", id + "x", "alicf"}[rng.IntN(8)],
				Tool: tools[rng.IntN(len(tools))], Effect: []Effect{Allow, Allow, Deny, "nope"}[rng.IntN(4)],
				Revision: int64(rng.IntN(4))}
			for range rng.IntN(4) {
				if rng.IntN(3) == 0 {
					r.Scopes = append(r.Scopes, many[rng.IntN(len(many))])
				} else {
					r.Scopes = append(r.Scopes, scopes[rng.IntN(len(scopes))])
				}
			}
			if rng.IntN(3) > 0 { // mostly well formed, so decisions get compared too
				r.Revision = max(r.Revision, 1)
				r.Principal = []string{id, AnyPrincipal}[rng.IntN(2)]
				if r.Effect == "nope" {
					r.Effect = Allow
				}
			}
			rows = append(rows, r)
		}
		snap := &Snapshot{Revision: 1, Rows: rows}
		got, gerr := Resolve(snap, p)
		want, werr := resolveOld(snap, p)
		if gerr != werr {
			t.Fatalf("case %d: Resolve error %v, resolveOld %v\nprincipal %q\nrows %+v", iter, gerr, werr, p, rows)
		}
		if gerr != nil {
			continue
		}
		g := slices.Sorted(got.Granted())
		w := slices.Sorted(want.Granted())
		if !slices.Equal(g, w) {
			t.Fatalf("case %d: Resolve grants %q, resolveOld %q\nprincipal %q\nrows %+v", iter, g, w, p, rows)
		}
		for _, tool := range tools {
			if got.Allows(tool) != want.Allows(tool) {
				t.Fatalf("case %d: Allows(%q) differs", iter, tool)
			}
		}
	}
}

// TestTokenWord checks the word-at-a-time test against scopeChar for every byte in
// every position, and for random words.
func TestTokenWord(t *testing.T) {
	base := uint64(0x6161616161616161)
	for pos := range 8 {
		for c := range 256 {
			x := base&^(0xff<<(8*pos)) | uint64(c)<<(8*pos)
			if got := tokenWord(x); got != scopeChar[c] {
				t.Fatalf("byte %#x at %d: tokenWord = %v, want %v", c, pos, got, scopeChar[c])
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		x := rng.Uint64()
		if rng.IntN(2) == 0 { // mostly printable, so valid words occur
			x = x&0x3f3f3f3f3f3f3f3f | 0x4040404040404040
			if rng.IntN(2) == 0 {
				x ^= uint64(rng.IntN(256)) << (8 * rng.IntN(8))
			}
		}
		want := true
		for i := range 8 {
			want = want && scopeChar[byte(x>>(8*i))]
		}
		if got := tokenWord(x); got != want {
			t.Fatalf("%#016x: tokenWord = %v, want %v", x, got, want)
		}
	}
}

// TestFingerprintValid checks fingerprint's validity against ValidScope for scopes of
// every length up to 24 with an invalid byte in every position.
func TestFingerprintValid(t *testing.T) {
	for n := 1; n <= 24; n++ {
		s := []byte(strings.Repeat("a", n))
		if _, _, ok := fingerprint(string(s)); !ok {
			t.Fatalf("length %d: valid scope refused", n)
		}
		for pos := range n {
			for _, c := range []byte{0, ' ', '"', '\\', 0x7f, 0x80, 0xff, 0x20} {
				b := slices.Clone(s)
				b[pos] = c
				if _, _, ok := fingerprint(string(b)); ok != ValidScope(string(b)) {
					t.Fatalf("%q: fingerprint valid = %v, ValidScope %v", b, ok, !ok)
				}
			}
		}
	}
}

// TestToolHashCoversEveryByte checks that toolHash depends on every byte of names of
// every length up to 80 (a byte it skipped would make such names collide), and that
// Resolve's inline path and Allows agree with it (every granted name is found).
func TestToolHashCoversEveryByte(t *testing.T) {
	seed := rand.Uint64()
	for n := 1; n <= 80; n++ {
		name := []byte(strings.Repeat("x", n))
		base := toolHash(string(name), seed)
		for pos := range n {
			b := slices.Clone(name)
			b[pos] = 'y'
			if toolHash(string(b), seed) == base {
				t.Fatalf("length %d: changing byte %d leaves the hash unchanged", n, pos)
			}
		}
	}
	var rows []Row
	for n := 1; n <= 80; n++ {
		rows = append(rows, Row{Principal: AnyPrincipal, Tool: strings.Repeat("t", n), Effect: Allow, Revision: 1})
	}
	d, err := Resolve(&Snapshot{Rows: rows}, Principal{ID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !d.Allows(r.Tool) {
			t.Fatalf("Allows(%d-byte name) = false, want true", len(r.Tool))
		}
	}
	if d.Allows(strings.Repeat("t", 81)) || d.Allows("u") {
		t.Fatal("Allows answers true for a name without a row")
	}
}

// BenchmarkResolveSideBySide alternates resolveOld and Resolve call by call over the
// same rows and reports each one's mean time ("old-ns/op", "new-ns/op") and the ratio
// ("old/new"): on a machine that other work slows down unevenly, both see the same
// conditions.
func BenchmarkResolveSideBySide(b *testing.B) {
	rows, p := perfRows()
	snap := &Snapshot{Revision: 7, Rows: rows}
	var tOld, tNew time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := resolveOld(snap, p); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := Resolve(snap, p); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		tOld += t1.Sub(t0)
		tNew += t2.Sub(t1)
	}
	b.ReportMetric(float64(tOld)/float64(b.N), "old-ns/op")
	b.ReportMetric(float64(tNew)/float64(b.N), "new-ns/op")
	b.ReportMetric(float64(tOld)/float64(tNew), "old/new")
}
