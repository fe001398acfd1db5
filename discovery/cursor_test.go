package discovery_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// cursorFixture is a catalog where "model" ranks many tools, every tool granted by "*"
// rows without scope, served by d.
type cursorFixture struct {
	src   *discovery.SwappableCatalog
	store *grants.Memory
	d     *discovery.Discoverer
}

func newCursorFixture(t testing.TB, edit func(*discovery.Options)) *cursorFixture {
	f := &cursorFixture{src: new(discovery.SwappableCatalog)}
	cat := newCatalog(t, append(sampleTools(), helperTools(10)...)...)
	f.src.Store(cat)
	f.store = allGranted(t, cat)
	f.d = newDiscoverer(f.src, f.store, edit)
	return f
}

// firstCursor returns the cursor of the first page of "model" at limit 3 for alice.
func (f *cursorFixture) firstCursor(t testing.TB) string {
	t.Helper()
	res, err := f.d.Discover(context.Background(), alice, discovery.Request{Query: "model", Limit: 3})
	if err != nil || res.NextCursor == "" {
		t.Fatalf("first page: %v, cursor %q", err, res.NextCursor)
	}
	return res.NextCursor
}

// SPEC CURSOR-1 (another Discoverer, with its own random key, refuses the cursor, as
// after a restart), CURSOR-2: a cursor binds principal, scopes, contract digest, visibility, grant
// revision, observed rows and their revisions, query and limit; any one of them
// changed answers invalid_cursor (400). The unchanged facts are accepted.
func TestCursorBinding(t *testing.T) {
	ctx := t.Context()
	next := func(d *discovery.Discoverer, p grants.Principal, q string, limit int, cur string) error {
		_, err := d.Discover(ctx, p, discovery.Request{Query: q, Limit: limit, Cursor: cur})
		return err
	}
	// The control: nothing changed.
	f := newCursorFixture(t, nil)
	if err := next(f.d, alice, "model", 3, f.firstCursor(t)); err != nil {
		t.Fatalf("unchanged facts: %v", err)
	}

	cases := []struct {
		name   string
		sync   bool
		change func(t *testing.T, f *cursorFixture, cur string) error
	}{
		{"principal", false, func(t *testing.T, f *cursorFixture, cur string) error {
			carol := grants.Principal{ID: "carol", Scopes: alice.Scopes} // same "*" grants
			return next(f.d, carol, "model", 3, cur)
		}},
		{"scopes", false, func(t *testing.T, f *cursorFixture, cur string) error {
			more := grants.Principal{ID: "alice", Scopes: []string{"models:read", "unused:scope"}}
			return next(f.d, more, "model", 3, cur)
		}},
		{"scopes removed", false, func(t *testing.T, f *cursorFixture, cur string) error {
			return next(f.d, grants.Principal{ID: "alice"}, "model", 3, cur)
		}},
		{"contract", false, func(t *testing.T, f *cursorFixture, cur string) error {
			tools := append(sampleTools(), helperTools(10)...)
			tools[len(tools)-1] = toolDef("helper_09", "Model helper number 9, reworded.")
			f.src.Store(newCatalog(t, tools...))
			return next(f.d, alice, "model", 3, cur)
		}},
		{"visibility", true, func(t *testing.T, f *cursorFixture, cur string) error {
			// Same Signer, store, catalog; a visibility excluding a tool that does not
			// exist, so only the visibility differs.
			d2 := newDiscoverer(f.src, f.store, func(o *discovery.Options) {
				o.Signer = signerOf[f.d]
				o.RevisionSync = true
				o.Visibility.Exclude = []string{"no_such_tool"}
			})
			return next(d2, alice, "model", 3, cur)
		}},
		{"revision", true, func(t *testing.T, f *cursorFixture, cur string) error {
			f.store.Put(ctx, allow("zed", "model_get")) // another principal's row
			return next(f.d, alice, "model", 3, cur)
		}},
		{"row revision", false, func(t *testing.T, f *cursorFixture, cur string) error {
			f.store.Put(ctx, allow("*", "billing_usage")) // same content, new revision
			return next(f.d, alice, "model", 3, cur)
		}},
		{"rows", false, func(t *testing.T, f *cursorFixture, cur string) error {
			f.store.Put(ctx, deny("alice", "no_such_tool")) // authorised set unchanged
			return next(f.d, alice, "model", 3, cur)
		}},
		{"query", false, func(t *testing.T, f *cursorFixture, cur string) error {
			return next(f.d, alice, "model ", 3, cur)
		}},
		{"limit", false, func(t *testing.T, f *cursorFixture, cur string) error {
			return next(f.d, alice, "model", 4, cur)
		}},
		{"default limit", false, func(t *testing.T, f *cursorFixture, cur string) error {
			return next(f.d, alice, "model", 0, cur)
		}},
		{"another Discoverer", false, func(t *testing.T, f *cursorFixture, cur string) error {
			return next(newDiscoverer(f.src, f.store, nil), alice, "model", 3, cur)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			signer := cursor.NewSigner()
			f := newCursorFixture(t, func(o *discovery.Options) {
				o.Signer = signer
				o.RevisionSync = tc.sync
			})
			signerOf[f.d] = signer
			cur := f.firstCursor(t)
			wantCode(t, tc.name+" changed", tc.change(t, f, cur), discovery.CodeInvalidCursor)
		})
	}

	// The visibility control: a second Discoverer with the same Signer, store,
	// visibility and revision sync accepts the cursor, so the case above fails for the
	// visibility alone.
	signer := cursor.NewSigner()
	f = newCursorFixture(t, func(o *discovery.Options) { o.Signer = signer; o.RevisionSync = true })
	d2 := newDiscoverer(f.src, f.store, func(o *discovery.Options) { o.Signer = signer; o.RevisionSync = true })
	if err := next(d2, alice, "model", 3, f.firstCursor(t)); err != nil {
		t.Errorf("same facts on a twin Discoverer: %v", err)
	}
	// With revision sync off, a write that touches none of the principal's rows keeps
	// its cursors valid: the observed rows, not the process, decide.
	f = newCursorFixture(t, nil)
	cur := f.firstCursor(t)
	f.store.Put(ctx, allow("zed", "model_get"))
	if err := next(f.d, alice, "model", 3, cur); err != nil {
		t.Errorf("an unrelated write invalidated the cursor with revision sync off: %v", err)
	}
	// A revocation does invalidate it.
	f.store.Delete(ctx, "*", "billing_usage")
	wantCode(t, "revocation", next(f.d, alice, "model", 3, cur), discovery.CodeInvalidCursor)
}

