package schemaguard_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/deferredtools/deferredtools/internal/nopanic"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// Zero and nil inputs get the documented answer, never a panic: empty text is
// ErrMalformed, the contract digest of no tools is that of the empty string, zero and
// negative Limits are the defaults. SPEC CONTRACT-2, CONTRACT-3, ERR-5.
func TestZeroAndNil(t *testing.T) {
	over := schemaguard.Measure{Bytes: schemaguard.DefaultMaxBytes + 1}
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Canonicalize(nil, nil)", func() error {
			if out, _, err := schemaguard.Canonicalize(nil, nil); !errors.Is(err, schemaguard.ErrMalformed) || len(out) != 0 {
				return fmt.Errorf("= %q, %v; want nothing and ErrMalformed", out, err)
			}
			return nil
		}},
		{"ContractDigest(nil)", func() error {
			if got, want := schemaguard.ContractDigest(nil), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
				return fmt.Errorf("= %s, want %s", got, want)
			}
			return nil
		}},
		{"zero Limits", func() error {
			var e *schemaguard.LimitError
			if err := (schemaguard.Limits{}).Check(over); !errors.As(err, &e) || e.Limit != "bytes" || e.Max != schemaguard.DefaultMaxBytes {
				return fmt.Errorf("Check(over the default) = %v, want the default bytes limit", err)
			}
			return nil
		}},
		{"negative Limits", func() error {
			var e *schemaguard.LimitError
			neg := schemaguard.Limits{MaxBytes: -1, MaxNodes: -1, MaxDepth: -1}
			if err := neg.Check(over); !errors.As(err, &e) || e.Limit != "bytes" || e.Max != schemaguard.DefaultMaxBytes {
				return fmt.Errorf("Check(over the default) = %v, want the default bytes limit", err)
			}
			if err := neg.Check(schemaguard.Measure{Bytes: 1, Nodes: 1, Depth: 1}); err != nil {
				return fmt.Errorf("Check(one node) = %v, want nil", err)
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
