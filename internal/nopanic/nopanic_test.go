package nopanic_test

import (
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/internal/nopanic"
)

// Call passes f's error through and turns a panic into an error naming its value.
func TestCall(t *testing.T) {
	want := errors.New("f's error")
	if err := nopanic.Call(func() error { return want }); err != want {
		t.Errorf("Call(f returning an error) = %v, want it", err)
	}
	if err := nopanic.Call(func() error { return nil }); err != nil {
		t.Errorf("Call(f returning nil) = %v", err)
	}
	if err := nopanic.Call(func() error { panic("boom") }); err == nil || err.Error() != "panic: boom" {
		t.Errorf("Call(f panicking) = %v, want panic: boom", err)
	}
}