// signerOf remembers the Signer a test Discoverer was built with.
var signerOf = map[*discovery.Discoverer]*cursor.Signer{}

// SPEC CURSOR-3: a cursor is valid until 120 s after its first page, that instant
// included, and invalid from one nanosecond later (testing/synctest: time passes only
// by sleeping in the bubble).
func TestCursorLifetimeEdge(t *testing.T) {
	for _, tc := range []struct {
		age  time.Duration
		want discovery.Code
	}{
		{119 * time.Second, ""},
		{cursor.Lifetime, ""},
		{cursor.Lifetime + time.Nanosecond, discovery.CodeInvalidCursor},
		{121 * time.Second, discovery.CodeInvalidCursor},
	} {
		t.Run(tc.age.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newCursorFixture(t, nil)
				cur := f.firstCursor(t)
				time.Sleep(tc.age)
				res, err := f.d.Discover(t.Context(), alice, discovery.Request{Query: "model", Limit: 3, Cursor: cur})
				if tc.want == "" {
					if err != nil {
						t.Errorf("cursor issued %v ago: %v", tc.age, err)
					} else if res.NextCursor == "" {
						t.Errorf("second page has no cursor")
					}
					return
				}
				wantCode(t, fmt.Sprintf("cursor issued %v ago", tc.age), err, discovery.CodeInvalidCursor)
			})
		})
	}
}

