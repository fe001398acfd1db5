package cputime

import (
	"runtime"
	"testing"
)

// TestProcessAdvances checks that work shows as CPU time where the platform has it.
func TestProcessAdvances(t *testing.T) {
	start, ok := Process()
	if !ok {
		if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
			t.Fatal("no CPU time on a unix platform")
		}
		t.Skip("no CPU time on this platform")
	}
	x := 0
	for now, _ := Process(); now <= start; now, _ = Process() {
		for i := range 1 << 20 {
			x += i
		}
	}
	_ = x
}
