package sqlstore

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// ListPage pages through every matching row in byte order of (principal, tool), each
// row once, and ListGrants refuses more than MaxListRows rows with ErrListTooLong
// instead of reading them all.
func TestListPage(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			// Byte order puts "B" before "a" and "é" last, unlike most collations.
			var want []string
			for _, p := range []string{"*", "B", "a", "alice", "é"} {
				for _, tool := range []string{"Z", "b", "t1", "t2", "ü"} {
					if _, err := s.Put(ctx, grants.Row{Principal: p, Tool: tool, Effect: grants.Allow}); err != nil {
						t.Fatal(err)
					}
					want = append(want, p+"/"+tool)
				}
			}
			slices.Sort(want)
			for _, limit := range []int{1, 7, 25, 26} {
				var (
					got   []string
					after PageKey
					pages int
				)
				for {
					l, more, err := s.ListPage(ctx, "", "", after, limit)
					if err != nil {
						t.Fatalf("ListPage(limit %d): %v", limit, err)
					}
					pages++
					for _, r := range l.Rows {
						got = append(got, r.Principal+"/"+r.Tool)
					}
					if !more {
						break
					}
					if len(l.Rows) != limit {
						t.Fatalf("ListPage(limit %d) answered %d rows and more", limit, len(l.Rows))
					}
					last := l.Rows[len(l.Rows)-1]
					after = PageKey{last.Principal, last.Tool}
				}
				if !slices.Equal(got, want) {
					t.Errorf("ListPage pages of %d = %q, want %q", limit, got, want)
				}
				if wantPages := (len(want) + limit - 1) / limit; pages != wantPages {
					t.Errorf("ListPage pages of %d: %d pages, want %d", limit, pages, wantPages)
				}
			}
			l, more, err := s.ListPage(ctx, "a", "", PageKey{"a", "b"}, 2)
			if err != nil || !more || len(l.Rows) != 2 || l.Rows[0].Tool != "t1" || l.Rows[1].Tool != "t2" {
				t.Errorf("ListPage(principal a, after a/b, 2) = (%+v, %v, %v), want t1, t2 and more", l, more, err)
			}

			gen := "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 10001) SELECT 'bulk', 'tool' || x, 'allow' FROM n"
			if b.dialect == Postgres {
				gen = "SELECT 'bulk', 'tool' || x, 'allow' FROM generate_series(1, 10001) x"
			}
			if _, err := db.Exec("INSERT INTO tool_grants (principal_id, tool_name, effect) " + gen); err != nil {
				t.Fatal(err)
			}
			_, err = s.ListGrants(ctx, "", "")
			checkClosed(t, "ListGrants of 10,026 rows", err, ErrListTooLong)
			if !errors.Is(err, grants.ErrTooManyRows) {
				t.Errorf("ErrListTooLong does not match grants.ErrTooManyRows")
			}
			if l, err := s.ListGrants(ctx, "alice", ""); err != nil || len(l.Rows) != 5 {
				t.Errorf("ListGrants(alice) beside 10,001 bulk rows = (%v, %v), want 5 rows", l, err)
			}
			l, more, err = s.ListPage(ctx, "bulk", "", PageKey{}, 0)
			if err != nil || !more || len(l.Rows) != MaxListRows {
				t.Errorf("ListPage(limit 0) = (%d rows, %v, %v), want MaxListRows and more", len(l.Rows), more, err)
			}
		})
	}
}