// SPEC CURSOR-4: a grant change observed while a page is prepared (between the read
// that builds the page and the recheck) answers tool_grants_changed (409); the same
// grants read twice do not.
func TestGrantsChangedWhilePreparing(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, append(sampleTools(), helperTools(10)...)...)
	rows := []grants.Row{allow("alice", "model_search", "models:read"), allow("*", "helper_01"), allow("*", "helper_02")}
	s1 := &grants.Snapshot{Revision: 7, Rows: rows}
	bumped := slices.Clone(rows)
	bumped[1].Revision = 2
	revoked := rows[:2]
	samecopy := &grants.Snapshot{Revision: 7, Rows: slices.Clone(rows)}
	for _, tc := range []struct {
		name string
		sync bool
		s2   *grants.Snapshot
		want discovery.Code
	}{
		{"row revision", false, &grants.Snapshot{Revision: 7, Rows: bumped}, discovery.CodeGrantsChanged},
		{"row revoked", false, &grants.Snapshot{Revision: 7, Rows: revoked}, discovery.CodeGrantsChanged},
		{"row renamed", false, &grants.Snapshot{Revision: 7, Rows: []grants.Row{rows[0], allow("*", "helper_03"), rows[2]}}, discovery.CodeGrantsChanged},
		{"row added", false, &grants.Snapshot{Revision: 7, Rows: append(slices.Clone(rows), allow("*", "helper_03"))}, discovery.CodeGrantsChanged},
		{"revision with sync", true, &grants.Snapshot{Revision: 8, Rows: rows}, discovery.CodeGrantsChanged},
		{"same content", false, samecopy, ""},
		{"same content with sync", true, samecopy, ""},
	} {
		r := &seqReader{snaps: []*grants.Snapshot{s1, tc.s2}}
		d := newDiscoverer(cat, r, func(o *discovery.Options) { o.RevisionSync = tc.sync })
		res, err := d.Discover(ctx, alice, discovery.Request{Query: "model helper"})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		} else {
			wantCode(t, tc.name, err, tc.want)
			if res != nil {
				t.Errorf("%s: a page was returned with the 409", tc.name)
			}
		}
		if r.calls.Load() != 2 {
			t.Errorf("%s: %d grant reads for one page, want 2 (read, recheck)", tc.name, r.calls.Load())
		}
	}

	// Through a real store, on a later page too: a revocation landing between the two
	// reads of page 2.
	store := newStore(t, rows...)
	var revokeAt atomic.Int64
	hook := &hookReader{base: store, before: func(n int64) {
		if n == revokeAt.Load() {
			store.Delete(context.Background(), "*", "helper_02")
		}
	}}
	d := newDiscoverer(cat, hook, nil)
	first, err := d.Discover(ctx, alice, discovery.Request{Query: "model helper", Limit: 1})
	if err != nil || first.NextCursor == "" {
		t.Fatalf("page 1: %v", err)
	}
	revokeAt.Store(hook.calls.Load() + 2) // the recheck of page 2
	_, err = d.Discover(ctx, alice, discovery.Request{Query: "model helper", Limit: 1, Cursor: first.NextCursor})
	wantCode(t, "revocation while page 2 is prepared", err, discovery.CodeGrantsChanged)

	// The grantstest fakes: a grant landing between the reads of page 1 (HookReader),
	// and a sequence of snapshots (SequenceReader), with revision sync on.
	store2 := newStore(t, rows...)
	hr := &grantstest.HookReader{Base: store2, Before: func(ctx context.Context, call int64) error {
		if call == 2 {
			_, err := store2.Put(ctx, allow("*", "helper_04"))
			return err
		}
		return nil
	}}
	_, err = newDiscoverer(cat, hr, func(o *discovery.Options) { o.RevisionSync = true }).Discover(ctx, alice, discovery.Request{Query: "model helper"})
	wantCode(t, "grant added between the reads (HookReader)", err, discovery.CodeGrantsChanged)
	sr := &grantstest.SequenceReader{Snapshots: []*grants.Snapshot{s1, {Revision: 8, Rows: rows}}}
	_, err = newDiscoverer(cat, sr, func(o *discovery.Options) { o.RevisionSync = true }).Discover(ctx, alice, discovery.Request{Query: "model helper"})
	wantCode(t, "revision moved between the reads (SequenceReader)", err, discovery.CodeGrantsChanged)
}

