// Package cursor seals and opens opaque, signed, expiring pagination cursors bound to
// facts it does not interpret.
//
// A cursor is an unstable, opaque token: its layout may change in any release and
// clients must treat it as an uninterpreted string. Today it is 44 characters of
// unpadded base64url (RFC 4648 §5) encoding 33 bytes:
//
//	version (1 byte, 0x01) | ciphertext (16 bytes) | tag (16 bytes)
//
// The ciphertext is one AES-256 block encrypting the page offset and the first-issue
// time (two big-endian int64: offset, Unix nanoseconds), so neither appears in clear
// (SPEC CURSOR-6). The tag is HMAC-SHA256, truncated to 128 bits, over the version, the
// ciphertext and the binding: the binding is authenticated by the token, never carried
// in it (encrypt-then-MAC). The AES and HMAC keys are derived with HMAC-SHA256 from 32
// bytes of crypto/rand drawn when the Signer is created and then discarded; the derived
// keys live only in the [Signer]'s memory and are never returned, logged or formatted
// (SPEC CURSOR-1). A token of another Signer, for example one from before a restart,
// fails the MAC and answers [ErrInvalid]. Tags are compared in constant time.
//
// Decisions where SPEC is silent:
//   - Encryption is deterministic: sealing the same offset, issue time and binding twice
//     gives the same token, and two tokens with equal offset and issue time share their
//     ciphertext. This reveals only equality, never a value, and keeps Seal free of
//     randomness and at one allocation.
//   - [Signer.Open] accepts an issue time up to [MaxClockSkew] in the future (the wall
//     clock may step back between two pages); beyond that the cursor is [ErrInvalid].
//   - A cursor exactly [Lifetime] old is still valid; one nanosecond older is [ErrExpired].
//   - A negative offset is never valid: Open answers [ErrInvalid] for it.
package cursor

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"sync"
	"time"
)

// Lifetime is how long a cursor stays valid, counted from the first page (SPEC CURSOR-3).
const Lifetime = 120 * time.Second

// MaxClockSkew is how far in the future a cursor's issue time may lie before Open
// refuses it as ErrInvalid. It absorbs a wall clock stepped back between two pages.
const MaxClockSkew = 5 * time.Second

// ErrInvalid reports a cursor that is malformed, forged, altered, or bound to other facts.
var ErrInvalid = errors.New("cursor: invalid")

// ErrExpired reports a cursor older than Lifetime. errors.Is(ErrExpired, ErrInvalid) is
// true, so callers that do not care why can test for ErrInvalid alone.
var ErrExpired error = expiredError{}

type expiredError struct{}

func (expiredError) Error() string        { return "cursor: expired" }
func (expiredError) Is(target error) bool { return target == ErrInvalid }

const (
	version  = 0x01
	blockLen = aes.BlockSize // ciphertext: offset and issue time
	tagLen   = 16            // HMAC-SHA256 truncated to 128 bits
	rawLen   = 1 + blockLen + tagLen
	textLen  = (rawLen*8 + 5) / 6 // unpadded base64: 44 characters, no spare bits
)

// The domain labels separate the two keys derived from the master key. The MAC key
// serves only cursor tags, so the tag needs no label of its own, and version,
// ciphertext and a 32-byte binding fit one SHA-256 block.
var (
	labelEnc = []byte("deferredtools cursor v1 aes key")
	labelMAC = []byte("deferredtools cursor v1 hmac key")
)

var enc = base64.RawURLEncoding

// A Signer seals and opens cursors with HMAC-SHA256 under a random key generated in
// memory by NewSigner and never stored or returned (SPEC CURSOR-1). It is safe for
// concurrent use. The zero Signer is ready to use: it draws its key on first use.
// A Signer must not be copied after first use. Formatting a Signer with fmt prints
// no key material.
type Signer struct {
	once sync.Once
	k    *keys     // behind a pointer so that even a copied Signer prints no key bytes
	macs sync.Pool // of *state, each with an HMAC-SHA256 under k.mac
}

// keys holds what a Signer derives from its master key, which itself is discarded.
type keys struct {
	block cipher.Block // AES-256 under the derived encryption key
	mac   [32]byte     // derived MAC key, for the pool's New
}

// state is the per-call scratch a Signer pools, so sealing and opening allocate
// nothing but the returned token.
type state struct {
	h    hash.Hash
	sum  [sha256.Size]byte
	raw  [rawLen]byte
	text [textLen]byte
	pt   [blockLen]byte
	msg  []byte // version | ciphertext | binding, copied so binding never escapes
}

