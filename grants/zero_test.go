package grants_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/nopanic"
)

// Every Memory entry point, on the zero value and on NewMemory's, refuses a nil
// context with an error matching ErrNilContext and ErrUnavailable (a Reader's error,
// so a caller fails closed), changing nothing, instead of a panic in ctx.Err (as
// net/http's NewRequestWithContext answers an error for one). SPEC ERR-5, GRANT-5.
func TestMemoryNilContext(t *testing.T) {
	var nilCtx context.Context // a nil interface, as a caller's zero value would pass
	for _, mk := range []struct {
		name string
		new  func() *grants.Memory
	}{
		{"zero", func() *grants.Memory { return new(grants.Memory) }},
		{"NewMemory", grants.NewMemory},
	} {
		for _, c := range []struct {
			name string
			call func(m *grants.Memory) error
		}{
			{"ReadGrants", func(m *grants.Memory) error { _, err := m.ReadGrants(nilCtx, "alice"); return err }},
			{"Put", func(m *grants.Memory) error {
				_, err := m.Put(nilCtx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
				return err
			}},
			{"Delete", func(m *grants.Memory) error { return m.Delete(nilCtx, "alice", "t0") }},
			{"ListGrants", func(m *grants.Memory) error { _, err := m.ListGrants(nilCtx, "", ""); return err }},
		} {
			t.Run(mk.name+"/"+c.name, func(t *testing.T) {
				m := mk.new()
				if _, err := m.Put(context.Background(), grants.Row{Principal: "alice", Tool: "t0", Effect: grants.Allow}); err != nil {
					t.Fatal(err)
				}
				err := nopanic.Call(func() error {
					return c.call(m)
				})
				if !errors.Is(err, grants.ErrNilContext) || !errors.Is(err, grants.ErrUnavailable) {
					t.Fatalf("%s(nil ctx) = %v, want an error matching ErrNilContext and ErrUnavailable", c.name, err)
				}
				if got, want := err.Error(), "grants: storage unavailable: grants: nil context"; got != want {
					t.Errorf("%s(nil ctx) text = %q, want %q", c.name, got, want)
				}
				l, err := m.ListGrants(context.Background(), "", "")
				if err != nil || l.Revision != 2 || len(l.Rows) != 1 || l.Rows[0].Tool != "t0" {
					t.Errorf("after %s(nil ctx): ListGrants = %+v, %v; want the one row t0 at revision 2, unchanged", c.name, l, err)
				}
			})
		}
	}
}