// seqReader answers snaps[i] to the i-th read, then the last one.
type seqReader struct {
	snaps []*grants.Snapshot
	calls atomic.Int64
}

func (r *seqReader) ReadGrants(context.Context, string) (*grants.Snapshot, error) {
	i := r.calls.Add(1) - 1
	return r.snaps[min(int(i), len(r.snaps)-1)], nil
}

// hookReader calls before(n) ahead of the n-th read (from 1) of base.
type hookReader struct {
	base   grants.Reader
	before func(n int64)
	calls  atomic.Int64
}

func (r *hookReader) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	r.before(r.calls.Add(1))
	return r.base.ReadGrants(ctx, id)
}

// revReader answers base's rows at a settable control revision.
type revReader struct {
	base grants.Reader
	rev  atomic.Int64
}

func (r *revReader) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	s, err := r.base.ReadGrants(ctx, id)
	if err != nil {
		return nil, err
	}
	return &grants.Snapshot{Revision: r.rev.Load(), Rows: s.Rows}, nil
}

// SPEC CURSOR-5: with revision sync on, the revision must be the store's confirmed,
// fresh control revision: 0 (unavailable) or one lower than a revision already seen
// (stale) answers 503 on every path. With it off, neither matters.
func TestRevisionSync(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	args := json.RawMessage(`{"text":"x"}`)
	run := func(d *discovery.Discoverer) (errs [3]error) {
		_, errs[0] = d.Discover(ctx, alice, discovery.Request{Query: "model"})
		_, errs[1] = d.ListTools(ctx, alice)
		errs[2] = d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args})
		return errs
	}
	for _, sync := range []bool{true, false} {
		r := &revReader{base: newStore(t, allow("*", "model_search"))}
		d := newDiscoverer(cat, r, func(o *discovery.Options) { o.RevisionSync = sync })
		for _, step := range []struct {
			rev       int64
			staleSync bool // 503 expected with sync on
		}{{0, true}, {5, false}, {5, false}, {3, true}, {6, false}, {5, true}, {0, true}, {6, false}} {
			r.rev.Store(step.rev)
			for i, err := range run(d) {
				what := fmt.Sprintf("sync %v, revision %d, path %d", sync, step.rev, i)
				if sync && step.staleSync {
					wantCode(t, what, err, discovery.CodeGrantsUnavailable)
				} else if err != nil {
					t.Errorf("%s: %v", what, err)
				}
			}
		}
	}
}

// SPEC CURSOR-6: a cursor is opaque: neither the query, the principal nor a scope is
// in it, in clear or in base64 of any alphabet.
func TestCursorOpaque(t *testing.T) {
	ctx := t.Context()
	const (
		qText = "modelqueryc4n4ry"
		pID   = "principalc4n4ry"
		scope = "scopec4n4ry"
	)
	var tools []json.RawMessage
	for i := range 5 {
		tools = append(tools, toolDef(fmt.Sprintf("t%d", i), "About "+qText+" things."))
	}
	cat := newCatalog(t, tools...)
	var rows []grants.Row
	for _, n := range cat.Names() {
		rows = append(rows, allow(pID, n, scope))
	}
	d := newDiscoverer(cat, newStore(t, rows...), nil)
	p := grants.Principal{ID: pID, Scopes: []string{scope}}
	res, err := d.Discover(ctx, p, discovery.Request{Query: qText, Limit: 1})
	if err != nil || res.NextCursor == "" {
		t.Fatalf("Discover: %v, cursor %q", err, res.NextCursor)
	}
	for _, tok := range []string{res.NextCursor, nextOf(t, d, p, qText, res.NextCursor)} {
		for _, secret := range []string{qText, pID, scope} {
			for _, form := range encodings(secret) {
				if strings.Contains(strings.ToLower(tok), strings.ToLower(form)) {
					t.Errorf("cursor %q contains %q (a form of %q)", tok, form, secret)
				}
			}
			if raw, err := decodeAny(tok); err == nil && bytes.Contains(raw, []byte(secret)) {
				t.Errorf("decoded cursor contains %q", secret)
			}
		}
	}
}

