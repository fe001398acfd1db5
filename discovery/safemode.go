package discovery

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"time"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/internal/tooldef"
	"github.com/deferredtools/deferredtools/safemode"
)

// A ConfirmationRequired is AuthorizeCall's answer to a call safe mode holds
// (Options.SafeMode, package safemode): the call must not run. Adapters render it as a
// tool result (mcpsdk: isError, the preview as text, the token in the result's
// _meta[safemode.MetaKey]). Its text is the fixed "discovery: confirmation_required";
// it wraps CodeConfirmationRequired, so errors.Is(err, CodeConfirmationRequired)
// reports it.
type ConfirmationRequired struct {
	Tool    string // the tool called
	Preview string // what the call would do, for a person to confirm
	// Token confirms this call, and only this call (the same principal and scopes,
	// tool and arguments, under the same grants and contract), for cursor.Lifetime
	// (120 s). It is opaque and unstable, like a cursor.
	Token string
}

func (e *ConfirmationRequired) Error() string { return CodeConfirmationRequired.Error() }

// Unwrap returns CodeConfirmationRequired.
func (e *ConfirmationRequired) Unwrap() error { return CodeConfirmationRequired }

// Text is the text adapters show for a held call: that it did not run, then the
// preview.
func (e *ConfirmationRequired) Text() string {
	return "Not executed: safe mode holds this call until it is confirmed. Preview:\n" + e.Preview
}

// safeMode is Options.SafeMode as the Discoverer applies it: the options themselves
// (the Discoverer's copy, the one source of Enabled and Preview) and Exempt as a set.
type safeMode struct {
	opts   *safemode.Options
	exempt map[string]bool
}

func newSafeMode(o *safemode.Options) safeMode {
	s := safeMode{opts: o, exempt: make(map[string]bool, len(o.Exempt))}
	for _, n := range o.Exempt {
		s.exempt[n] = true
	}
	return s
}

// holds reports whether safe mode holds calls to a tool with this name and hints.
func (s *safeMode) holds(name string, readOnly, destructive bool) bool {
	return s.opts.Enabled && (!readOnly || destructive) && !s.exempt[name]
}

// SafeModeHolds reports whether AuthorizeCall holds calls to the tool def defines (a
// canonical tool definition, as ListTools serves it) for confirmation: the switch and
// safe mode are on, the tool is mutating and not exempt. It reads def alone, so it
// judges a meta tool by the tool's own hints, not its actions' (declared in the
// catalog version): ListResult.SafeModeHolds answers for the actions served. A
// definition that cannot be read (not one valid JSON object, truncated say, or refused
// as NewCatalog refuses it) answers true.
func (d *Discoverer) SafeModeHolds(def json.RawMessage) bool {
	if !d.opts.Enabled || !d.opts.SafeMode.Enabled {
		return false
	}
	if _, ok := jsonlex.Valid(def); !ok {
		return true // tooldef.Read reads the members it finds, not the text's grammar
	}
	f, reason := tooldef.Read(def)
	if reason != "" {
		return true
	}
	return d.safe.holds(f.Name, f.ReadOnly, f.Destructive)
}

// SafeModeHolds reports whether AuthorizeCall holds, for confirmation, calls of the named
// tool as r serves it, as Discoverer.SafeModeHolds does for a plain tool; a meta tool's
// calls are held when safe mode holds any action r serves (each judged by its own hints,
// else the tool's, and exempt by tool name or action ID), so a meta tool served its
// read-only actions alone is not held. A tool r does not serve answers false (its calls
// are refused, not held), as does every tool while the switch or safe mode is off and
// in a ListResult not made by ListTools.
func (r *ListResult) SafeModeHolds(name string) bool {
	if !r.safeModeOn() {
		return false
	}
	i, ok := r.Catalog.byName[name]
	return ok && r.set.bits.Has(i) && r.held(i)
}

// AppendSafeModeHolds appends to dst, for each tool of r.Tools in order, what
// SafeModeHolds answers for it, without looking its name up.
func (r *ListResult) AppendSafeModeHolds(dst []bool) []bool {
	if !r.safeModeOn() {
		return append(dst, make([]bool, len(r.Tools))...)
	}
	for i := range r.Catalog.tools {
		if r.set.bits.Has(i) {
			dst = append(dst, r.held(i))
		}
	}
	return dst
}

