package cursor

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/deferredtools/deferredtools/internal/cputime"
)

var raceEnabled = false

// inBubble runs f in a testing/synctest bubble, whose clock stands still until f sleeps,
// so that expiry is tested to the nanosecond. t0, a moment before the bubble's start
// with a sub-second part as real issue times have, is the issue time tests seal with.
func inBubble(t *testing.T, f func(t *testing.T, t0 time.Time)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		f(t, time.Now().Add(-time.Second+123456789))
	})
}

func TestSealOpenRoundTrip(t *testing.T) {
	inBubble(t, func(t *testing.T, t0 time.Time) {
		s := NewSigner()
		binding := []byte("facts")
		for _, off := range []int{0, 1, 16, 1023, 1 << 40, int(^uint(0) >> 1)} {
			tok := s.Seal(binding, off, t0)
			if len(tok) != textLen {
				t.Errorf("len(Seal(offset %d)) = %d, want %d", off, len(tok), textLen)
			}
			gotOff, gotIssued, err := s.Open(tok, binding)
			if err != nil {
				t.Fatalf("Open(Seal(offset %d)) error = %v", off, err)
			}
			if gotOff != off || !gotIssued.Equal(t0) {
				t.Errorf("Open(Seal(offset %d, %v)) = %d, %v, want the same", off, t0, gotOff, gotIssued)
			}
		}
	})
}

// SPEC CURSOR-2: a cursor opened with any other binding is invalid.
func TestOpenOtherBindingInvalid(t *testing.T) {
	inBubble(t, func(t *testing.T, t0 time.Time) {
		s := NewSigner()
		tok := s.Seal([]byte("principal=a;query=x"), 16, t0)
		for _, b := range [][]byte{nil, []byte(""), []byte("principal=a;query=y"), []byte("principal=a;query=x "), []byte("principal=a;query=")} {
			if _, _, err := s.Open(tok, b); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrExpired) {
				t.Errorf("Open(tok, %q) error = %v, want ErrInvalid", b, err)
			}
		}
		if _, _, err := s.Open(tok, []byte("principal=a;query=x")); err != nil {
			t.Errorf("Open(tok, same binding) error = %v, want nil", err)
		}
	})
}

// SPEC CURSOR-1: another Signer (another process, or this one after a restart) refuses
// every cursor of the first.
func TestRestartInvalidatesCursors(t *testing.T) {
	inBubble(t, func(t *testing.T, t0 time.Time) {
		before := NewSigner()
		after := NewSigner()
		for off := range 50 {
			tok := before.Seal([]byte("b"), off, t0)
			if _, _, err := after.Open(tok, []byte("b")); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrExpired) {
				t.Fatalf("restarted Signer: Open(offset %d) error = %v, want ErrInvalid", off, err)
			}
		}
	})
}

