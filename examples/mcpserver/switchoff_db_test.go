package main

import (
	"os"
	"path/filepath"
	"testing"
)

// SPEC FLAG-2: with the switch off, a -db database is not opened, created or migrated:
// the server starts and answers tools/list, and no file appears at the path.
func TestSwitchOffLeavesDatabaseAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "grants.db")
	s := procLines(t, command(t, false, "-db", "sqlite:"+path))
	if got := s.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); len(got) == 0 {
		t.Fatal("no answer to tools/list")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("with the switch off the server wrote %s", e.Name())
	}
}
