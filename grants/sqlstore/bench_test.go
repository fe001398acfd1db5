package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
)

// seed inserts, in one transaction, n rows applicable to alice (half hers, half "*")
// and 2,000 rows of other principals, which the read must skip.
func seed(b *testing.B, s *Store, n int) {
	b.Helper()
	err := inTx(context.Background(), s.db, s.dialect, func(tx execer) (bool, error) {
		for i := range n + 2000 {
			p := "alice"
			switch {
			case i >= n:
				p = fmt.Sprintf("user-%04d", i)
			case i%2 == 1:
				p = grants.AnyPrincipal
			}
			_, err := tx.ExecContext(context.Background(), s.q.upsert, p, fmt.Sprintf("service%02d.operation_%04d", i%40, i), "tools:read svc:call", "allow", 1)
			if err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReadGrants reads alice's applicable rows, 50 or MaxRows of them, from a
// table that also holds 2,000 rows of other principals.
func BenchmarkReadGrants(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.dialect.String(), func(b *testing.B) {
			for _, n := range []int{50, grants.MaxRows} {
				b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
					s, _ := newStore(b, be)
					seed(b, s, n)
					ctx := context.Background()
					snap, err := s.ReadGrants(ctx, "alice")
					if err != nil || len(snap.Rows) != n {
						b.Fatalf("ReadGrants = (%d rows, %v), want %d", len(snap.Rows), err, n)
					}
					b.ReportAllocs()
					for b.Loop() {
						if _, err := s.ReadGrants(ctx, "alice"); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkPut measures one grant change: a transaction incrementing the control
// revision and upserting the row.
func BenchmarkPut(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.dialect.String(), func(b *testing.B) {
			s, _ := newStore(b, be)
			ctx := context.Background()
			r := grants.Row{Principal: "alice", Tool: "t", Scopes: []string{"a"}, Effect: grants.Allow}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Put(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
