package grants

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// resolveReference is GRANT-2 and GRANT-5 written as literally as possible, in another
// shape than Resolve: the oracle Resolve is checked against. Rows are checked in order
// and the first bad one decides the error (its model, then its scopes, then its
// principal, then a key an earlier row had); otherwise the principal's row for a tool
// decides, else the "*" row, else deny. It answers the granted tools.
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

// TestResolveMatchesReference checks that Resolve and ResolveIndex answer what
// resolveReference answers, the same error or the same granted set, over random
// snapshots with and without faults: principal IDs and scopes of many lengths and
// characters, principals holding a few scopes or hundreds, for ResolveIndex tools
// numbered, unnumbered and numbered out of range, and (the last 500) well-formed sets
// of up to 40 rows over 20 more tools.
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
	for iter := range 12500 {
		id := ids[rng.IntN(len(ids))]
		p := Principal{ID: id}
		for range rng.IntN(5) {
			p.Scopes = append(p.Scopes, scopes[rng.IntN(len(scopes))])
		}
		switch rng.IntN(8) {
		case 0: // many held scopes
			p.Scopes = append(p.Scopes, many...)
		case 1:
			p.Scopes = append(p.Scopes, many[:150]...)
		}
		var rows []Row
		faulty := rng.IntN(6)
		if iter >= 12000 { // large, well-formed sets: many tools decided at once
			rows, faulty = largeRows(rng, id), 0
			for _, s := range "abcdefghijkl" {
				if rng.IntN(2) == 0 {
					p.Scopes = append(p.Scopes, string(s))
				}
			}
		}
		for range faulty {
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
		want, werr := resolveReference(snap, p)
		// ResolveIndex with a random numbering of some of the tools: the others, and a
		// tool numbered out of range, are decided by name as Resolve decides them all.
		index, n := map[string]int{}, 0
		for _, tool := range tools {
			switch rng.IntN(3) {
			case 0:
				index[tool] = n
				n++
			case 1:
				index[tool] = len(tools) + 1
			}
		}
		for _, resolve := range []struct {
			name string
			f    func() (*Decision, error)
		}{
			{"Resolve", func() (*Decision, error) { return Resolve(snap, p) }},
			{"ResolveIndex", func() (*Decision, error) { return ResolveIndex(snap, p, index, n) }},
		} {
			got, gerr := resolve.f()
			if gerr != werr {
				t.Fatalf("case %d: %s error %v, reference %v\nprincipal %q\nrows %+v", iter, resolve.name, gerr, werr, p, rows)
			}
			if gerr != nil {
				continue
			}
			g := slices.Sorted(got.Granted())
			w := slices.Sorted(maps.Keys(want))
			if !slices.Equal(g, w) {
				t.Fatalf("case %d: %s grants %q, reference %q\nprincipal %q\nrows %+v", iter, resolve.name, g, w, p, rows)
			}
			for _, tool := range append(tools, largeTools[:]...) {
				if got.Allows(tool) != want[tool] {
					t.Fatalf("case %d: %s: Allows(%q) differs", iter, resolve.name, tool)
				}
			}
			// The granted numbers: Resolve numbers nothing, and a tool numbered out of
			// range counts as unnumbered.
			var wantIndex []int
			for tool, j := range index {
				if resolve.name == "ResolveIndex" && j < n && want[tool] {
					wantIndex = append(wantIndex, j)
				}
			}
			slices.Sort(wantIndex)
			if gi := got.AppendGrantedIndex(nil); !slices.Equal(gi, wantIndex) {
				t.Fatalf("case %d: %s: AppendGrantedIndex = %v, want %v", iter, resolve.name, gi, wantIndex)
			}
		}
	}
}

// largeTools are the tools of largeRows.
var largeTools = func() (t [20]string) {
	for i := range t {
		t[i] = fmt.Sprintf("t%02d", i)
	}
	return t
}()

