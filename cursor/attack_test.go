package cursor_test

// Attacks on cursors from outside the package, against Signer's doc.

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/cursor"
)

// Signer's doc: "The zero Signer is ready to use: it draws its key on first use" and
// "It is safe for concurrent use". A zero Signer first used by many goroutines at once
// draws one key: every token opens under every goroutine (run under -race). Breaks if
// the first use drew a key per racing goroutine, or without synchronisation.
func TestAttackZeroSignerFirstUseRaces(t *testing.T) {
	for range 20 {
		var s cursor.Signer
		issued := time.Now()
		const n = 8
		toks := make([]string, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := range n {
			wg.Go(func() {
				<-start
				toks[g] = s.Seal([]byte{byte(g)}, g, issued)
			})
		}
		close(start)
		wg.Wait()
		for g := range n {
			wg.Go(func() {
				for k, tok := range toks {
					if off, _, err := s.Open(tok, []byte{byte(k)}); err != nil || off != k {
						t.Errorf("goroutine %d: Open(token of goroutine %d) = %d, %v", g, k, off, err)
					}
				}
			})
		}
		wg.Wait()
	}
}

// Open's doc: "A token that fails any check answers ErrInvalid or ErrExpired, never a
// panic" and "Errors never include the token". Tokens of every length around the
// powers of two up to 1 MiB, and valid tokens cut or extended by one character, are
// ErrInvalid (never ErrExpired: nothing was authenticated), with zero values. Breaks if
// a wrong length reached the fixed-size decode, or a prefix were accepted.
func TestAttackTokenLengths(t *testing.T) {
	s := cursor.NewSigner()
	binding := []byte("b")
	valid := s.Seal(binding, 3, time.Now())
	try := func(what, tok string) {
		t.Helper()
		off, issued, err := s.Open(tok, binding)
		if !errors.Is(err, cursor.ErrInvalid) || errors.Is(err, cursor.ErrExpired) || off != 0 || !issued.IsZero() {
			t.Errorf("Open(%s) = %d, %v, %v; want ErrInvalid and zero values", what, off, issued, err)
		}
		if err != nil && len(tok) >= 8 && strings.Contains(err.Error(), tok[:8]) {
			t.Errorf("Open(%s): error %q quotes the token", what, err)
		}
	}
	for n := 0; n <= 20; n++ {
		for _, l := range []int{1<<n - 1, 1 << n, 1<<n + 1} {
			if l == len(valid) || l < 0 {
				continue
			}
			try(fmt.Sprintf("%d characters of A", l), strings.Repeat("A", l))
			try(fmt.Sprintf("a valid token repeated to %d characters", l), strings.Repeat(valid, l/len(valid)+1)[:l])
		}
	}
	try("a valid token without its last character", valid[:len(valid)-1])
	try("a valid token with one character more", valid+"A")
	try("a valid token padded with =", valid+"=")
	try("a valid token with a newline", valid[:20]+"\n"+valid[21:])
	// The same bytes in standard base64 ('+' and '/' for '-' and '_'), for tokens that
	// have either character.
	for off := 0; off < 200; off++ {
		tok := s.Seal(binding, off, time.Now())
		if std := strings.NewReplacer("-", "+", "_", "/").Replace(tok); std != tok {
			try("a valid token in standard base64", std)
		}
	}
}

// ErrExpired's doc: "errors.Is(ErrExpired, ErrInvalid) is true, so callers that do
// not care why can test for ErrInvalid alone" — also once a caller wrapped it, as
// hosts do. Breaks if ErrExpired matched ErrInvalid only by identity.
func TestAttackWrappedExpiredIsInvalid(t *testing.T) {
	wrapped := fmt.Errorf("page 2: %w", cursor.ErrExpired)
	if !errors.Is(wrapped, cursor.ErrInvalid) || !errors.Is(wrapped, cursor.ErrExpired) {
		t.Errorf("wrapped ErrExpired: Is(ErrInvalid) %v, Is(ErrExpired) %v; want both", errors.Is(wrapped, cursor.ErrInvalid), errors.Is(wrapped, cursor.ErrExpired))
	}
	if errors.Is(fmt.Errorf("x: %w", cursor.ErrInvalid), cursor.ErrExpired) {
		t.Error("wrapped ErrInvalid is ErrExpired")
	}
}