// safeModeOn reports whether r was made by ListTools with the switch and safe mode on.
func (r *ListResult) safeModeOn() bool {
	return r.safe != nil && r.safe.opts.Enabled && r.set != nil && r.Catalog != nil
}

// held reports whether safe mode holds calls of the catalog's tool i as r serves it.
func (r *ListResult) held(i int) bool {
	c := r.Catalog
	m := c.metas[i]
	if m == nil {
		return c.safeHeld(r.safe, i, -1)
	}
	for k := range m.actions {
		if r.set.actions.Has(m.first+k) && c.safeHeld(r.safe, i, m.first+k) {
			return true
		}
	}
	return false
}

// confirmSealOffset is the offset sealed in every confirmation token: the Sealer's
// offset carries nothing here, the binding carries the facts.
const confirmSealOffset = 0

// confirm is the last step of a granted call whose arguments args (validated) the host's
// CheckCall allowed: nil when safe mode lets it run, a *ConfirmationRequired when it
// holds the call and c carries no token, invalid_confirmation when the token is not
// one confirming this very call. held says whether safe mode holds it (Catalog.safeHeld).
func (d *Discoverer) confirm(ctx context.Context, p grants.Principal, c Call, args json.RawMessage, t *tool, held bool, set *authSet) error {
	if !held {
		return nil
	}
	binding := confirmBinding(p, set, t.name, args)
	if c.Confirmation == "" {
		text, err := d.previewText(ctx, p, t, args)
		if err != nil {
			return err
		}
		return &ConfirmationRequired{Tool: t.name, Preview: text, Token: d.seal(&binding, confirmSealOffset, time.Now())}
	}
	off, _, err := d.open(c.Confirmation, &binding)
	if err == nil && off != confirmSealOffset {
		err = cursor.ErrInvalid
	}
	if err != nil {
		if !errors.Is(err, cursor.ErrInvalid) {
			err = cursor.ErrInvalid // a foreign Sealer's error text stays out of the chain
		}
		return newError(CodeInvalidConfirmation, err)
	}
	return nil
}

// confirmBinding digests every fact a confirmation token is bound to: the principal and
// its scopes, the contract digest, the observed grant rows with their revisions, the
// tool's name and the arguments' digest (argsDigest). The contract digests the digest
// of every definition set serves, so with the name it fixes the tool's served
// definition and what Visibility leaves the principal; neither is bound again. A label
// keeps it from ever equalling a cursor's binding.
func confirmBinding(p grants.Principal, set *authSet, tool string, args json.RawMessage) [32]byte {
	ad := argsDigest(args)
	bp := bindPool.Get().(*[]byte)
	b := (*bp)[:0]
	b = appendField(b, "deferredtools/confirmation/v1")
	b = appendField(b, p.ID)
	b = appendField(b, set.scopes)
	b = appendField(b, set.contract)
	b = append(b, set.rowsKey[:]...)
	b = appendField(b, tool)
	b = append(b, ad[:]...)
	sum := sha256.Sum256(b)
	*bp = b[:0]
	bindPool.Put(bp)
	return sum
}

// argsDigest is SHA-256 of the arguments' JSON text with insignificant white space
// removed (encoding/json's Compact), member order, number text and string escapes kept
// byte for byte: two argument texts share a digest exactly when a handler decoding them
// reads the same bytes. Not RFC 8785: it rounds integers beyond 2^53 (two IDs would
// share a token) and refuses numbers past a double's range that the validator accepts.
// args has passed validation, so it is JSON; should Compact fail, the raw text is
// digested.
func argsDigest(args json.RawMessage) [32]byte {
	var buf bytes.Buffer
	buf.Grow(len(args))
	if json.Compact(&buf, args) != nil {
		return sha256.Sum256(args)
	}
	return sha256.Sum256(buf.Bytes())
}

// previewText is the host's preview of a held call, or safemode.DefaultPreview.
func (d *Discoverer) previewText(ctx context.Context, p grants.Principal, t *tool, args json.RawMessage) (string, error) {
	if preview := d.opts.SafeMode.Preview; preview != nil {
		return preview(ctx, p, t.name, args)
	}
	return safemode.DefaultPreview(t.canonical, args), nil
}