// SPEC CURSOR-3: a cursor lives Lifetime from the first page, and later pages, sealed
// with the first page's issue time, do not renew it.
func TestLifetime(t *testing.T) {
	tests := []struct {
		name    string
		age     time.Duration // now minus the issue time
		wantErr error
	}{
		{"at issue", 0, nil},
		{"just before expiry", Lifetime - time.Nanosecond, nil},
		{"exactly Lifetime", Lifetime, nil},
		{"one nanosecond late", Lifetime + time.Nanosecond, ErrExpired},
		{"an hour late", time.Hour, ErrExpired},
		{"issued in the future within skew", -MaxClockSkew, nil},
		{"issued in the future beyond skew", -MaxClockSkew - time.Nanosecond, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T, _ time.Time) {
				s := NewSigner()
				tok := s.Seal([]byte("b"), 16, time.Now().Add(-tt.age))
				_, _, err := s.Open(tok, []byte("b"))
				switch {
				case tt.wantErr == nil && err != nil:
					t.Errorf("Open error = %v, want nil", err)
				case tt.wantErr == ErrExpired && (err != ErrExpired || !errors.Is(err, ErrInvalid)):
					t.Errorf("Open error = %v, want ErrExpired (which is also ErrInvalid)", err)
				case tt.wantErr == ErrInvalid && (!errors.Is(err, ErrInvalid) || errors.Is(err, ErrExpired)):
					t.Errorf("Open error = %v, want ErrInvalid, not ErrExpired", err)
				}
			})
		})
	}

	t.Run("no renewal", func(t *testing.T) {
		inBubble(t, func(t *testing.T, _ time.Time) {
			s := NewSigner()
			first := s.Seal([]byte("b"), 16, time.Now())
			time.Sleep(100 * time.Second) // the second page is sealed 100 s in, with the first's issue time
			_, issued, err := s.Open(first, []byte("b"))
			if err != nil {
				t.Fatal(err)
			}
			second := s.Seal([]byte("b"), 32, issued)
			time.Sleep(Lifetime - 100*time.Second + time.Second)
			if _, _, err := s.Open(second, []byte("b")); err != ErrExpired {
				t.Errorf("second page at first issue + 121 s: Open error = %v, want ErrExpired (no renewal)", err)
			}
		})
	})
}

// Sealing is deterministic (a documented decision): equal inputs give equal tokens, and
// any other binding gives another tag.
func TestSealDeterministic(t *testing.T) {
	inBubble(t, func(t *testing.T, t0 time.Time) {
		s := NewSigner()
		a := s.Seal([]byte("b"), 16, t0)
		if b := s.Seal([]byte("b"), 16, t0); a != b {
			t.Errorf("Seal twice = %q, %q, want equal tokens", a, b)
		}
		if b := s.Seal([]byte("c"), 16, t0); a == b || a[:22] != b[:22] {
			t.Errorf("Seal with another binding = %q, %q, want the same ciphertext (first 22 characters) and another tag", a, b)
		}
		if b := s.Seal([]byte("b"), 16, t0.Add(time.Nanosecond)); a == b {
			t.Error("Seal ignores a nanosecond of issue time")
		}
	})
}

func TestExpiredIsInvalid(t *testing.T) {
	if !errors.Is(ErrExpired, ErrInvalid) {
		t.Error("errors.Is(ErrExpired, ErrInvalid) = false, want true")
	}
	if errors.Is(ErrInvalid, ErrExpired) {
		t.Error("errors.Is(ErrInvalid, ErrExpired) = true, want false")
	}
}

func TestNegativeOffsetNeverOpens(t *testing.T) {
	inBubble(t, func(t *testing.T, t0 time.Time) {
		s := NewSigner()
		tok := s.Seal([]byte("b"), -1, t0)
		if _, _, err := s.Open(tok, []byte("b")); !errors.Is(err, ErrInvalid) {
			t.Errorf("Open(Seal(offset -1)) error = %v, want ErrInvalid", err)
		}
	})
}

