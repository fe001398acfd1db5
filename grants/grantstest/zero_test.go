package grantstest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
	"github.com/deferredtools/deferredtools/internal/nopanic"
)

// Every fake built by literal works at its zero value: a wrapper whose Base is nil reads
// an empty store, an empty Snapshot at revision 1 (as MalformedReader's doc always
// said), never a panic; NoRevisionReader then answers revision 0, FailAfterReader fails
// after N reads as ever, HookReader calls Before first. A nil context reaches no
// Memory-less Base, so it answers the same. SPEC ERR-5, GRANT-5.
func TestZeroFakes(t *testing.T) {
	var nilCtx context.Context
	for _, ctx := range []context.Context{context.Background(), nilCtx} {
		for _, c := range []struct {
			name    string
			r       grants.Reader
			wantRev int64
		}{
			{"CountingReader", &grantstest.CountingReader{}, 1},
			{"HookReader", &grantstest.HookReader{}, 1},
			{"NoRevisionReader", &grantstest.NoRevisionReader{}, 0},
			{"FailAfterReader", &grantstest.FailAfterReader{N: 1}, 1},
		} {
			var snap *grants.Snapshot
			err := nopanic.Call(func() (err error) {
				snap, err = c.r.ReadGrants(ctx, "alice")
				return err
			})
			if err != nil || snap == nil || snap.Revision != c.wantRev || len(snap.Rows) != 0 {
				t.Errorf("%s{} (ctx %v): ReadGrants = %+v, %v; want an empty Snapshot at revision %d", c.name, ctx, snap, err, c.wantRev)
			}
		}
	}
	h := &grantstest.HookReader{Before: func(_ context.Context, call int64) error {
		if call == 2 {
			return grants.ErrUnavailable
		}
		return nil
	}}
	if _, err := h.ReadGrants(context.Background(), "alice"); err != nil {
		t.Errorf("HookReader{Before} read 1 = %v, want an empty Snapshot", err)
	}
	if _, err := h.ReadGrants(context.Background(), "alice"); err != grants.ErrUnavailable {
		t.Errorf("HookReader{Before} read 2 = %v, want Before's error", err)
	}
	c := &grantstest.CountingReader{}
	c.ReadGrants(context.Background(), "alice")
	if c.Calls() != 1 {
		t.Errorf("CountingReader{}.Calls() = %d after one read, want 1", c.Calls())
	}
}

// TestRunMisuseHelper runs the kit with a nil constructor or one making nil stores, in
// the subprocess TestRunMisuse starts.
func TestRunMisuseHelper(t *testing.T) {
	switch os.Getenv("GRANTSTEST_MISUSE") {
	case "":
		t.Skip("helper of TestRunMisuse; runs only in its subprocess")
	case "nil-newStore":
		grantstest.Run(t, nil)
	case "nil-store":
		grantstest.Run(t, func(*testing.T) grants.Store { return nil })
	}
}

// Run given a nil constructor, or one answering a nil Store, fails the test saying so,
// instead of a nil-pointer panic in a subtest that names no cause.
func TestRunMisuse(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	for _, tc := range []struct{ kind, want string }{
		{"nil-newStore", "grantstest: Run: nil newStore"},
		{"nil-store", "grantstest: Run: newStore returned a nil Store"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRunMisuseHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "GRANTSTEST_MISUSE="+tc.kind)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("Run passed with %s:\n%s", tc.kind, out)
			}
			if !strings.Contains(string(out), tc.want) || strings.Contains(string(out), "panic") {
				t.Errorf("Run with %s failed without saying %q (or panicked):\n%s", tc.kind, tc.want, out)
			}
		})
	}
}
