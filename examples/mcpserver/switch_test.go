package main

import (
	"bytes"
	"strings"
	"testing"
)

// The server says at start, on stderr, whether discovery is on, and what
// off means; it then serves until its input ends.
func TestSwitchStatePrinted(t *testing.T) {
	for _, on := range []bool{true, false} {
		cmd := command(t, on)
		cmd.Stdin = strings.NewReader("")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("enabled=%t: %v\n%s", on, err, stderr.String())
		}
		if want := "mcpserver: " + switchState(on) + "\n"; !strings.Contains(stderr.String(), want) {
			t.Errorf("enabled=%t: stderr lacks %q:\n%s", on, want, stderr.String())
		}
	}
	if off := switchState(false); !strings.Contains(off, "every tool listed and callable, grants not read") {
		t.Errorf("the off line does not say what off means: %q", off)
	}
}