func nextOf(t testing.TB, d *discovery.Discoverer, p grants.Principal, q, cur string) string {
	t.Helper()
	res, err := d.Discover(context.Background(), p, discovery.Request{Query: q, Limit: 1, Cursor: cur})
	if err != nil || res.NextCursor == "" {
		t.Fatalf("page 2: %v", err)
	}
	return res.NextCursor
}

// encodings returns s and the base64 text s would show inside a longer encoded string,
// at each of the three alignments, in the standard and URL alphabets.
func encodings(s string) []string {
	forms := []string{s}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		for k := range 3 {
			e := enc.EncodeToString([]byte(strings.Repeat("\x00", k) + s))
			e = strings.TrimRight(e, "=")
			lead := (k*4 + 2) / 3 // characters that also encode the padding bytes
			if len(e) > lead+2 {
				forms = append(forms, e[lead+1:len(e)-2])
			}
		}
	}
	return forms
}

// decodeAny decodes tok with whichever base64 alphabet accepts it.
func decodeAny(tok string) ([]byte, error) {
	var err error
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		var b []byte
		if b, err = enc.DecodeString(tok); err == nil {
			return b, nil
		}
	}
	return nil, err
}

// SPEC CURSOR-3: a cursor lives at most 120 s from the first page, and later pages do
// not renew it: a page-2 cursor obtained at 60 s is dead at 121 s. (testing/synctest:
// the Discoverer's and the Signer's clocks are the bubble's fake clock.)
func TestCursorLifetime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		f := newCursorFixture(t, nil)
		page := func(cur string) (*discovery.Result, error) {
			return f.d.Discover(ctx, alice, discovery.Request{Query: "model", Limit: 1, Cursor: cur})
		}
		first, err := page("")
		if err != nil || first.NextCursor == "" {
			t.Fatalf("page 1: %v", err)
		}
		time.Sleep(60 * time.Second)
		second, err := page(first.NextCursor)
		if err != nil || second.NextCursor == "" {
			t.Fatalf("page 2 at 60 s: %v", err)
		}
		time.Sleep(59 * time.Second) // 119 s
		third, err := page(second.NextCursor)
		if err != nil || third.NextCursor == "" {
			t.Fatalf("page 3 at 119 s: %v", err)
		}
		time.Sleep(2 * time.Second) // 121 s
		_, err = page(third.NextCursor)
		wantCode(t, "page-3 cursor at 121 s", err, discovery.CodeInvalidCursor)
		_, err = page(second.NextCursor)
		wantCode(t, "page-2 cursor at 121 s", err, discovery.CodeInvalidCursor)
		_, err = page(first.NextCursor)
		wantCode(t, "page-1 cursor at 121 s", err, discovery.CodeInvalidCursor)
		// A new first page starts a new lifetime.
		again, err := page("")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := page(again.NextCursor); err != nil {
			t.Errorf("a fresh cursor at 121 s: %v", err)
		}
	})
}

// SPEC CURSOR-4: a row's scopes are a set: the same rows read twice with their scopes in
// another order are no grant change (no 409), and a cursor stays valid across them.
func TestScopeOrderIsNoChange(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, append(sampleTools(), helperTools(5)...)...)
	p := grants.Principal{ID: "alice", Scopes: []string{"a:1", "b:2"}}
	rows := []grants.Row{allow("alice", "model_search", "a:1", "b:2"), allow("*", "helper_01"), allow("*", "helper_02")}
	swapped := slices.Clone(rows)
	swapped[0].Scopes = []string{"b:2", "a:1"}
	r := &seqReader{snaps: []*grants.Snapshot{{Revision: 1, Rows: rows}, {Revision: 1, Rows: swapped}}}
	d := newDiscoverer(cat, r, nil)
	res, err := d.Discover(ctx, p, discovery.Request{Query: "model helper", Limit: 1})
	if err != nil {
		t.Fatalf("same rows, scopes in another order: %v", err)
	}
	if _, err := d.Discover(ctx, p, discovery.Request{Query: "model helper", Limit: 1, Cursor: res.NextCursor}); err != nil {
		t.Errorf("cursor across a scope reordering: %v", err)
	}
}
