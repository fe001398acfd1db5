// Package nopanic runs a function under test and answers its panic as an error, for the
// tests that check that zero values and nil inputs never panic (SPEC ERR-5).
package nopanic

import "fmt"

// Call returns f's error, or the error "panic: <value>" when f panics.
func Call(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}
