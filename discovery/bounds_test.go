package discovery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"weak"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// This file tests that the Discoverer's caches are bounded in bytes and keep no grant
// snapshot or catalog version alive (the "Bounded memory and time" hardening).

// heapAfterGC returns the live heap after two collections (the second frees what
// cleanups of the first released).
func heapAfterGC() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// boundsCatalog is n tools "tool_0000"...; each takes any object.
func boundsCatalog(t testing.TB, n int) *discovery.Catalog {
	t.Helper()
	tools := make([]json.RawMessage, n)
	for i := range tools {
		tools[i] = toolDefSchema(fmt.Sprintf("tool_%04d", i), fmt.Sprintf("Tool number %d of the bounds catalog.", i), map[string]any{"type": "object"})
	}
	return newCatalog(t, tools...)
}

// The cache of a Discoverer serving 20,000 distinct principals, while grants change
// every 500 requests, holds no more than Options.CacheBytes: the heap the Discoverer
// keeps alive after a collection is within the budget, though each principal's grant
// snapshot holds 250 rows (about 24 KB). Before the byte budget, sets were keyed by
// snapshot pointer and kept up to 4,096 snapshots alive: some 100 MB here.
func TestCacheBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("serves 20,000 principals; skipped in -short")
	}
	const (
		principals = 20_000
		rows       = 250
		churnEvery = 500
		budget     = 4 << 20
		slack      = 512 << 10 // the map and runtime bookkeeping the GC measure sees besides
	)
	ctx := context.Background()
	cat := boundsCatalog(t, rows+50)
	store := grants.NewMemory()
	for i := range rows {
		if _, err := store.Put(ctx, allow(grants.AnyPrincipal, fmt.Sprintf("tool_%04d", i))); err != nil {
			t.Fatal(err)
		}
	}
	before := heapAfterGC()
	d := newDiscoverer(cat, store, func(o *discovery.Options) { o.CacheBytes = budget })
	churn := 0
	for i := range principals {
		p := grants.Principal{ID: fmt.Sprintf("principal-%05d", i), Scopes: []string{"tools:read"}}
		if i%churnEvery == churnEvery-1 {
			// Grant churn: a new row for everyone, so every snapshot is superseded.
			churn++
			if _, err := store.Put(ctx, allow(grants.AnyPrincipal, fmt.Sprintf("tool_%04d", rows+churn%50))); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: "tool_0007"}); err != nil {
			t.Fatalf("AuthorizeCall(%s): %v", p.ID, err)
		}
		// The set is right after the churn: the newest grant is in it.
		if i%churnEvery == churnEvery-1 {
			newest := fmt.Sprintf("tool_%04d", rows+churn%50)
			if err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: newest}); err != nil {
				t.Fatalf("after churn %d: AuthorizeCall(%s): %v", churn, newest, err)
			}
		}
	}
	// One more change empties the store's own snapshot cache, so what stays alive below
	// is the Discoverer's.
	if _, err := store.Put(ctx, allow(grants.AnyPrincipal, "tool_0000")); err != nil {
		t.Fatal(err)
	}
	with := heapAfterGC()
	digests, sets, counted, rotations := discovery.CacheStats(d)
	runtime.KeepAlive(d)
	d = nil
	without := heapAfterGC()
	runtime.KeepAlive(cat)
	runtime.KeepAlive(store)
	kept := with - without
	t.Logf("heap: %d before, %d with the Discoverer, %d without; it kept %d bytes (%d digests, %d sets, %d counted, %d rotations)",
		before, with, without, kept, digests, sets, counted, rotations)
	if rotations == 0 {
		t.Errorf("the cache never dropped a generation: the test does not reach the budget")
	}
	if counted > budget {
		t.Errorf("counted %d bytes, over the budget of %d", counted, budget)
	}
	if kept > budget+slack {
		t.Errorf("the Discoverer keeps %d bytes alive, over its budget %d + %d", kept, budget, slack)
	}
	if kept > 0 && counted > 0 && kept > counted+slack {
		t.Errorf("the cache counts %d bytes but keeps %d alive: setBytes or digestEntryBytes underestimates", counted, kept)
	}
}

// freshReader answers a new Snapshot with the same rows at every read, like a reader
// that shares nothing between reads.
type freshReader struct{ rows []grants.Row }

func (r freshReader) ReadGrants(context.Context, string) (*grants.Snapshot, error) {
	return &grants.Snapshot{Revision: 1, Rows: append([]grants.Row(nil), r.rows...)}, nil
}