// largeRows returns up to 40 well-formed rows of id and AnyPrincipal over largeTools,
// with no two rows of one key, each allowing or denying under a few of 12 scopes.
func largeRows(rng *rand.Rand, id string) []Row {
	var rows []Row
	seen := map[string]bool{}
	for range rng.IntN(41) {
		r := Row{Principal: []string{id, AnyPrincipal}[rng.IntN(2)], Tool: largeTools[rng.IntN(len(largeTools))],
			Effect: []Effect{Allow, Deny}[rng.IntN(2)], Revision: 1}
		if seen[r.Principal+"/"+r.Tool] {
			continue
		}
		seen[r.Principal+"/"+r.Tool] = true
		for _, s := range "abcdefghijkl" {
			if rng.IntN(6) == 0 {
				r.Scopes = append(r.Scopes, string(s))
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// TestResolveNamesOfEveryLength checks that a Decision finds every granted tool name,
// of every length from 1 to 80 bytes, and no name without a row.
func TestResolveNamesOfEveryLength(t *testing.T) {
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

// TestResolveRepeats checks the paths Resolve takes when rows repeat what earlier rows
// had: a scope met before (the memo of checked scopes; the cases with a scope in the
// place the previous row had it stay from a shortcut tried and dropped) must still be
// refused when a row repeats it or when a later
// scope of the row is invalid, must keep whether the principal holds it, and a tool met
// before (read back from the map) must still be decided by its own row or refused as a
// duplicate. Each case names what it expects; the reference must agree.
//
// SPEC GRANT-2, GRANT-5
func TestResolveRepeats(t *testing.T) {
	r := func(principal, tool string, e Effect, scopes ...string) Row {
		return Row{Principal: principal, Tool: tool, Effect: e, Scopes: scopes, Revision: 1}
	}
	held := []string{"h1", "h2", "bad scope"}
	for _, tc := range []struct {
		name    string
		rows    []Row
		granted []string // nil with err
		err     error
	}{
		{"a scope repeated in one row after rows that had it once",
			[]Row{r("alice", "t1", Allow, "h1", "h2"), r("alice", "t2", Allow, "h1", "h2"), r("alice", "t3", Allow, "h2", "h2")}, nil, errScope},
		{"a scope repeated in the place the previous row had it",
			[]Row{r("alice", "t1", Allow, "h1", "h2"), r("alice", "t2", Allow, "h2", "h2")}, nil, errScope},
		{"a row repeating the previous row's first scope in its second place",
			[]Row{r("alice", "t1", Allow, "h1", "h2"), r("alice", "t2", Allow, "h1", "h1")}, nil, errScope},
		{"an invalid scope after a scope met before",
			[]Row{r("alice", "t1", Allow, "h1"), r("alice", "t2", Allow, "h1", "x y")}, nil, errScope},
		{"an empty scope first", []Row{r("alice", "t1", Allow, "")}, nil, errScope},
		{"an empty scope after valid ones",
			[]Row{r("alice", "t1", Allow, "h1", "n1"), r("*", "t2", Deny, "", "n1")}, nil, errScope},
		{"a held scope that is not a scope-token",
			[]Row{r("alice", "t1", Allow, "h1"), r("alice", "t2", Allow, "bad scope")}, nil, errScope},
		{"held and unheld scopes met again keep their answer",
			[]Row{r("alice", "t1", Allow, "n1"), r("alice", "t2", Allow, "n1"), r("alice", "t3", Allow, "h1"),
				r("*", "t4", Allow, "h1"), r("*", "t5", Allow, "h2", "n1"), r("*", "t6", Allow, "h2", "n1"),
				r("alice", "t7", Allow, "n1", "h1"), r("alice", "t8", Allow, "h1", "h2"), r("*", "t9", Allow, "h2", "h1")},
			[]string{"t3", "t4", "t8", "t9"}, nil},
		{"a tool's second row decides with its first",
			[]Row{r("*", "t1", Allow), r("alice", "t2", Deny), r("alice", "t1", Deny, "h1"), r("*", "t2", Allow),
				r("*", "t3", Deny), r("alice", "t3", Allow, "h2"), r("alice", "t4", Allow, "n1"), r("*", "t4", Allow)},
			[]string{"t3"}, nil},
		{"a third row of a tool", []Row{r("alice", "t1", Allow), r("*", "t1", Allow), r("alice", "t1", Allow)}, nil, errDuplicate},
		{"a third row of a tool, the other principal",
			[]Row{r("alice", "t1", Deny), r("*", "t1", Allow), r("*", "t1", Deny)}, nil, errDuplicate},
		{"a third row of a numbered tool", []Row{r("alice", "t2", Allow), r("*", "t2", Allow), r("alice", "t2", Allow)}, nil, errDuplicate},
		{"a duplicate after the tool's own row granted", []Row{r("alice", "t1", Allow, "h1"), r("alice", "t1", Allow, "h1")}, nil, errDuplicate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Principal{ID: "alice", Scopes: held}
			snap := &Snapshot{Revision: 1, Rows: tc.rows}
			ref, rerr := resolveReference(snap, p)
			if rerr != tc.err || (rerr == nil && !slices.Equal(slices.Sorted(maps.Keys(ref)), tc.granted)) {
				t.Fatalf("reference = %v, %v; the case expects %q, %v", slices.Sorted(maps.Keys(ref)), rerr, tc.granted, tc.err)
			}
			for name, d := range map[string]func() (*Decision, error){
				"Resolve":      func() (*Decision, error) { return Resolve(snap, p) },
				"ResolveIndex": func() (*Decision, error) { return ResolveIndex(snap, p, map[string]int{"t2": 0, "t3": 1}, 2) },
			} {
				got, err := d()
				if err != tc.err {
					t.Fatalf("%s error = %v, want %v", name, err, tc.err)
				}
				if err != nil {
					continue
				}
				if g := slices.Sorted(got.Granted()); !slices.Equal(g, tc.granted) {
					t.Errorf("%s grants %q, want %q", name, g, tc.granted)
				}
			}
		})
	}
}