// SPEC CURSOR-6: nothing the caller bound, nor the offset or the issue time, appears in
// the token, in clear or in any common encoding.
func TestTokenIsOpaque(t *testing.T) {
	inBubble(t, func(t *testing.T, t0 time.Time) {
		s := NewSigner()
		const canary = "principal-alice|scope-admin|query-model-search"
		binding := []byte(canary)
		for _, off := range []int{0, 7, 16, 4096, 123456789} {
			tok := s.Seal(binding, off, t0)
			raw, err := base64.RawURLEncoding.DecodeString(tok)
			if err != nil {
				t.Fatalf("token is not unpadded base64url: %v", err)
			}
			var offBytes, timeBytes [8]byte
			binary.BigEndian.PutUint64(offBytes[:], uint64(off))
			binary.BigEndian.PutUint64(timeBytes[:], uint64(t0.UnixNano()))
			leaks := map[string]string{
				"canary":              canary,
				"canary word":         "alice",
				"canary hex":          hex.EncodeToString(binding)[:16],
				"canary base64":       base64.StdEncoding.EncodeToString(binding)[:12],
				"canary base64url":    base64.RawURLEncoding.EncodeToString(binding)[:12],
				"issue time unix":     fmt.Sprint(t0.Unix()),
				"issue time RFC 3339": t0.Format(time.RFC3339)[:10],
			}
			for what, s := range leaks {
				if strings.Contains(tok, s) || bytes.Contains(raw, []byte(s)) {
					t.Errorf("token for offset %d reveals the %s", off, what)
				}
			}
			if off > 0 && bytes.Contains(raw, offBytes[2:]) {
				t.Errorf("token for offset %d contains the offset in clear", off)
			}
			if bytes.Contains(raw, timeBytes[:6]) {
				t.Errorf("token for offset %d contains the issue time in clear", off)
			}
		}
		// Neighbouring offsets give unrelated ciphertexts, not a counter.
		a, _ := base64.RawURLEncoding.DecodeString(s.Seal(binding, 16, t0))
		b, _ := base64.RawURLEncoding.DecodeString(s.Seal(binding, 17, t0))
		same := 0
		for i := 1; i < 1+blockLen; i++ {
			if a[i] == b[i] {
				same++
			}
		}
		if same > 4 {
			t.Errorf("ciphertexts of offsets 16 and 17 share %d of %d bytes, want an unrelated block", same, blockLen)
		}
	})
}

// Property: a one-bit flip anywhere in a valid token's bytes, and any change of one of
// its characters, is rejected with ErrInvalid.
func TestOneBitFlipRejected(t *testing.T) {
	inBubble(t, func(t *testing.T, t0 time.Time) {
		s := NewSigner()
		r := rand.New(rand.NewPCG(1, 2))
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		others := alphabet + "+/=.~ \n\r\x00é"
		for range 20 {
			binding := make([]byte, r.IntN(64))
			for i := range binding {
				binding[i] = byte(r.Uint32())
			}
			off := r.IntN(1 << 20)
			tok := s.Seal(binding, off, t0.Add(-time.Duration(r.Int64N(int64(Lifetime)))))
			if _, _, err := s.Open(tok, binding); err != nil {
				t.Fatalf("Open(valid token) error = %v", err)
			}
			raw, err := base64.RawURLEncoding.DecodeString(tok)
			if err != nil {
				t.Fatal(err)
			}
			for bit := range len(raw) * 8 {
				flipped := bytes.Clone(raw)
				flipped[bit/8] ^= 1 << (bit % 8)
				ft := base64.RawURLEncoding.EncodeToString(flipped)
				if _, _, err := s.Open(ft, binding); !errors.Is(err, ErrInvalid) {
					t.Fatalf("Open(token with bit %d flipped) error = %v, want ErrInvalid", bit, err)
				}
			}
			for i := range len(tok) {
				for _, c := range strings.Split(others, "") {
					if c == tok[i:i+1] {
						continue
					}
					ft := tok[:i] + c + tok[i+1:]
					if _, _, err := s.Open(ft, binding); !errors.Is(err, ErrInvalid) {
						t.Fatalf("Open(token with character %d set to %q) error = %v, want ErrInvalid", i, c, err)
					}
				}
				// Insertions and deletions too.
				if _, _, err := s.Open(tok[:i]+tok[i+1:], binding); !errors.Is(err, ErrInvalid) {
					t.Fatalf("Open(token without character %d) error = %v, want ErrInvalid", i, err)
				}
				if _, _, err := s.Open(tok[:i]+"\n"+tok[i:], binding); !errors.Is(err, ErrInvalid) {
					t.Fatalf("Open(token with a newline at %d) error = %v, want ErrInvalid", i, err)
				}
			}
		}
	})
}