// The authorised-set cache is keyed by content: a reader that answers a new Snapshot
// of the same rows at every read is served from the cache, and the Snapshots it
// answered are not kept alive by it.
func TestCacheKeyedByContent(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	r := freshReader{rows: []grants.Row{
		{Principal: "alice", Tool: "model_get", Effect: grants.Allow, Revision: 4, Scopes: []string{"models:read"}},
		{Principal: grants.AnyPrincipal, Tool: "model_search", Effect: grants.Allow, Revision: 2},
	}}
	var seen []weak.Pointer[grants.Snapshot]
	hook := &grantstest.HookReader{Base: readerFunc(func(ctx context.Context, id string) (*grants.Snapshot, error) {
		s, err := r.ReadGrants(ctx, id)
		seen = append(seen, weak.Make(s))
		return s, err
	})}
	d := newDiscoverer(cat, hook, nil)
	for i := range 10 {
		l, err := d.ListTools(ctx, alice)
		if err != nil {
			t.Fatalf("ListTools #%d: %v", i, err)
		}
		if got := toolNames(t, l.Tools); len(got) != 2 {
			t.Fatalf("ListTools #%d = %v, want model_get and model_search", i, got)
		}
	}
	digests, sets, _, _ := discovery.CacheStats(d)
	if sets != 1 {
		t.Errorf("10 reads of the same rows as 10 Snapshots cached %d sets, want 1", sets)
	}
	if digests < 1 || digests > 10 {
		t.Errorf("cached %d rows digests, want 1 to 10 (one per Snapshot alive at its read)", digests)
	}
	heapAfterGC()
	for i, w := range seen {
		if w.Value() != nil {
			t.Errorf("Snapshot %d is still alive: a cache keeps it", i)
		}
	}
	runtime.KeepAlive(d)
}

// readerFunc adapts a function to grants.Reader.
type readerFunc func(ctx context.Context, id string) (*grants.Snapshot, error)

func (f readerFunc) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	return f(ctx, id)
}

// SPEC GRANT-5, GRANT-6: a content-keyed cache never answers for a Snapshot it was not
// computed from: one whose only difference from a cached one is a repeated scope (which
// makes its row malformed) is refused, not served the cached set.
func TestCacheContentKeyExact(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	good := []grants.Row{{Principal: "alice", Tool: "model_get", Effect: grants.Allow, Revision: 4, Scopes: []string{"models:read"}}}
	bad := []grants.Row{{Principal: "alice", Tool: "model_get", Effect: grants.Allow, Revision: 4, Scopes: []string{"models:read", "models:read"}}}
	var rows []grants.Row
	d := newDiscoverer(cat, readerFunc(func(context.Context, string) (*grants.Snapshot, error) {
		return &grants.Snapshot{Revision: 1, Rows: rows}, nil
	}), nil)
	call := discovery.Call{Tool: "model_get", Arguments: json.RawMessage(`{"text":"x"}`)}
	rows = good
	if err := d.AuthorizeCall(ctx, alice, call); err != nil {
		t.Fatalf("valid rows: %v", err)
	}
	rows = bad
	wantCode(t, "a repeated scope after the valid rows were cached", d.AuthorizeCall(ctx, alice, call), discovery.CodeGrantsUnavailable)
}

// A catalog version the host replaced is not kept alive by the Discoverer that served
// it, nor are the grant Snapshots it read.
func TestCacheKeepsNoCatalog(t *testing.T) {
	ctx := t.Context()
	var src discovery.SwappableCatalog
	store := newStore(t, allow("*", "model_search"), allow("alice", "model_get", "models:read"))
	d := newDiscoverer(&src, store, nil)
	var old []weak.Pointer[discovery.Catalog]
	for i := range 5 {
		cat := newCatalog(t, append(sampleTools(), toolDef(fmt.Sprintf("extra_%d", i), "An extra tool."))...)
		old = append(old, weak.Make(cat))
		src.Store(cat)
		if _, err := d.Discover(ctx, alice, discovery.Request{Query: "model"}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.ListTools(ctx, alice); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := store.ReadGrants(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	ws := weak.Make(snap)
	snap = nil
	if _, err := store.Put(ctx, allow("*", "billing_usage")); err != nil { // the store drops its Snapshot
		t.Fatal(err)
	}
	heapAfterGC()
	for i, w := range old[:len(old)-1] {
		if w.Value() != nil {
			t.Errorf("catalog version %d is still alive after it was replaced", i)
		}
	}
	if ws.Value() != nil {
		t.Errorf("a superseded grant Snapshot is still alive")
	}
	runtime.KeepAlive(d)
}
