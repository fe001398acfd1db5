package grants

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// resolveReference is GRANT-2 and GRANT-5 written as plainly as possible: the oracle
// Resolve's fast paths are checked against. Rows are checked in order and the first bad
// one decides the error (its model, then its scopes, then its principal, then a key an
// earlier row had); otherwise the principal's row for a tool decides, else the "*" row,
// else deny. It answers the granted tools.
func resolveReference(snap *Snapshot, p Principal) (map[string]bool, error) {
	if snap == nil {
		return nil, ErrUnavailable
	}
	if len(snap.Rows) > MaxRows {
		return nil, ErrTooManyRows
	}
	if snap.Revision < 0 {
		return nil, errRevision
	}
	held := map[string]bool{}
	for _, s := range p.Scopes {
		held[s] = true
	}
	type key struct{ principal, tool string }
	seen := map[key]bool{}
	own, star := map[string]bool{}, map[string]bool{}
	for _, r := range snap.Rows {
		if err := CheckRow(r); err != nil {
			return nil, err
		}
		if r.Principal != AnyPrincipal && r.Principal != p.ID {
			return nil, errPrincipal
		}
		k := key{r.Principal, r.Tool}
		if seen[k] {
			return nil, errDuplicate
		}
		seen[k] = true
		grant := r.Effect == Allow
		for _, s := range r.Scopes {
			grant = grant && held[s]
		}
		if r.Principal == AnyPrincipal {
			star[r.Tool] = grant
		} else {
			own[r.Tool] = grant
		}
	}
	granted := map[string]bool{}
	for tool, g := range star {
		if _, decided := own[tool]; !decided && g {
			granted[tool] = true
		}
	}
	for tool, g := range own {
		if g {
			granted[tool] = true
		}
	}
	return granted, nil
}

// TestResolveMatchesReference checks that Resolve answers what resolveReference
// answers, the same error or the same granted set, over random snapshots with and
// without faults, shaped to reach both the fast and the general paths.
//
// SPEC GRANT-2, GRANT-5
func TestResolveMatchesReference(t *testing.T) {
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
		want, werr := resolveReference(snap, p)
		if gerr != werr {
			t.Fatalf("case %d: Resolve error %v, reference %v\nprincipal %q\nrows %+v", iter, gerr, werr, p, rows)
		}
		if gerr != nil {
			continue
		}
		g := slices.Sorted(got.Granted())
		w := slices.Sorted(maps.Keys(want))
		if !slices.Equal(g, w) {
			t.Fatalf("case %d: Resolve grants %q, reference %q\nprincipal %q\nrows %+v", iter, g, w, p, rows)
		}
		for _, tool := range tools {
			if got.Allows(tool) != want[tool] {
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
