package sqlstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// childEnv names the database a re-executed test binary writes to as a child process of
// TestSQLiteManyProcesses; childIDEnv is the child's number and childDeadlineEnv the
// deadline of its writes (RFC 3339).
const (
	childEnv         = "DEFERRED_TOOLS_SQLSTORE_CHILD_DSN"
	childIDEnv       = "DEFERRED_TOOLS_SQLSTORE_CHILD_ID"
	childDeadlineEnv = "DEFERRED_TOOLS_SQLSTORE_CHILD_DEADLINE"
)

const (
	procs, goroutines, writesEach = 3, 16, 12
)

// TestSQLiteWriterChild is the child process of TestSQLiteManyProcesses; it is skipped
// when run directly.
func TestSQLiteWriterChild(t *testing.T) {
	dsn := os.Getenv(childEnv)
	if dsn == "" {
		t.Skip("runs only as a child process of TestSQLiteManyProcesses")
	}
	busyTimeout = time.Millisecond // every writer meets the lock held past its busy timeout
	id := os.Getenv(childIDEnv)
	db := dbtest.Open(t, "sqlite", dsn)
	s := New(db, SQLite)
	deadline, err := time.Parse(time.RFC3339Nano, os.Getenv(childDeadlineEnv))
	if err != nil {
		t.Fatalf("the deadline in %s: %v", childDeadlineEnv, err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var (
		wg     sync.WaitGroup
		failed atomic.Int64
	)
	for g := range goroutines {
		wg.Go(func() {
			for i := range writesEach {
				r := grants.Row{Principal: "p" + id, Tool: fmt.Sprintf("t%d-%d", g, i%4), Effect: grants.Allow}
				if _, err := s.Put(ctx, r); err != nil {
					failed.Add(1)
					t.Errorf("Put: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Errorf("%d failed writes", n)
	}
}

// SPEC GRANT-4: 3 processes × 16 goroutines write to one SQLite database at once, each
// write's busy timeout lowered to 1 ms: writers that meet the busy database retry within
// their context's deadline, so no write fails and the control revision counts every
// write exactly once.
func TestSQLiteManyProcesses(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in a child process")
	}
	if testing.Short() {
		t.Skip("starts 3 processes; skipped with -short")
	}
	dsn := dbtest.SQLiteDSN(t, "_pragma=busy_timeout(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)")
	db := dbtest.Open(t, "sqlite", dsn)
	if err := Migrate(context.Background(), db, SQLite, nil); err != nil {
		t.Fatal(err)
	}
	// Every write must succeed eventually, not within a fixed time: on a loaded machine
	// under -race one child has taken over 2 minutes, and with 48 writers retrying with
	// backoff one write can wait almost the whole run (p99 28 s in a 33 s run). So the
	// writes retry until shortly before this test's own deadline (go test -timeout).
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Minute)
	}
	deadline = deadline.Add(-15 * time.Second) // time left to report a failure
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSQLiteWriterChild$", "-test.count=1",
				"-test.timeout="+(time.Until(deadline)+5*time.Second).String())
			cmd.Env = append(os.Environ(), childEnv+"="+dsn, childIDEnv+"="+strconv.Itoa(p),
				childDeadlineEnv+"="+deadline.Format(time.RFC3339Nano))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GRANT-4: child %d failed (%v):\n%s", p, err, out)
			}
		})
	}
	wg.Wait()
	snap, err := New(db, SQLite).ListGrants(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1 + procs*goroutines*writesEach); snap.Revision != want {
		t.Errorf("GRANT-4: control revision %d after %d writes, want %d", snap.Revision, procs*goroutines*writesEach, want)
	}
	if want := procs * goroutines * 4; len(snap.Rows) != want {
		t.Errorf("%d rows, want %d", len(snap.Rows), want)
	}
}
