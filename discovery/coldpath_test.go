package discovery_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// shufflingReader answers, at every read, a new Snapshot of its base's rows in a
// random order, each row's scopes shuffled too: the same rows as another Snapshot,
// which the content-keyed cache must serve alike.
type shufflingReader struct {
	base grants.Reader
	rng  *rand.Rand // used by one goroutine: the test's
}

func (r *shufflingReader) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	s, err := r.base.ReadGrants(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &grants.Snapshot{Revision: s.Revision, Rows: make([]grants.Row, len(s.Rows))}
	for i, j := range r.rng.Perm(len(s.Rows)) {
		row := s.Rows[j]
		row.Scopes = slices.Clone(row.Scopes)
		r.rng.Shuffle(len(row.Scopes), func(a, b int) { row.Scopes[a], row.Scopes[b] = row.Scopes[b], row.Scopes[a] })
		out.Rows[i] = row
	}
	return out, nil
}

// TestColdPathMatchesModel changes one grant row at a time (puts and deletes of the
// principals' and "*" rows, allow and deny, scopes held and not, tools in the catalog
// and not) and after every change checks, for every principal, that Discoverers whose
// caches hold the sets of every earlier state answer exactly what the test's own
// reading of GRANT-2 decides: ListTools lists those tools, AuthorizeTool grants those
// and refuses every other tool, and the contract digest is that of a Discoverer that
// caches nothing. One reads the store directly, one through a reader answering the
// same rows shuffled as a new Snapshot at every read, one with Visibility excluding a
// tool. A revoked grant is never served from a cache, and an unchanged one never lost.
//
// SPEC GRANT-2, GRANT-5, GRANT-6, VIS-1, CONTRACT-2
func TestColdPathMatchesModel(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	names := cat.Names()
	tools := append(slices.Clone(names), "absent_tool_a", "absent_tool_b")
	principals := []grants.Principal{
		{ID: "alice", Scopes: []string{"models:read"}},
		{ID: "bob", Scopes: []string{"billing:read", "models:read"}},
		{ID: "carol"},
	}
	scopeSets := [][]string{nil, {"models:read"}, {"billing:read"}, {"billing:read", "models:read"}, {"admin"}}
	excluded := names[3]

	store := grants.NewMemory()
	rng := rand.New(rand.NewPCG(14, 40))
	type variant struct {
		name    string
		exclude string
		d, cold *discovery.Discoverer // cold caches nothing
	}
	newVariant := func(name string, r grants.Reader, exclude string) variant {
		edit := func(cacheBytes int64) func(*discovery.Options) {
			return func(o *discovery.Options) {
				o.CacheBytes = cacheBytes
				if exclude != "" {
					o.Visibility.Exclude = []string{exclude}
				}
			}
		}
		return variant{name, exclude, newDiscoverer(cat, r, edit(0)), newDiscoverer(cat, r, edit(-1))}
	}
	variants := []variant{
		newVariant("store", store, ""),
		newVariant("shuffled", &shufflingReader{base: store, rng: rand.New(rand.NewPCG(1, 1))}, ""),
		newVariant("excluding", store, excluded),
	}

	type key struct{ principal, tool string }
	model := map[key]grants.Row{}
	decide := func(p grants.Principal, tool string) bool { // GRANT-2, read literally
		r, ok := model[key{p.ID, tool}]
		if !ok {
			r, ok = model[key{grants.AnyPrincipal, tool}]
		}
		if !ok || r.Effect != grants.Allow {
			return false
		}
		for _, s := range r.Scopes {
			if !slices.Contains(p.Scopes, s) {
				return false
			}
		}
		return true
	}

	for step := range 300 {
		pid := []string{"alice", "bob", "carol", grants.AnyPrincipal}[rng.IntN(4)]
		tool := tools[rng.IntN(len(tools))]
		if rng.IntN(4) == 0 {
			if err := store.Delete(ctx, pid, tool); err != nil {
				t.Fatal(err)
			}
			delete(model, key{pid, tool})
		} else {
			r := grants.Row{Principal: pid, Tool: tool, Effect: grants.Allow, Scopes: scopeSets[rng.IntN(len(scopeSets))]}
			if rng.IntN(3) == 0 {
				r.Effect = grants.Deny
			}
			if _, err := store.Put(ctx, r); err != nil {
				t.Fatal(err)
			}
			model[key{pid, tool}] = r
		}
		for _, v := range variants {
			for _, p := range principals {
				var want []string
				for _, name := range names {
					if name != v.exclude && decide(p, name) {
						want = append(want, name)
					}
				}
				l, err := v.d.ListTools(ctx, p)
				if err != nil {
					t.Fatalf("step %d, %s: ListTools(%s): %v", step, v.name, p.ID, err)
				}
				if got := toolNames(t, l.Tools); !slices.Equal(got, want) {
					t.Fatalf("step %d, %s: ListTools(%s) = %q, want %q", step, v.name, p.ID, got, want)
				}
				lc, err := v.cold.ListTools(ctx, p)
				if err != nil {
					t.Fatalf("step %d, %s: uncached ListTools(%s): %v", step, v.name, p.ID, err)
				}
				if l.ContractDigest != lc.ContractDigest {
					t.Fatalf("step %d, %s: contract digest of %s %s, uncached %s", step, v.name, p.ID, l.ContractDigest, lc.ContractDigest)
				}
				for _, tool := range tools {
					err := v.d.AuthorizeTool(ctx, p, tool)
					if granted := slices.Contains(want, tool); granted != (err == nil) {
						t.Fatalf("step %d, %s: AuthorizeTool(%s, %s) = %v, want granted %v", step, v.name, p.ID, tool, err, granted)
					}
					if err != nil {
						wantCode(t, "a tool the model does not grant", err, discovery.CodeToolNotGranted)
					}
				}
			}
		}
	}
}
