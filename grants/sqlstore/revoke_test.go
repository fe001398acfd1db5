package sqlstore

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/dbtest"
)

// The child process of TestRevocationSeenAfterCommit reads the database from these
// variables.
const (
	writerDSNEnv     = "DEFERRED_TOOLS_SQLSTORE_WRITER_DSN"
	writerDialectEnv = "DEFERRED_TOOLS_SQLSTORE_WRITER_DIALECT"
)

// writerSteps are the writes the child makes in turn, each naming whether alice holds
// tool "t" after it: through a Store and by plain SQL, which the triggers count.
var writerSteps = []struct {
	cmd     string
	granted bool
}{
	{"put-allow", true},
	{"sql-delete", false},
	{"sql-upsert-allow", true},
	{"sql-update-deny", false},
	{"sql-update-allow", true},
	{"remove", false},
	{"sql-insert-allow", true},
	{"put-deny", false},
}

// TestRevocationWriterChild is the writer process of TestRevocationSeenAfterCommit: it
// runs each command read from stdin as one committed write, then prints "ok". It is
// skipped when run directly.
func TestRevocationWriterChild(t *testing.T) {
	dsn := os.Getenv(writerDSNEnv)
	if dsn == "" {
		t.Skip("runs only as a child process of TestRevocationSeenAfterCommit")
	}
	d, driver := SQLite, "sqlite"
	if os.Getenv(writerDialectEnv) == "postgres" {
		d, driver = Postgres, "pgx"
	}
	db := dbtest.Open(t, driver, dsn)
	s := New(db, d)
	ctx := context.Background()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var err error
		switch in.Text() {
		case "put-allow":
			_, err = s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
		case "put-deny":
			_, err = s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Deny})
		case "remove":
			err = s.Delete(ctx, "alice", "t")
		case "sql-delete":
			_, err = db.Exec("DELETE FROM tool_grants WHERE principal_id = 'alice' AND tool_name = 't'")
		case "sql-upsert-allow":
			_, err = db.Exec("INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 't', 'allow') ON CONFLICT (principal_id, tool_name) DO UPDATE SET effect = excluded.effect")
		case "sql-update-deny":
			_, err = db.Exec("UPDATE tool_grants SET effect = 'deny' WHERE principal_id = 'alice' AND tool_name = 't'")
		case "sql-update-allow":
			_, err = db.Exec("UPDATE tool_grants SET effect = 'allow', revision = (SELECT revision FROM control_revisions WHERE name = 'model_grants') WHERE principal_id = 'alice' AND tool_name = 't'")
		case "sql-insert-allow":
			_, err = db.Exec("INSERT INTO tool_grants (principal_id, tool_name, effect) VALUES ('alice', 't', 'allow')")
		default:
			t.Fatalf("unknown command %q", in.Text())
		}
		if err != nil {
			t.Fatalf("%s: %v", in.Text(), err)
		}
		fmt.Println("ok") // the write has committed
	}
}

// A readRecord is one ReadGrants of the readers: when it started and ended, and whether
// alice held "t".
type readRecord struct {
	start, end time.Time
	granted    bool
}

