package heapsize

import "testing"

// TestRetained checks that a value kept alive is counted and a dropped one is not.
func TestRetained(t *testing.T) {
	const n = 8 << 20
	if got := Retained(func() any { return make([]byte, n) }); got < n || got > 2*n {
		t.Errorf("a live %d-byte slice retains %d bytes", n, got)
	}
	if got := Retained(func() any { _ = make([]byte, n); return nil }); got > n/2 {
		t.Errorf("a dropped %d-byte slice retains %d bytes", n, got)
	}
}