// SPEC CURSOR-1: the key is never returned, logged or formatted.
func TestSignerPrintsNoKey(t *testing.T) {
	inBubble(t, func(t *testing.T, t0 time.Time) {
		s := NewSigner()
		s.Seal([]byte("b"), 1, t0) // the pool holds an HMAC state too
		key := s.k.mac[:]
		forms := []string{
			hex.EncodeToString(key)[:16],
			strings.ToUpper(hex.EncodeToString(key)[:16]),
			base64.StdEncoding.EncodeToString(key)[:12],
			base64.RawURLEncoding.EncodeToString(key)[:12],
			fmt.Sprint(key[:4])[1:], // decimal bytes, as %v of a byte array prints them
			fmt.Sprintf("%#v", key[:4])[8:],
		}
		var out []string
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%q", "%d"} {
			out = append(out, fmt.Sprintf(verb, s))
		}
		//lint:ignore SA9005 the test checks that marshalling a Signer prints no key
		j, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(j))
		var logs bytes.Buffer
		slog.New(slog.NewTextHandler(&logs, nil)).Info("signer", "s", s)
		slog.New(slog.NewJSONHandler(&logs, nil)).Info("signer", "s", s)
		out = append(out, logs.String())
		for _, o := range out {
			for _, f := range forms {
				if strings.Contains(o, f) {
					t.Errorf("formatted Signer %q contains key bytes %q", o, f)
				}
			}
		}
	})
}

// SPEC ERR-2: errors are fixed texts that never include the token or the binding.
func TestErrorsQuoteNothing(t *testing.T) {
	inBubble(t, func(t *testing.T, t0 time.Time) {
		s := NewSigner()
		const canary = "CANARYcanaryCANARYcanaryCANARYcanaryCANARY12"
		for _, tok := range []string{canary, canary[:10], s.Seal([]byte("x"), 1, t0)} {
			_, _, err := s.Open(tok, []byte(canary))
			if err == nil {
				t.Fatalf("Open(%q) error = nil", tok)
			}
			if strings.Contains(err.Error(), "CANARY") || strings.Contains(err.Error(), tok) {
				t.Errorf("Open error %q quotes its input", err)
			}
		}
		expired := s.Seal([]byte(canary), 1, t0)
		time.Sleep(time.Hour)
		if _, _, err := s.Open(expired, []byte(canary)); err.Error() != "cursor: expired" {
			t.Errorf("expired error = %q, want %q", err, "cursor: expired")
		}
	})
}

