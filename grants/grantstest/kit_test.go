package grantstest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// broken is a grants.Store with one deliberate bug, named by kind, over a Memory.
type broken struct {
	kind    string
	m       *grants.Memory
	mu      sync.Mutex
	deletes int64
	last    *grants.Snapshot
}

var _ grants.Store = (*broken)(nil)

func (b *broken) ReadGrants(ctx context.Context, p string) (*grants.Snapshot, error) {
	if b.kind == "ignores-context" {
		ctx = context.Background()
	}
	snap, err := b.m.ReadGrants(ctx, p)
	if b.kind == "bound-counts-all" && err == nil {
		// The bound applied to every stored row, not the principal's applicable ones.
		if all, lerr := b.m.ListGrants(ctx, "", ""); lerr == nil && len(all.Rows) > grants.MaxRows {
			return nil, grants.ErrTooManyRows
		}
	}
	switch {
	case b.kind == "empty-when-too-many" && errors.Is(err, grants.ErrTooManyRows):
		return &grants.Snapshot{Revision: 1}, nil
	case err != nil:
		return nil, err
	}
	c := &grants.Snapshot{Revision: snap.Revision, Rows: append([]grants.Row(nil), snap.Rows...)}
	switch b.kind {
	case "leaks-principals":
		if bob, err := b.m.ReadGrants(ctx, "bob"); err == nil {
			for _, r := range bob.Rows {
				if r.Principal == "bob" && p != "bob" {
					c.Rows = append(c.Rows, r)
				}
			}
		}
	case "delete-keeps-revision":
		b.mu.Lock()
		c.Revision -= b.deletes
		b.mu.Unlock()
	case "aliases":
		b.mu.Lock()
		b.last = c
		b.mu.Unlock()
	}
	return c, nil
}

func (b *broken) Put(ctx context.Context, r grants.Row) (grants.Row, error) {
	if b.kind == "accepts-malformed" && grants.CheckRow(grants.Row{Principal: r.Principal, Tool: r.Tool, Effect: r.Effect, Scopes: r.Scopes, Revision: 1}) != nil {
		r.Revision = 1
		return r, nil
	}
	if b.kind == "aliases" {
		b.mu.Lock()
		if b.last != nil && len(b.last.Rows) > 0 {
			b.last.Rows[0].Effect = r.Effect // a write showing through an old Snapshot
			b.last.Rows[0].Revision++
		}
		b.mu.Unlock()
	}
	return b.m.Put(ctx, r)
}

func (b *broken) Delete(ctx context.Context, p, tool string) error {
	if b.kind == "delete-keeps-revision" {
		before, _ := b.m.ReadGrants(context.Background(), p)
		if err := b.m.Delete(ctx, p, tool); err != nil {
			return err
		}
		if after, _ := b.m.ReadGrants(context.Background(), p); after.Revision != before.Revision {
			b.mu.Lock()
			b.deletes++
			b.mu.Unlock()
		}
		return nil
	}
	return b.m.Delete(ctx, p, tool)
}

// brokenLister is a broken store that is also a grants.Lister with a listing bug.
type brokenLister struct{ *broken }

func (b brokenLister) ListGrants(ctx context.Context, p, tool string) (*grants.Listing, error) {
	if b.kind == "lists-ignoring-tool" {
		tool = ""
	}
	l, err := b.m.ListGrants(ctx, p, tool)
	if err == nil && b.kind == "lists-unsorted" {
		slices.Reverse(l.Rows)
	}
	return l, err
}

// TestBrokenStoreHelper runs the kit over one broken store, in the subprocess
// TestKitCatchesBrokenStores starts.
func TestBrokenStoreHelper(t *testing.T) {
	kind := os.Getenv("GRANTSTEST_BROKEN")
	if kind == "" {
		t.Skip("helper of TestKitCatchesBrokenStores; runs only in its subprocess")
	}
	grantstest.Run(t, func(*testing.T) grants.Store {
		b := &broken{kind: kind, m: grants.NewMemory()}
		if strings.HasPrefix(kind, "lists-") {
			return brokenLister{b}
		}
		return b
	})
}

// The kit fails each broken store, naming the rule that broke.
func TestKitCatchesBrokenStores(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	for _, tc := range []struct{ kind, want string }{
		{"leaks-principals", "GRANT-5: ReadGrants(alice) rows"},
		{"delete-keeps-revision", "GRANT-4: control revision"},
		{"aliases", "GRANT-4: an earlier Snapshot changed"},
		{"accepts-malformed", "GRANT-5: Put("},
		// Rows print with their strings quoted: an empty scope, a DEL or a newline
		// stays visible in the message.
		{"accepts-malformed", `Scopes:[""]`},
		{"accepts-malformed", `Scopes:["a\x7f"]`},
		{"ignores-context", "want no Snapshot and an error matching context.Canceled"},
		{"empty-when-too-many", "want no Snapshot and ErrTooManyRows"},
		{"bound-counts-all", "GRANT-5: ReadGrants(alice) with exactly MaxRows applicable rows"},
		{"lists-unsorted", "(sorted by principal, then tool)"},
		{"lists-ignoring-tool", `GRANT-1: ListGrants("", "t1") rows`},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Run(tc.kind, func(t *testing.T) {
				cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenStoreHelper$", "-test.v")
				cmd.Env = append(os.Environ(), "GRANTSTEST_BROKEN="+tc.kind)
				out, err := cmd.CombinedOutput()
				if err == nil {
					t.Fatalf("the kit passed a store that %s:\n%s", tc.kind, out)
				}
				if !strings.Contains(string(out), tc.want) {
					t.Errorf("the kit failed a store that %s without saying %q:\n%s", tc.kind, tc.want, out)
				}
			})
		})
	}
}
