package cursor_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/deferredtools/deferredtools/cursor"
)

// A server seals the next page's offset bound to a digest of the facts that page must
// match, and opens it when the client comes back.
func ExampleSigner() {
	s := cursor.NewSigner()
	facts := sha256.Sum256([]byte("principal, scopes, contract digest, query, limit"))
	first := time.Now() // the first page's time, carried unchanged to every later page

	token := s.Seal(facts[:], 16, first)
	fmt.Println("token length:", len(token))

	offset, issued, err := s.Open(token, facts[:])
	fmt.Println("offset:", offset, "same issue time:", issued.Equal(first), "error:", err)

	other := sha256.Sum256([]byte("another query"))
	_, _, err = s.Open(token, other[:])
	fmt.Println("other facts:", err)

	restarted := cursor.NewSigner()
	_, _, err = restarted.Open(token, facts[:])
	fmt.Println("after a restart:", err)
	// Output:
	// token length: 44
	// offset: 16 same issue time: true error: <nil>
	// other facts: cursor: invalid
	// after a restart: cursor: invalid
}

// Callers that only need to know whether to restart discovery test for ErrInvalid,
// which ErrExpired satisfies too.
func ExampleErrExpired() {
	s := cursor.NewSigner()
	token := s.Seal([]byte("facts"), 16, time.Now().Add(-cursor.Lifetime-time.Minute))
	_, _, err := s.Open(token, []byte("facts"))
	fmt.Println(err, errors.Is(err, cursor.ErrExpired), errors.Is(err, cursor.ErrInvalid))
	// Output:
	// cursor: expired true true
}
