package discovery_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/discovery"
)

// countingSealer is a Sealer of its own type around a *cursor.Signer, counting calls;
// open, when set, replaces Open's answer.
type countingSealer struct {
	s           *cursor.Signer
	seals, opns atomic.Int64
	open        func() (int, time.Time, error)
}

func (c *countingSealer) Seal(binding []byte, offset int, issued time.Time) string {
	c.seals.Add(1)
	return c.s.Seal(binding, offset, issued)
}

func (c *countingSealer) Open(token string, binding []byte) (int, time.Time, error) {
	c.opns.Add(1)
	if c.open != nil {
		return c.open()
	}
	return c.s.Open(token, binding)
}

// Options.Signer takes any Sealer: the Discoverer seals and opens every cursor through
// it, and two Discoverers sharing one accept each other's cursors.
func TestSealerOption(t *testing.T) {
	sl := &countingSealer{s: cursor.NewSigner()}
	f := newCursorFixture(t, func(o *discovery.Options) { o.Signer, o.RevisionSync = sl, true })
	twin := newDiscoverer(f.src, f.store, func(o *discovery.Options) { o.Signer, o.RevisionSync = sl, true })
	pages, cur := 0, ""
	for {
		d := f.d
		if pages%2 == 1 {
			d = twin
		}
		res, err := d.Discover(t.Context(), alice, discovery.Request{Query: "model", Limit: 3, Cursor: cur})
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		pages++
		if res.NextCursor == "" {
			break
		}
		cur = res.NextCursor
	}
	if pages < 3 {
		t.Fatalf("walk has %d pages, want at least 3", pages)
	}
	if got, want := sl.seals.Load(), int64(pages-1); got != want {
		t.Errorf("Seal called %d times over %d pages, want %d", got, pages, want)
	}
	if got, want := sl.opns.Load(), int64(pages-1); got != want {
		t.Errorf("Open called %d times over %d pages, want %d", got, pages, want)
	}
}

// Whatever a Sealer's Open answers wrongly (an error not wrapping cursor.ErrInvalid, a
// negative offset), the Discoverer answers invalid_cursor and the error wraps
// cursor.ErrInvalid.
func TestSealerOpenRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func() (int, time.Time, error)
	}{
		{"ErrInvalid", func() (int, time.Time, error) { return 0, time.Time{}, cursor.ErrInvalid }},
		{"ErrExpired", func() (int, time.Time, error) { return 0, time.Time{}, cursor.ErrExpired }},
		{"other error", func() (int, time.Time, error) { return 0, time.Time{}, errors.New("sealer broke") }},
		{"negative offset", func() (int, time.Time, error) { return -1, time.Now(), nil }},
	} {
		sl := &countingSealer{s: cursor.NewSigner(), open: tc.open}
		f := newCursorFixture(t, func(o *discovery.Options) { o.Signer, o.RevisionSync = sl, true })
		cur := f.firstCursor(t)
		_, err := f.d.Discover(t.Context(), alice, discovery.Request{Query: "model", Limit: 3, Cursor: cur})
		wantCode(t, tc.name, err, discovery.CodeInvalidCursor)
		if !errors.Is(err, cursor.ErrInvalid) {
			t.Errorf("%s: errors.Is(%v, cursor.ErrInvalid) = false", tc.name, err)
		}
	}
}

// A nil *cursor.Signer in Options.Signer means the default, as a nil Sealer does.
func TestSealerNilSigner(t *testing.T) {
	f := newCursorFixture(t, func(o *discovery.Options) { o.Signer = (*cursor.Signer)(nil) })
	cur := f.firstCursor(t)
	if _, err := f.d.Discover(t.Context(), alice, discovery.Request{Query: "model", Limit: 3, Cursor: cur}); err != nil {
		t.Errorf("second page with a nil *cursor.Signer: %v", err)
	}
}
