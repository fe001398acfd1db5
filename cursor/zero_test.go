package cursor_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/internal/nopanic"
)

// The zero Signer is ready to use: it draws its own random key on first use, so it
// opens what it sealed and refuses another zero Signer's token (a zero key would let
// anyone forge cursors). Nil and empty bindings and tokens get ErrInvalid or a token,
// never a panic. SPEC CURSOR-1, ERR-5.
func TestZeroSigner(t *testing.T) {
	now := time.Now()
	var a, b cursor.Signer
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"zero Seal/Open, nil binding", func() error {
			off, _, err := a.Open(a.Seal(nil, 3, now), nil)
			if err != nil || off != 3 {
				return fmt.Errorf("Open(Seal(nil, 3)) = %d, %v; want 3", off, err)
			}
			return nil
		}},
		{"another zero Signer's token", func() error {
			if _, _, err := b.Open(a.Seal(nil, 3, now), nil); !errors.Is(err, cursor.ErrInvalid) {
				return fmt.Errorf("= %v, want ErrInvalid", err)
			}
			return nil
		}},
		{"empty binding equals nil binding", func() error {
			if _, _, err := a.Open(a.Seal([]byte{}, 1, now), nil); err != nil {
				return fmt.Errorf("= %v, want the token opened", err)
			}
			return nil
		}},
		{"empty token", func() error {
			if _, _, err := a.Open("", nil); !errors.Is(err, cursor.ErrInvalid) {
				return fmt.Errorf("= %v, want ErrInvalid", err)
			}
			return nil
		}},
		{"zero issue time", func() error {
			if _, _, err := a.Open(a.Seal(nil, 1, time.Time{}), nil); !errors.Is(err, cursor.ErrExpired) {
				return fmt.Errorf("= %v, want ErrExpired", err)
			}
			return nil
		}},
	} {
		err := nopanic.Call(c.call)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