// SPEC GRANT-4, GRANT-6: a change committed by another process, through a Store or by
// plain SQL, is seen by every read that starts after its commit, although the reading
// Store answers unchanged revisions from its cache. A writer process grants and revokes
// alice's tool in turn, printing "ok" once each write committed; four goroutines of
// this process read through one caching Store meanwhile. Every read that started after
// an "ok" and ended before the next command was sent must show that write's state.
func TestRevocationSeenAfterCommit(t *testing.T) {
	if os.Getenv(writerDSNEnv) != "" {
		t.Skip("in a child process")
	}
	if testing.Short() {
		t.Skip("starts a writer process; skipped with -short")
	}
	for _, be := range backends() {
		t.Run(be.dialect.String(), func(t *testing.T) {
			var dsn, driver string
			if be.dialect == SQLite {
				dsn, driver = dbtest.SQLiteDSN(t, "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"), "sqlite"
			} else {
				dsn, driver = dbtest.PostgresDSN(t), "pgx"
			}
			db := dbtest.Open(t, driver, dsn)
			if err := Migrate(context.Background(), db, be.dialect, nil); err != nil {
				t.Fatal(err)
			}
			s := New(db, be.dialect)

			cmd := exec.Command(os.Args[0], "-test.run=^TestRevocationWriterChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), writerDSNEnv+"="+dsn, writerDialectEnv+"="+be.dialect.String())
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			out := bufio.NewScanner(stdout)

			var (
				stop    atomic.Bool
				wg      sync.WaitGroup
				mu      sync.Mutex
				records []readRecord
				failed  atomic.Int64
			)
			for range 4 {
				wg.Go(func() {
					var mine []readRecord
					for !stop.Load() {
						start := time.Now()
						snap, err := s.ReadGrants(context.Background(), "alice")
						end := time.Now()
						if err != nil {
							failed.Add(1)
							continue
						}
						d, err := grants.Resolve(snap, grants.Principal{ID: "alice"})
						if err != nil {
							failed.Add(1)
							continue
						}
						mine = append(mine, readRecord{start, end, d.Allows("t")})
					}
					mu.Lock()
					records = append(records, mine...)
					mu.Unlock()
				})
			}

			// One window per write: from its "ok" to the next command's send.
			type window struct {
				from, to time.Time
				granted  bool
				cmd      string
			}
			var windows []window
			rounds := 3 * len(writerSteps)
			for i := range rounds {
				st := writerSteps[i%len(writerSteps)]
				if i > 0 {
					windows[len(windows)-1].to = time.Now()
				}
				if _, err := io.WriteString(stdin, st.cmd+"\n"); err != nil {
					t.Fatal(err)
				}
				if !out.Scan() || out.Text() != "ok" {
					stdin.Close()
					cmd.Wait()
					t.Fatalf("writer failed at %s (%q):\n%s", st.cmd, out.Text(), stderr.String())
				}
				windows = append(windows, window{from: time.Now(), granted: st.granted, cmd: st.cmd})
				time.Sleep(30 * time.Millisecond)
			}
			windows[len(windows)-1].to = time.Now()
			stop.Store(true)
			wg.Wait()
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("writer: %v\n%s", err, stderr.String())
			}
			if n := failed.Load(); n > 0 {
				t.Errorf("%d reads failed", n)
			}

			checked, stale := 0, 0
			for _, r := range records {
				for _, w := range windows {
					if r.start.After(w.from) && r.end.Before(w.to) {
						checked++
						if r.granted != w.granted {
							stale++
							if stale <= 5 {
								t.Errorf("GRANT-6: a read started %v after %s committed answered granted=%v, want %v",
									r.start.Sub(w.from), w.cmd, r.granted, w.granted)
							}
						}
					}
				}
			}
			if stale > 0 {
				t.Errorf("GRANT-6: %d of %d reads inside a write's window answered the state before it", stale, checked)
			}
			if checked < 2*rounds {
				t.Errorf("only %d reads fell inside the %d windows: the test proved little", checked, rounds)
			}
			if s.reads.delta.Load() == 0 {
				t.Error("no read brought its cached Snapshot up to date from the changes: the delta reads went unchecked")
			}
			t.Logf("%d reads checked in %d windows (%d full reads, %d delta reads)", checked, rounds, s.reads.full.Load(), s.reads.delta.Load())
		})
	}
}

// SPEC GRANT-4, CURSOR-5: a read made right after a Put returns answers that Put's
// revision or a later one, never an older Snapshot nor an error, while readers of the
// same principal and of others keep the pool's connections busy (each may have served
// the cached read or a full one at an older revision just before).
func TestReadAfterPutSeesIt(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.dialect.String(), func(t *testing.T) {
			s, db := newStore(t, b)
			db.SetMaxOpenConns(6)
			db.SetMaxIdleConns(6)
			ctx := context.Background()
			for i := range 100 {
				if _, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: fmt.Sprintf("tool-%03d", i), Scopes: []string{"read"}, Effect: grants.Allow}); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			stop := make(chan struct{})
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := s.ReadGrants(ctx, []string{"alice", fmt.Sprint("other", g)}[g%2]); err != nil {
							t.Errorf("reader: %v", err)
							return
						}
					}
				}()
			}
			defer func() { close(stop); wg.Wait() }()
			for i := range 300 {
				r, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: fmt.Sprintf("tool-%03d", i%10), Effect: grants.Allow})
				if err != nil {
					t.Fatal(err)
				}
				snap, err := s.ReadGrants(ctx, "alice")
				if err != nil {
					t.Fatalf("read right after the Put of revision %d: %v", r.Revision, err)
				}
				if snap.Revision < r.Revision {
					t.Fatalf("read right after the Put of revision %d answered revision %d", r.Revision, snap.Revision)
				}
			}
		})
	}
}
