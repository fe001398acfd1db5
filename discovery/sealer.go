package discovery

import (
	"time"

	"github.com/deferredtools/deferredtools/cursor"
)

// A Sealer seals and opens the cursors of discovery pages. *cursor.Signer is the
// implementation New uses by default; supply another through Options.Signer to share
// keys between processes, say (with Options.RevisionSync on, else each process binds
// its cursors to a revision of its own). A Sealer must be safe for concurrent use.
//
// Seal returns the cursor of the page at offset (never negative), bound to binding and
// first issued at issued. The Discoverer puts the token in nextCursor unchanged, so it
// must be URL-safe text revealing neither offset nor issued (SPEC CURSOR-6). Seal must
// not modify binding or keep it after returning.
//
// Open returns the offset and first-issue time sealed in token when token came from
// Seal (of this Sealer, or one sharing its keys) with the same binding and its issue
// time is at most cursor.Lifetime ago (SPEC CURSOR-3). Any other token, junk included,
// answers an error wrapping cursor.ErrInvalid (cursor.ErrExpired does), never a panic,
// and the error must not carry the token or the binding. The Discoverer answers
// invalid_cursor for every error of Open and for a negative offset.
type Sealer interface {
	Seal(binding []byte, offset int, issued time.Time) string
	Open(token string, binding []byte) (offset int, issued time.Time, err error)
}

var _ Sealer = (*cursor.Signer)(nil)

// start returns where a page begins: offset 0, issued now, without a cursor; otherwise
// what the cursor sealed, or invalid_cursor when Open refuses it or answers a negative
// offset.
func (d *Discoverer) start(token string, binding *[32]byte) (offset int, issued time.Time, err error) {
	if token == "" {
		return 0, time.Now(), nil
	}
	offset, issued, err = d.open(token, binding)
	if err != nil {
		return 0, time.Time{}, cursorError(err)
	}
	if offset < 0 {
		return 0, time.Time{}, cursorError(cursor.ErrInvalid)
	}
	return offset, issued, nil
}

// open opens token, sealed under binding, with the Discoverer's Sealer; a
// *cursor.Signer is called directly, as in seal.
func (d *Discoverer) open(token string, binding *[32]byte) (offset int, issued time.Time, err error) {
	if s, ok := d.signer.(*cursor.Signer); ok {
		return s.Open(token, binding[:])
	}
	b := *binding // see seal
	return d.signer.Open(token, b[:])
}

// seal returns the cursor of the page at offset. A *cursor.Signer is called directly:
// through the interface binding escapes, an allocation per Seal and per Open (a page-2
// request went from 3 to 5), so only another Sealer gets a heap copy of it.
func (d *Discoverer) seal(binding *[32]byte, offset int, issued time.Time) string {
	if s, ok := d.signer.(*cursor.Signer); ok {
		return s.Seal(binding[:], offset, issued)
	}
	b := *binding
	return d.signer.Seal(b[:], offset, issued)
}
