package main

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeData writes a WordNet data file of the given synsets (their text after the
// offset, which must start with "%08d") and returns each one's offset.
func writeData(t *testing.T, path string, synsets []string) []int {
	t.Helper()
	var b strings.Builder
	b.WriteString("  1 license header line\n")
	var offs []int
	for _, s := range synsets {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%08d %s\n", b.Len(), s)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return offs
}

// run reads a small WordNet: "delete" (a target) has two senses, one shared with
// "cancel" (a target too, so it keeps its meaning) and one with "erase" and "creature"
// (denied); "expunction" derives from "delete". erase and expunction map to delete, nothing
// else does, and the output is Go.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	// The noun synset first: the verb's derivation pointer needs its offset.
	noun := writeData(t, filepath.Join(dir, "data.noun"), []string{"06 n 01 expunction 0 000 | the act of deleting"})
	verb := writeData(t, filepath.Join(dir, "data.verb"), []string{
		fmt.Sprintf("35 v 02 delete 0 cancel 0 001 + %08d n 0101 | remove", noun[0]),
		"32 v 03 erase 0 delete 0 creature 0 000 | wipe out",
	})
	os.WriteFile(filepath.Join(dir, "index.verb"), []byte(fmt.Sprintf("  1 header\ndelete v 2 1 @ 2 0 %08d %08d  \n", verb[0], verb[1])), 0o600)
	os.WriteFile(filepath.Join(dir, "index.noun"), []byte(fmt.Sprintf("expunction n 1 0 1 0 %08d  \n", noun[0])), 0o600)

	var out bytes.Buffer
	if err := run(&out, dir); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{`"erase":      {"delete"}`, `"expunction": {"delete"}`, "WordNet 3.0 Copyright 2006 by Princeton University"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %s:\n%s", want, got)
		}
	}
	for _, not := range []string{`"cancel"`, `"creature"`} {
		if strings.Contains(got, not) {
			t.Errorf("output maps %s:\n%s", not, got)
		}
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "related_gen.go", got, 0); err != nil {
		t.Errorf("output is not Go: %v", err)
	}
	if err := run(&out, filepath.Join(dir, "absent")); err == nil {
		t.Error("run on a folder without WordNet succeeded")
	}
}