func TestZeroSignerWorks(t *testing.T) {
	var s Signer
	tok := s.Seal([]byte("b"), 3, time.Now())
	if off, _, err := s.Open(tok, []byte("b")); err != nil || off != 3 {
		t.Errorf("zero Signer: Open(Seal(3)) = %d, %v, want 3, nil", off, err)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := NewSigner()
	issued := time.Now()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			b := []byte{byte(g)}
			for i := range 200 {
				tok := s.Seal(b, i, issued)
				if off, _, err := s.Open(tok, b); err != nil || off != i {
					t.Errorf("goroutine %d: Open(Seal(%d)) = %d, %v", g, i, off, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// SPEC PERF-5: Seal allocates only its token; Open allocates nothing.
func TestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled items at random: allocation counts are measured without -race")
	}
	s := NewSigner()
	var binding [32]byte
	issued := time.Now()
	tok := s.Seal(binding[:], 16, issued)
	if n := testing.AllocsPerRun(100, func() { s.Seal(binding[:], 16, issued) }); n > 1 {
		t.Errorf("Seal allocations = %v, want at most 1", n)
	}
	if n := testing.AllocsPerRun(100, func() { s.Open(tok, binding[:]) }); n > 0 {
		t.Errorf("Open allocations = %v, want 0", n)
	}
}

// FuzzOpen: junk never panics and always answers an error that is ErrInvalid.
func FuzzOpen(f *testing.F) {
	other := NewSigner()
	f.Add(other.Seal([]byte("b"), 16, time.Now()), []byte("b"))
	f.Add("", []byte(nil))
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", []byte("b"))
	f.Add("////////////////////////////////////////////", []byte{})
	f.Add("AQ", []byte("x"))
	s := NewSigner()
	f.Fuzz(func(t *testing.T, token string, binding []byte) {
		off, issued, err := s.Open(token, binding)
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("Open(junk) = %d, %v, %v; want an error that is ErrInvalid", off, issued, err)
		}
		if off != 0 || !issued.IsZero() {
			t.Fatalf("Open(junk) returned values %d, %v with its error", off, issued)
		}
	})
}

// FuzzSealOpen: any binding and offset round-trip, and no other binding opens the token.
func FuzzSealOpen(f *testing.F) {
	f.Add([]byte("principal|scopes|digest|query|16"), []byte("principal|scopes|digest|query|15"), int64(16), int64(0))
	f.Add([]byte(nil), []byte{0}, int64(0), int64(-int64(Lifetime)))
	f.Add(bytes.Repeat([]byte{0xff}, 5000), []byte(""), int64(1<<62), int64(MaxClockSkew))
	s := NewSigner()
	f.Fuzz(func(t *testing.T, binding, other []byte, offset, age int64) {
		inBubble(t, func(t *testing.T, _ time.Time) { fuzzSealOpen(t, s, binding, other, offset, age) })
	})
}

func fuzzSealOpen(t *testing.T, s *Signer, binding, other []byte, offset, age int64) {
	if offset < 0 {
		offset = -(offset + 1)
	}
	age %= int64(Lifetime)
	if age < 0 {
		age = -age
	}
	issued := time.Now().Add(-time.Duration(age)) // within the lifetime
	tok := s.Seal(binding, int(offset), issued)
	off, got, err := s.Open(tok, binding)
	if err != nil || off != int(offset) || !got.Equal(issued) {
		t.Fatalf("Open(Seal(%d, %v)) = %d, %v, %v", offset, issued, off, got, err)
	}
	if !bytes.Equal(binding, other) {
		if _, _, err := s.Open(tok, other); !errors.Is(err, ErrInvalid) {
			t.Fatalf("Open with another binding error = %v, want ErrInvalid", err)
		}
	}
}

// SPEC PERF-5: seal + open under 2 µs.
func BenchmarkSealOpen(b *testing.B) {
	s := NewSigner()
	var binding [32]byte // a digest of the facts, as the Discoverer binds
	issued := time.Now()
	b.ReportAllocs()
	stop := cputime.Report(b)
	for i := 0; b.Loop(); i++ {
		tok := s.Seal(binding[:], i&1023, issued)
		if _, _, err := s.Open(tok, binding[:]); err != nil {
			b.Fatal(err)
		}
	}
	stop()
}

// BenchmarkOpenJunk opens the worst junk a client can send in place of a cursor, beside
// a valid cursor (SPEC PERF-5: seal + open under 2 µs): text of the wrong length (1 MiB,
// refused by its length), 44 characters that are not base64, base64 of another
// version, and the costliest, a forged cursor of the right version whose tag is checked
// (one AES block and one HMAC, as a valid one) and fails.
//
// SPEC PERF-5
func BenchmarkOpenJunk(b *testing.B) {
	s := NewSigner()
	var binding [32]byte
	valid := s.Seal(binding[:], 7, time.Now())
	forged := []byte(valid)
	forged[textLen-2] ^= 1 // a bit of the tag
	other := []byte(valid)
	other[0] = 'B' // version 0x05
	for _, c := range []struct {
		name, token string
		ok          bool
	}{
		{"valid", valid, true},
		{"long", strings.Repeat("A", 1<<20), false},
		{"not-base64", strings.Repeat("!", textLen), false},
		{"other-version", string(other), false},
		{"forged-tag", string(forged), false},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.Open(c.token, binding[:]); (err == nil) != c.ok {
					b.Fatalf("Open error = %v", err)
				}
			}
		})
	}
}
