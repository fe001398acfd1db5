package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/grants"
)

// On SQLite a Store runs one write at a time: 16 goroutines writing at once through 8
// connections never hold two write transactions open together (they queue in the
// Store instead of racing for the database's one write lock through busy retries,
// which starved some writes for tens of seconds under load), and every write lands.
func TestSQLiteWritesQueue(t *testing.T) {
	db, c := openCountedConns(t, 8)
	ctx := context.Background()
	s := New(db, SQLite)
	defer s.Close()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 10 {
				r := grants.Row{Principal: "alice", Tool: fmt.Sprintf("t%d_%d", g, i), Effect: grants.Allow}
				if _, err := s.Put(ctx, r); err != nil {
					t.Errorf("Put: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if m := c.maxOpen.Load(); m != 1 {
		t.Errorf("%d write transactions open at once, want 1", m)
	}
	snap, err := s.ReadGrants(ctx, "alice")
	if err != nil || len(snap.Rows) != 160 || snap.Revision != 161 {
		t.Errorf("ReadGrants: %d rows at revision %d (%v), want 160 at 161 (the migrations count 1)", len(snap.Rows), snap.Revision, err)
	}
}

// A SQLite write waiting its turn in the Store's queue stops at its context's deadline
// and fails closed (storage unavailable), writing nothing.
func TestSQLiteWriteQueueDeadline(t *testing.T) {
	s, _ := newStore(t, backends()[0])
	defer s.Close()
	if s.dialect != SQLite {
		t.Fatal("backends()[0] is not SQLite")
	}
	s.writing <- struct{}{} // another write in progress
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := s.Put(ctx, grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow})
	if !errors.Is(err, grants.ErrUnavailable) {
		t.Errorf("Put behind a write in progress past its deadline = %v, want ErrUnavailable", err)
	}
	<-s.writing
	snap, err := s.ReadGrants(context.Background(), "alice")
	if err != nil || len(snap.Rows) != 0 {
		t.Errorf("ReadGrants after the refused Put: %v rows (%v), want none", snap, err)
	}
	if _, err := s.Put(context.Background(), grants.Row{Principal: "alice", Tool: "t", Effect: grants.Allow}); err != nil {
		t.Errorf("Put once the queue is free: %v", err)
	}
}