// NewSigner returns a Signer with a fresh random key.
func NewSigner() *Signer {
	s := new(Signer)
	s.init()
	return s
}

func (s *Signer) init() {
	s.once.Do(func() {
		var master [32]byte
		rand.Read(master[:]) // never fails: crypto/rand crashes the program instead
		derive := func(label []byte, out []byte) {
			h := hmac.New(sha256.New, master[:])
			h.Write(label)
			h.Sum(out[:0])
		}
		k := new(keys)
		var encKey [32]byte
		derive(labelEnc, encKey[:])
		derive(labelMAC, k.mac[:])
		b, err := aes.NewCipher(encKey[:])
		if err != nil {
			panic("cursor: " + err.Error()) // unreachable: the key has a valid length
		}
		k.block = b
		clear(master[:])
		clear(encKey[:])
		s.k = k
		s.macs.New = func() any {
			return &state{h: hmac.New(sha256.New, k.mac[:]), msg: make([]byte, 0, 128)}
		}
	})
}

// Format prints a Signer without its keys, for every verb, so that logging one never
// leaks key material.
func (s *Signer) Format(f fmt.State, verb rune) {
	fmt.Fprint(f, "cursor.Signer{keys:redacted}")
}

func (s *Signer) get() *state {
	s.init()
	return s.macs.Get().(*state)
}

// tag computes the truncated MAC over st.raw's version and ciphertext and binding into
// st.sum.
func (st *state) tag(binding []byte) {
	st.msg = append(st.msg[:0], st.raw[:1+blockLen]...)
	st.msg = append(st.msg, binding...)
	st.h.Reset()
	st.h.Write(st.msg)
	st.h.Sum(st.sum[:0])
	if cap(st.msg) > 4096 {
		st.msg = make([]byte, 0, 128) // do not pool a huge buffer
	}
}

// Seal returns a cursor for the page at offset, bound to binding (any bytes; typically a
// digest of the facts the next page must match), first issued at issued. The token is
// URL-safe text revealing nothing but opaque bytes (SPEC CURSOR-6).
//
// Pass the issue time of the first page unchanged to every later page: a cursor is
// never renewed (SPEC CURSOR-3). The token keeps issued to the nanosecond (without its
// monotonic reading); issued must lie within the years 1678 to 2262. Seal allocates only
// the returned string.
func (s *Signer) Seal(binding []byte, offset int, issued time.Time) string {
	st := s.get()
	binary.BigEndian.PutUint64(st.pt[0:8], uint64(int64(offset)))
	binary.BigEndian.PutUint64(st.pt[8:16], uint64(issued.UnixNano()))
	st.raw[0] = version
	s.k.block.Encrypt(st.raw[1:1+blockLen], st.pt[:])
	st.tag(binding)
	copy(st.raw[1+blockLen:], st.sum[:tagLen])
	enc.Encode(st.text[:], st.raw[:])
	token := string(st.text[:])
	s.macs.Put(st)
	return token
}

// Open checks token against binding and returns its offset and first-issue time.
// A token that fails any check answers ErrInvalid or ErrExpired, never a panic.
// A token sealed by another Signer (another process, or before a restart), with another
// binding, or altered in any bit answers ErrInvalid; one older than Lifetime answers
// ErrExpired. Errors never include the token or the binding.
func (s *Signer) Open(token string, binding []byte) (offset int, issued time.Time, err error) {
	if len(token) != textLen {
		return 0, time.Time{}, ErrInvalid
	}
	st := s.get()
	defer s.macs.Put(st)
	copy(st.text[:], token)
	if n, err := enc.Decode(st.raw[:], st.text[:]); err != nil || n != rawLen {
		return 0, time.Time{}, ErrInvalid
	}
	if st.raw[0] != version {
		return 0, time.Time{}, ErrInvalid
	}
	st.tag(binding)
	if subtle.ConstantTimeCompare(st.sum[:tagLen], st.raw[1+blockLen:]) != 1 {
		return 0, time.Time{}, ErrInvalid
	}
	s.k.block.Decrypt(st.pt[:], st.raw[1:1+blockLen])
	off := int64(binary.BigEndian.Uint64(st.pt[0:8]))
	nanos := int64(binary.BigEndian.Uint64(st.pt[8:16]))
	if off < 0 || int64(int(off)) != off {
		return 0, time.Time{}, ErrInvalid
	}
	issued = time.Unix(0, nanos)
	now := time.Now()
	if issued.Sub(now) > MaxClockSkew {
		return 0, time.Time{}, ErrInvalid
	}
	if now.Sub(issued) > Lifetime {
		return 0, time.Time{}, ErrExpired
	}
	return int(off), issued, nil
}
