package grantstest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

func memoryWith(t *testing.T, rows ...grants.Row) *grants.Memory {
	t.Helper()
	m := grants.NewMemory()
	for _, r := range rows {
		if _, err := m.Put(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// SPEC GRANT-5: storage errors, too many rows and malformed rows reach the consumer.
func TestFaultReaders(t *testing.T) {
	ctx := context.Background()
	base := memoryWith(t, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})

	if _, err := (&grantstest.ErrReader{}).ReadGrants(ctx, "alice"); !errors.Is(err, grants.ErrUnavailable) {
		t.Errorf("ErrReader{}.ReadGrants error = %v, want ErrUnavailable", err)
	}
	custom := errors.New("custom")
	if _, err := (&grantstest.ErrReader{Err: custom}).ReadGrants(ctx, "alice"); err != custom {
		t.Errorf("ErrReader{Err}.ReadGrants error = %v, want Err", err)
	}
	snap, err := (&grantstest.TooManyRowsReader{Revision: 4}).ReadGrants(ctx, "alice")
	if err != nil || len(snap.Rows) != grants.MaxRows+1 || snap.Revision != 4 {
		t.Errorf("TooManyRowsReader.ReadGrants = (%d rows, revision %v, %v), want MaxRows+1 rows at revision 4", len(snap.Rows), snap.Revision, err)
	}
	// Apart from the count, every row is well formed.
	if _, err := grants.Resolve(&grants.Snapshot{Revision: 4, Rows: snap.Rows[:grants.MaxRows]}, grants.Principal{ID: "alice"}); err != nil {
		t.Errorf("TooManyRowsReader rows are malformed: %v", err)
	}
	if _, err := (&grantstest.MalformedReader{Reason: "nonsense"}).ReadGrants(ctx, "alice"); err == nil {
		t.Error("MalformedReader with an unknown reason answered no error")
	}
	before, _ := base.ReadGrants(ctx, "alice")
	for _, reason := range grantstest.MalformedReasons {
		if _, err := (&grantstest.MalformedReader{Base: base, Reason: reason}).ReadGrants(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
	}
	if after, _ := base.ReadGrants(ctx, "alice"); len(after.Rows) != 1 || after != before {
		t.Error("MalformedReader modified its Base's Snapshot")
	}
	snap, err = (&grantstest.NoRevisionReader{Base: base}).ReadGrants(ctx, "alice")
	if err != nil || snap.Revision != 0 || len(snap.Rows) != 1 {
		t.Errorf("NoRevisionReader.ReadGrants = (%+v, %v), want base's row at revision 0", snap, err)
	}
	if before.Revision == 0 {
		t.Error("NoRevisionReader changed its Base's Snapshot")
	}
}

// SPEC CURSOR-4: readers whose answers change between the reads of one request.
func TestChangingReaders(t *testing.T) {
	ctx := context.Background()
	base := memoryWith(t, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})

	fa := &grantstest.FailAfterReader{Base: base, N: 2}
	for i := 1; i <= 4; i++ {
		_, err := fa.ReadGrants(ctx, "alice")
		if (err != nil) != (i > 2) || (err != nil && !errors.Is(err, grants.ErrUnavailable)) {
			t.Errorf("FailAfterReader{N: 2} read %d error = %v", i, err)
		}
	}
	// N of 0 or less fails the first read already (FailAfterReader's doc).
	for _, n := range []int64{0, -1} {
		if snap, err := (&grantstest.FailAfterReader{Base: base, N: n}).ReadGrants(ctx, "alice"); snap != nil || !errors.Is(err, grants.ErrUnavailable) {
			t.Errorf("FailAfterReader{N: %d} first read = (%v, %v), want ErrUnavailable", n, snap, err)
		}
	}

	s1 := &grants.Snapshot{Revision: 1}
	s2 := &grants.Snapshot{Revision: 2}
	seq := &grantstest.SequenceReader{Snapshots: []*grants.Snapshot{s1, s2}}
	for i, want := range []*grants.Snapshot{s1, s2, s2} {
		if got, err := seq.ReadGrants(ctx, "anyone"); got != want || err != nil {
			t.Errorf("SequenceReader read %d = (%v, %v), want snapshot %v", i, got, err, want.Revision)
		}
	}
	if _, err := (&grantstest.SequenceReader{}).ReadGrants(ctx, "alice"); !errors.Is(err, grants.ErrUnavailable) {
		t.Errorf("empty SequenceReader error = %v, want ErrUnavailable", err)
	}

	// A hook revoking the grant on the second read: what a request sees change mid-way.
	hook := &grantstest.HookReader{Base: base, Before: func(ctx context.Context, call int64) error {
		if call == 2 {
			return base.Delete(ctx, "alice", "t")
		}
		return nil
	}}
	first, _ := hook.ReadGrants(ctx, "alice")
	second, _ := hook.ReadGrants(ctx, "alice")
	if len(first.Rows) != 1 || len(second.Rows) != 0 || second.Revision <= first.Revision {
		t.Errorf("HookReader: reads saw %d then %d rows at revisions %d, %d; want the row revoked before read 2",
			len(first.Rows), len(second.Rows), first.Revision, second.Revision)
	}
	boom := errors.New("boom")
	if _, err := (&grantstest.HookReader{Base: base, Before: func(context.Context, int64) error { return boom }}).ReadGrants(ctx, "alice"); err != boom {
		t.Errorf("HookReader with a failing Before error = %v, want it", err)
	}

	c := &grantstest.CountingReader{Base: base}
	for range 3 {
		c.ReadGrants(ctx, "alice")
	}
	if c.Calls() != 3 {
		t.Errorf("CountingReader.Calls() = %d after 3 reads", c.Calls())
	}
}
