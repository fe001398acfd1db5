// Package cursor seals and opens opaque, signed, expiring pagination cursors bound to
// facts it does not interpret.
package cursor

import (
	"errors"
	"time"
)

// Lifetime is how long a cursor stays valid, counted from the first page (SPEC CURSOR-3).
const Lifetime = 120 * time.Second

// ErrInvalid reports a cursor that is malformed, forged, altered, or bound to other facts.
var ErrInvalid = errors.New("cursor: invalid")

// ErrExpired reports a cursor older than Lifetime. errors.Is(ErrExpired, ErrInvalid) is
// true, so callers that do not care why can test for ErrInvalid alone.
var ErrExpired error = expiredError{}

type expiredError struct{}

func (expiredError) Error() string        { return "cursor: expired" }
func (expiredError) Is(target error) bool { return target == ErrInvalid }

// A Signer seals and opens cursors with HMAC-SHA256 under a random key generated in
// memory by NewSigner and never stored or returned (SPEC CURSOR-1). It is safe for
// concurrent use.
type Signer struct {
	key [32]byte
	now func() time.Time
}

// NewSigner returns a Signer with a fresh random key.
func NewSigner() *Signer { panic("unimplemented") }

// Seal returns a cursor for the page at offset, bound to binding (any bytes; typically a
// digest of the facts the next page must match), first issued at issued. The token is
// URL-safe text revealing nothing but opaque bytes (SPEC CURSOR-6).
func (s *Signer) Seal(binding []byte, offset int, issued time.Time) string {
	panic("unimplemented")
}

// Open checks token against binding and returns its offset and first-issue time.
// A token that fails any check answers ErrInvalid or ErrExpired, never a panic.
func (s *Signer) Open(token string, binding []byte) (offset int, issued time.Time, err error) {
	panic("unimplemented")
}
