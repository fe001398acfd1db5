package discovery

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// rowsMultiset names a snapshot's rows as a multiset, in the test's own terms: each
// row printed with its scopes sorted, the lines sorted.
func rowsMultiset(rows []grants.Row) string {
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = fmt.Sprintf("%q %q %q %q %d", r.Principal, r.Tool, r.Effect, slices.Sorted(slices.Values(r.Scopes)), r.Revision)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestRowsDigestExact checks over random snapshots drawn from a small universe (so
// that equal multisets of rows come up often) that two snapshots share a rows digest
// exactly when they hold the same rows: whatever the order of the rows and of each
// row's scopes, a repeated row counting twice, fields whose bytes run together ("ab",
// "c" against "a", "bc") kept apart. It runs with the real hash and with hashes that
// make most rows collide, so the order of colliding rows is checked too.
//
// SPEC CURSOR-2 (observed rows bound exactly), GRANT-5 (a refused snapshot never
// shares a digest with an accepted one)
func TestRowsDigestExact(t *testing.T) {
	real := rowsHash
	t.Cleanup(func() { rowsHash = real })
	hashes := []struct {
		name string
		h    func([]byte) uint64
	}{
		{"maphash", real},
		{"three values", func(b []byte) uint64 { return real(b) % 3 << 61 }},
		{"constant", func([]byte) uint64 { return 0 }},
	}
	principals := []string{"alice", "*", "alic", "ealice", ""}
	tools := []string{"a", "ab", "b", "bc", "c", "t\x00", "tool_0001"}
	scopes := []string{"s", "s:r", "r", "rs", "models:read"}
	effects := []grants.Effect{grants.Allow, grants.Deny, "allo", "wallow"}
	randomRow := func(rng *rand.Rand) grants.Row {
		r := grants.Row{
			Principal: principals[rng.IntN(len(principals))],
			Tool:      tools[rng.IntN(len(tools))],
			Effect:    effects[rng.IntN(len(effects))],
			Revision:  int64(rng.IntN(3)) - 1,
		}
		for range rng.IntN(3) {
			r.Scopes = append(r.Scopes, scopes[rng.IntN(len(scopes))])
		}
		return r
	}
	for _, hc := range hashes {
		t.Run(hc.name, func(t *testing.T) {
			rowsHash = hc.h
			rng := rand.New(rand.NewPCG(14, 2026))
			same, differ := 0, 0
			for iter := range 20000 {
				a := make([]grants.Row, rng.IntN(4))
				for i := range a {
					a[i] = randomRow(rng)
				}
				var b []grants.Row
				switch rng.IntN(3) {
				case 0: // the same rows, shuffled, scopes shuffled
					b = make([]grants.Row, len(a))
					for i, j := range rng.Perm(len(a)) {
						b[i] = a[j]
						b[i].Scopes = slices.Clone(a[j].Scopes)
						rng.Shuffle(len(b[i].Scopes), func(x, y int) { b[i].Scopes[x], b[i].Scopes[y] = b[i].Scopes[y], b[i].Scopes[x] })
					}
				case 1: // the same rows, one changed or added or removed
					b = slices.Clone(a)
					switch k := rng.IntN(3); {
					case k == 0 && len(b) > 0:
						b[rng.IntN(len(b))] = randomRow(rng)
					case k == 1 && len(b) > 0:
						b = slices.Delete(b, 0, 1)
					default:
						b = append(b, randomRow(rng))
					}
				default:
					b = make([]grants.Row, rng.IntN(4))
					for i := range b {
						b[i] = randomRow(rng)
					}
				}
				want := rowsMultiset(a) == rowsMultiset(b)
				got := rowsDigest(&grants.Snapshot{Rows: a}) == rowsDigest(&grants.Snapshot{Rows: b})
				if got != want {
					t.Fatalf("case %d: equal digests = %v, equal rows = %v\na %+v\nb %+v", iter, got, want, a, b)
				}
				if want {
					same++
				} else {
					differ++
				}
			}
			if same < 1000 || differ < 1000 {
				t.Fatalf("only %d equal and %d different pairs: the generator explores too little", same, differ)
			}
		})
	}
}

// TestRowsDigestFieldBoundaries checks pairs of single rows whose fields hold the same
// bytes split differently: each pair must digest differently.
func TestRowsDigestFieldBoundaries(t *testing.T) {
	base := grants.Row{Principal: "alice", Tool: "tool", Effect: grants.Allow, Scopes: []string{"a", "b"}, Revision: 7}
	variants := []func(*grants.Row){
		func(r *grants.Row) { r.Principal, r.Tool = "alicet", "ool" },
		func(r *grants.Row) { r.Scopes = []string{"ab"} },
		func(r *grants.Row) { r.Scopes = []string{"a", "b", ""} },
		func(r *grants.Row) { r.Scopes = nil },
		func(r *grants.Row) { r.Scopes = []string{"a", "a", "b"} },
		func(r *grants.Row) { r.Revision = 8 },
		func(r *grants.Row) { r.Revision = -7 },
		func(r *grants.Row) { r.Effect = grants.Deny },
		func(r *grants.Row) { r.Tool = "tool\x00" },
	}
	seen := map[[32]byte]int{rowsDigest(&grants.Snapshot{Rows: []grants.Row{base}}): -1}
	for i, v := range variants {
		r := base
		r.Scopes = slices.Clone(base.Scopes)
		v(&r)
		d := rowsDigest(&grants.Snapshot{Rows: []grants.Row{r}})
		if j, ok := seen[d]; ok {
			t.Errorf("variant %d digests as %d (-1: the base row)", i, j)
		}
		seen[d] = i
	}
}

// TestSortKeys checks sortKeys against slices.Sort for sizes around its bucket counts
// and past the largest (where it sorts by comparison alone), keys of every spread.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var count []int
	for _, n := range []int{0, 1, 2, 3, 7, 8, 100, 4095, 4096, 4097, 70000} {
		for _, spread := range []uint64{0, 3, 1 << 40, ^uint64(0)} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = rng.Uint64()
				if spread != ^uint64(0) {
					keys[i] %= spread + 1
				}
			}
			orig := slices.Clone(keys)
			got := sortKeys(make([]uint64, 0, 3), keys, &count)
			want := slices.Sorted(slices.Values(orig))
			if !slices.Equal(got, want) {
				t.Fatalf("sortKeys of %d keys (spread %d) is not sorted", n, spread)
			}
			if !slices.Equal(keys, orig) {
				t.Fatalf("sortKeys of %d keys changed its input", n)
			}
		}
	}
}
