package grants_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
	"github.com/deferredtools/deferredtools/internal/cputime"
)

func row(p, tool string, e grants.Effect, scopes ...string) grants.Row {
	return grants.Row{Principal: p, Tool: tool, Effect: e, Scopes: scopes, Revision: 1}
}

// SPEC GRANT-1, GRANT-5
func TestCheckRow(t *testing.T) {
	for _, tc := range []struct {
		row    grants.Row
		reason string // "" for a well-formed row
	}{
		{row("alice", "t", grants.Allow), ""},
		{row(grants.AnyPrincipal, "t", grants.Deny, "a", "b:c", "!", "~"), ""},
		{row("", "t", grants.Allow), "principal"},
		{row("alice", "", grants.Allow), "tool"},
		{row("alice", "t", ""), "effect"},
		{row("alice", "t", "ALLOW"), "effect"},
		{row("alice", "t", grants.Allow, ""), "scope"},
		{row("alice", "t", grants.Allow, "a b"), "scope"},
		{row("alice", "t", grants.Allow, "a", "a"), "scope"},
		{row("alice", "t", grants.Allow, `"`), "scope"},
		{row("alice", "t", grants.Allow, `\`), "scope"},
		{row("alice", "t", grants.Allow, "\x00"), "scope"},
		{row("alice", "t", grants.Allow, "ü"), "scope"},
		{grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}, "revision"},
		{grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow, Revision: -3}, "revision"},
	} {
		t.Run(tc.row.Principal+"/"+tc.row.Tool+"/"+tc.reason, func(t *testing.T) {
			err := grants.CheckRow(tc.row)
			if tc.reason == "" {
				if err != nil {
					t.Errorf("CheckRow(%+v) = %v, want nil", tc.row, err)
				}
				return
			}
			var me *grants.MalformedError
			if !errors.As(err, &me) || me.Reason != tc.reason || !errors.Is(err, grants.ErrMalformed) {
				t.Errorf("CheckRow(%+v) = %v, want a *MalformedError with reason %q", tc.row, err, tc.reason)
			}
		})
	}
}

// SPEC GRANT-5: the scope grammar is RFC 6749's scope-token, byte by byte.
func TestValidScope(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := c >= 0x21 && c <= 0x7e && c != '"' && c != '\\'
		if got := grants.ValidScope(string([]byte{'a', byte(c), 'z'})); got != want {
			t.Errorf("ValidScope(%q) = %v, want %v", []byte{'a', byte(c), 'z'}, got, want)
		}
	}
	if grants.ValidScope("") {
		t.Error(`ValidScope("") = true, want false`)
	}
}

// SPEC GRANT-2
func TestResolveDecision(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rows   []grants.Row
		scopes []string
		want   bool
	}{
		{"no row denies", nil, []string{"admin"}, false},
		{"own allow without scopes grants", []grants.Row{row("alice", "t", grants.Allow)}, nil, true},
		{"own allow with held scopes grants", []grants.Row{row("alice", "t", grants.Allow, "a", "b")}, []string{"b", "x", "a"}, true},
		{"own allow with a missing scope denies", []grants.Row{row("alice", "t", grants.Allow, "a", "b")}, []string{"a"}, false},
		{"own deny denies", []grants.Row{row("alice", "t", grants.Deny)}, []string{"a"}, false},
		{"any allow grants", []grants.Row{row("*", "t", grants.Allow, "a")}, []string{"a"}, true},
		{"any allow with a missing scope denies", []grants.Row{row("*", "t", grants.Allow, "a")}, nil, false},
		{"any deny denies", []grants.Row{row("*", "t", grants.Deny)}, nil, false},
		{"own deny beats any allow", []grants.Row{row("*", "t", grants.Allow), row("alice", "t", grants.Deny)}, nil, false},
		{"own allow beats any deny", []grants.Row{row("*", "t", grants.Deny), row("alice", "t", grants.Allow)}, nil, true},
		{"own allow lacking scope does not fall back to any allow",
			[]grants.Row{row("alice", "t", grants.Allow, "admin:t"), row("*", "t", grants.Allow)}, nil, false},
		{"any row gives no scope to own row",
			[]grants.Row{row("*", "s", grants.Allow, "x"), row("alice", "t", grants.Allow, "x")}, nil, false},
		{"admin scope bypasses nothing", []grants.Row{row("alice", "t", grants.Deny)},
			[]string{"admin", "*", "root", "superuser"}, false},
		{"deny row scopes are irrelevant", []grants.Row{row("alice", "t", grants.Deny, "a")}, []string{"a"}, false},
		{"many scopes use the set path", []grants.Row{row("alice", "t", grants.Allow, "s9", "s3")},
			[]string{"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"}, true},
		{"long scopes differing in the middle only", []grants.Row{row("alice", "t", grants.Allow, "https://a.example.com/models/read")},
			[]string{"https://b.example.com/models/read", "https://a.example.com/models/rea"}, false},
		{"long scope held", []grants.Row{row("alice", "t", grants.Allow, "https://a.example.com/models/read")},
			[]string{"https://b.example.com/models/read", "https://a.example.com/models/read"}, true},
		{"invalid principal scopes are ignored", []grants.Row{row("alice", "t", grants.Allow, "ok")},
			[]string{"bad scope", "", "ok"}, true},
		{"many scopes, one missing", []grants.Row{row("alice", "t", grants.Allow, "s9", "s10")},
			[]string{"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Run(tc.name, func(t *testing.T) {
				d, err := grants.Resolve(&grants.Snapshot{Revision: 1, Rows: tc.rows}, grants.Principal{ID: "alice", Scopes: tc.scopes})
				if err != nil {
					t.Fatalf("Resolve error: %v", err)
				}
				if got := d.Allows("t"); got != tc.want {
					t.Errorf("Allows(t) = %v, want %v", got, tc.want)
				}
				if d.Allows("never-a-row") {
					t.Error("Allows(never-a-row) = true: a tool without a row was granted")
				}
				granted := slices.Collect(d.Granted())
				if got := slices.Contains(granted, "t"); got != tc.want {
					t.Errorf("Granted() = %q, contains t = %v, want %v", granted, got, tc.want)
				}
			})
		})
	}
}

// SPEC GRANT-5: every failed check answers an error and no Decision.
func TestResolveFailsClosed(t *testing.T) {
	tooMany := make([]grants.Row, grants.MaxRows+1)
	for i := range tooMany {
		tooMany[i] = row("*", fmt.Sprintf("t%d", i), grants.Allow)
	}
	p := grants.Principal{ID: "alice"}
	for _, tc := range []struct {
		name string
		snap *grants.Snapshot
		want error
	}{
		{"nil snapshot", nil, grants.ErrUnavailable},
		{"too many rows", &grants.Snapshot{Revision: 1, Rows: tooMany}, grants.ErrTooManyRows},
		{"negative revision", &grants.Snapshot{Revision: -1}, grants.ErrMalformed},
		{"unknown effect", &grants.Snapshot{Revision: 1, Rows: []grants.Row{row("alice", "t", "maybe")}}, grants.ErrMalformed},
		{"bad scope", &grants.Snapshot{Revision: 1, Rows: []grants.Row{row("alice", "t", grants.Allow, "a b")}}, grants.ErrMalformed},
		{"empty tool", &grants.Snapshot{Revision: 1, Rows: []grants.Row{row("alice", "", grants.Allow)}}, grants.ErrMalformed},
		{"revision 0", &grants.Snapshot{Revision: 1, Rows: []grants.Row{{Principal: "alice", Tool: "t", Effect: grants.Allow}}}, grants.ErrMalformed},
		{"duplicate own key", &grants.Snapshot{Revision: 1, Rows: []grants.Row{row("alice", "t", grants.Allow), row("alice", "t", grants.Deny)}}, grants.ErrMalformed},
		{"duplicate any key", &grants.Snapshot{Revision: 1, Rows: []grants.Row{row("*", "t", grants.Deny), row("*", "t", grants.Deny)}}, grants.ErrMalformed},
		{"another principal's row", &grants.Snapshot{Revision: 1, Rows: []grants.Row{row("bob", "t", grants.Allow)}}, grants.ErrMalformed},
		// A malformed row fails the whole read, even when it comes after good rows.
		{"bad row after good ones", &grants.Snapshot{Revision: 1, Rows: []grants.Row{row("alice", "ok", grants.Allow), row("*", "t", "")}}, grants.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := grants.Resolve(tc.snap, p)
			if d != nil || !errors.Is(err, tc.want) {
				t.Errorf("%s: Resolve = (%v, %v), want no Decision and %v", tc.name, d, err, tc.want)
			}
		})
	}
	if d, err := grants.Resolve(&grants.Snapshot{Revision: 1, Rows: tooMany[:grants.MaxRows]}, p); err != nil || !d.Allows("t0") {
		t.Errorf("Resolve of exactly MaxRows rows = (%v, %v), want a Decision", d, err)
	}
}

// SPEC GRANT-5: the fault-injecting fakes are refused by Resolve.
func TestResolveRefusesFakes(t *testing.T) {
	ctx := context.Background()
	p := grants.Principal{ID: "alice"}
	base := grants.NewMemory()
	if _, err := base.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}); err != nil {
		t.Fatal(err)
	}
	snap, err := (&grantstest.TooManyRowsReader{Revision: 3}).ReadGrants(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := grants.Resolve(snap, p); !errors.Is(err, grants.ErrTooManyRows) {
		t.Errorf("Resolve(TooManyRowsReader snapshot) error = %v, want ErrTooManyRows", err)
	}
	for _, reason := range grantstest.MalformedReasons {
		for _, b := range []grants.Reader{nil, base} {
			snap, err := (&grantstest.MalformedReader{Base: b, Reason: reason}).ReadGrants(ctx, "alice")
			if err != nil {
				t.Fatalf("MalformedReader %s: %v", reason, err)
			}
			var me *grants.MalformedError
			if _, err := grants.Resolve(snap, p); !errors.As(err, &me) || me.Reason != reason {
				t.Errorf("Resolve(MalformedReader{%s}) error = %v, want a MalformedError %q", reason, err, reason)
			}
		}
	}
}

// SPEC GRANT-6: no fallback: scopes alone grant nothing, and a Decision is of one
// Snapshot only.
func TestNoFallback(t *testing.T) {
	d, err := grants.Resolve(&grants.Snapshot{Revision: 1}, grants.Principal{ID: "alice", Scopes: []string{"tools:read", "admin"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(slices.Collect(d.Granted())); n != 0 {
		t.Errorf("an empty Snapshot granted %d tools from scopes alone, want 0", n)
	}
	var nilDecision *grants.Decision
	if nilDecision.Allows("t") || len(slices.Collect(nilDecision.Granted())) != 0 {
		t.Error("a nil Decision grants something, want nothing")
	}
}

// SPEC GRANT-1..5: Memory passes the conformance kit.
func TestMemoryConformance(t *testing.T) {
	grantstest.Run(t, func(*testing.T) grants.Store { return grants.NewMemory() })
}

// Memory answers the same Snapshot pointer for a principal until a write, so consumers
// can cache decisions by pointer.
func TestMemorySnapshotShared(t *testing.T) {
	ctx := context.Background()
	m := grants.NewMemory()
	a1, _ := m.ReadGrants(ctx, "alice")
	a2, _ := m.ReadGrants(ctx, "alice")
	b1, _ := m.ReadGrants(ctx, "bob")
	if a1 != a2 {
		t.Error("two reads without a write returned different Snapshots, want the same pointer")
	}
	if a1 == b1 {
		t.Error("alice and bob share a Snapshot")
	}
	for i, write := range []func() error{
		func() error { _, err := m.Put(ctx, row("bob", "t", grants.Allow)); return err },
		func() error { return m.Delete(ctx, "bob", "t") },
	} {
		if err := write(); err != nil {
			t.Fatal(err)
		}
		a3, _ := m.ReadGrants(ctx, "alice")
		if a3 == a1 || a3.Revision <= a1.Revision {
			t.Errorf("write %d: alice's Snapshot (revision %d) was not replaced after a write (revision now %d)", i, a1.Revision, a3.Revision)
		}
		a1 = a3
	}
	if err := m.Delete(ctx, "bob", "missing"); err != nil {
		t.Fatal(err)
	}
	if a4, _ := m.ReadGrants(ctx, "alice"); a4 != a1 {
		t.Error("deleting a missing row replaced the Snapshot, want it kept (nothing changed)")
	}
}

// SPEC GRANT-1, GRANT-4: random Puts and Deletes over a few principals and tools (each
// Delete of a present row moves another row of the principal into its place) leave
// Memory holding exactly what a plain map of rows holds, revisions included: every
// ListGrants and every principal's ReadGrants answers the model's rows, and an earlier
// Snapshot keeps the rows it was read with.
func TestMemoryMatchesModel(t *testing.T) {
	ctx := context.Background()
	m := grants.NewMemory()
	type key struct{ p, tool string }
	model := map[key]grants.Row{}
	control := int64(1)
	principals := []string{"alice", "bob", grants.AnyPrincipal}
	rng := rand.New(rand.NewPCG(4, 2))
	var old *grants.Snapshot
	var oldRows []grants.Row
	for step := range 3000 {
		k := key{principals[rng.IntN(len(principals))], fmt.Sprintf("t%d", rng.IntN(6))}
		if rng.IntN(2) == 0 {
			r := row(k.p, k.tool, []grants.Effect{grants.Allow, grants.Deny}[rng.IntN(2)], []string{"a", "b", "c"}[:rng.IntN(4)]...)
			got, err := m.Put(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			control++
			r.Revision = control
			if len(r.Scopes) == 0 {
				r.Scopes = nil
			}
			model[k] = r
			if got.Revision != control {
				t.Fatalf("step %d: Put revision %d, want %d", step, got.Revision, control)
			}
		} else {
			if err := m.Delete(ctx, k.p, k.tool); err != nil {
				t.Fatal(err)
			}
			if _, ok := model[k]; ok {
				control++
				delete(model, k)
			}
		}
		l, err := m.ListGrants(ctx, "", "")
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Collect(maps.Values(model))
		grants.SortRows(want)
		if l.Revision != control || fmt.Sprint(l.Rows) != fmt.Sprint(want) {
			t.Fatalf("step %d: ListGrants = %d %v, want %d %v", step, l.Revision, l.Rows, control, want)
		}
		for _, p := range principals {
			snap, err := m.ReadGrants(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			var wantRead []grants.Row
			for k, r := range model {
				if k.p == grants.AnyPrincipal || k.p == p {
					wantRead = append(wantRead, r)
				}
			}
			grants.SortRows(wantRead)
			got := slices.Clone(snap.Rows)
			grants.SortRows(got)
			if snap.Revision != control || fmt.Sprint(got) != fmt.Sprint(wantRead) {
				t.Fatalf("step %d: ReadGrants(%s) = %d %v, want %d %v", step, p, snap.Revision, got, control, wantRead)
			}
		}
		if old != nil && fmt.Sprint(old.Rows) != fmt.Sprint(oldRows) {
			t.Fatalf("step %d: an earlier Snapshot changed", step)
		}
		if step%50 == 0 {
			old, _ = m.ReadGrants(ctx, "alice")
			oldRows = slices.Clone(old.Rows)
			for i := range oldRows { // scopes too: Memory shares their arrays
				oldRows[i].Scopes = slices.Clone(oldRows[i].Scopes)
			}
		}
	}
}

// rows4096 builds MaxRows applicable rows for alice: half hers, half AnyPrincipal's,
// each with one or two scopes.
func rows4096() ([]grants.Row, grants.Principal) {
	rows := make([]grants.Row, 0, grants.MaxRows)
	for i := range grants.MaxRows {
		p, e := "alice", grants.Allow
		if i%2 == 1 {
			p = grants.AnyPrincipal
		}
		if i%7 == 0 {
			e = grants.Deny
		}
		rows = append(rows, row(p, fmt.Sprintf("service%02d.operation_%04d", i%40, i/2), e, "tools:read", fmt.Sprintf("svc%02d:call", i%40)))
	}
	pr := grants.Principal{ID: "alice", Scopes: []string{"tools:read"}}
	for i := range 40 {
		if i%3 != 0 {
			pr.Scopes = append(pr.Scopes, fmt.Sprintf("svc%02d:call", i))
		}
	}
	return rows, pr
}

// BenchmarkResolve measures a grant decision for a principal over MaxRows (4,096) rows,
// which the Discoverer makes once per grant snapshot (SPEC PERF-5).
func BenchmarkResolve(b *testing.B) {
	rows, p := rows4096()
	snap := &grants.Snapshot{Revision: 7, Rows: rows}
	if _, err := grants.Resolve(snap, p); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	stop := cputime.Report(b)
	for b.Loop() {
		if _, err := grants.Resolve(snap, p); err != nil {
			b.Fatal(err)
		}
	}
	stop()
}

// BenchmarkResolveIndex measures the same decision when the caller numbers its tools,
// as the Discoverer does with a catalog's: 10,000 names, 4,096 of them with rows.
func BenchmarkResolveIndex(b *testing.B) {
	rows, p := rows4096()
	index := make(map[string]int, 10000)
	for _, r := range rows {
		if _, ok := index[r.Tool]; !ok {
			index[r.Tool] = len(index)
		}
	}
	for len(index) < 10000 {
		index[fmt.Sprintf("other.operation_%05d", len(index))] = len(index)
	}
	snap := &grants.Snapshot{Revision: 7, Rows: rows}
	if _, err := grants.ResolveIndex(snap, p, index, len(index)); err != nil {
		b.Fatal(err)
	}
	var granted []int
	b.ReportAllocs()
	for b.Loop() {
		d, err := grants.ResolveIndex(snap, p, index, len(index))
		if err != nil {
			b.Fatal(err)
		}
		granted = d.AppendGrantedIndex(granted[:0])
	}
}

// BenchmarkResolveMapBaseline only fills a plain map, sized up front, from the 4,096
// tool names of BenchmarkResolve to their row numbers: no check and no decision. It is
// the floor of a Resolve that keeps one map entry per tool; compare the two in one run.
func BenchmarkResolveMapBaseline(b *testing.B) {
	rows, _ := rows4096()
	b.ReportAllocs()
	for b.Loop() {
		m := make(map[string]int32, len(rows))
		for i := range rows {
			m[rows[i].Tool] = int32(i)
		}
	}
}

func BenchmarkAllows(b *testing.B) {
	rows, p := rows4096()
	d, err := grants.Resolve(&grants.Snapshot{Revision: 7, Rows: rows}, p)
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Tool
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d.Allows(names[i%len(names)])
		i++
	}
}

// BenchmarkGranted measures listing the granted tools of a Decision over 4,096 rows, as
// the Discoverer does once per grant snapshot after Resolve.
func BenchmarkGranted(b *testing.B) {
	rows, p := rows4096()
	d, err := grants.Resolve(&grants.Snapshot{Revision: 7, Rows: rows}, p)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for range d.Granted() {
			n++
		}
		if n == 0 {
			b.Fatal("nothing granted")
		}
	}
}

func BenchmarkMemoryReadGrants(b *testing.B) {
	ctx := context.Background()
	m := grants.NewMemory()
	rows, _ := rows4096()
	for _, r := range rows {
		if _, err := m.Put(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.ReadGrants(ctx, "alice"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("after-write", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := m.Delete(ctx, "nobody", "t"); err != nil { // no change: cache kept
				b.Fatal(err)
			}
			if _, err := m.Put(ctx, row("bob", "t", grants.Allow)); err != nil {
				b.Fatal(err)
			}
			if _, err := m.ReadGrants(ctx, "alice"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func ExampleResolve() {
	ctx := context.Background()
	store := grants.NewMemory()
	for _, r := range []grants.Row{
		// Everyone holding models:read may search models (a compatibility row).
		{Principal: grants.AnyPrincipal, Tool: "models.search", Scopes: []string{"models:read"}, Effect: grants.Allow},
		{Principal: grants.AnyPrincipal, Tool: "billing.refund", Effect: grants.Allow},
		// ...but alice may not refund, and may deploy.
		{Principal: "alice", Tool: "billing.refund", Effect: grants.Deny},
		{Principal: "alice", Tool: "models.deploy", Scopes: []string{"models:write"}, Effect: grants.Allow},
	} {
		if _, err := store.Put(ctx, r); err != nil {
			panic(err)
		}
	}
	alice := grants.Principal{ID: "alice", Scopes: []string{"models:read", "models:write"}}
	snap, err := store.ReadGrants(ctx, alice.ID)
	if err != nil {
		panic(err) // fail closed: answer 503
	}
	d, err := grants.Resolve(snap, alice)
	if err != nil {
		panic(err) // fail closed: answer 503
	}
	for _, tool := range []string{"models.search", "models.deploy", "billing.refund", "datasets.list"} {
		fmt.Println(tool, d.Allows(tool))
	}
	fmt.Println("revision", snap.Revision)
	// Output:
	// models.search true
	// models.deploy true
	// billing.refund false
	// datasets.list false
	// revision 5
}
