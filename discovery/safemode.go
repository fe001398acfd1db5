package discovery

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/tooldef"
)

// MetaConfirmation is the member of a tools/call's params._meta that carries a
// confirmation token in safe mode, and of a preview result's _meta that hands it out.
const MetaConfirmation = "deferredtools/confirmation"

// ConfirmationLifetime is how long a confirmation token stays valid after the preview
// that issued it: cursor.Lifetime, since tokens are sealed as cursors are.
const ConfirmationLifetime = cursor.Lifetime

// SafeMode holds calls to mutating tools for confirmation. The zero value is off.
//
// In safe mode every tool is served, but a call to a mutating tool (one whose
// annotations do not say readOnlyHint: true, or do say destructiveHint: true) does not
// run: once it is granted, its arguments valid and the host's CheckCall passed,
// AuthorizeCall answers a *ConfirmationRequired holding a preview and a confirmation
// token. The same call made again with that token (Call.Confirmation; on the wire
// params._meta[MetaConfirmation]) is authorised. Safe mode, like Visibility, applies
// only while the switch is on. Read-only mode wins: a tool it withholds is refused
// with tool_not_granted, never previewed (a tool it serves that carries
// destructiveHint: true is still held).
//
// A confirmation token is sealed by the Discoverer's Sealer (Options.Signer) as a
// cursor is, so it is opaque, unstable, HMAC-signed under the same in-memory key and
// expires ConfirmationLifetime (120 s) after the preview (SPEC CURSOR-1, CURSOR-3,
// CURSOR-6). Its binding, authenticated and never carried, digests under its own label
// (so no cursor is ever a token, nor a token a cursor): the principal's ID and scopes,
// the contract digest (which digests every definition the principal is served,
// Visibility applied: the tool's own among them), the observed grant rows with their
// revisions (so any change to the principal's grants refuses it), the tool's name, and
// the arguments' digest (see argsDigest: the JSON text with insignificant white space
// removed, member order, number text and escapes kept). Any difference, an
// altered or foreign token, or one past its lifetime answers invalid_confirmation
// (400). A token is single purpose, not single use: it confirms the same call, and no
// other, as often as it is presented within its lifetime; the Discoverer keeps no
// state of tokens.
type SafeMode struct {
	// Enabled turns safe mode on.
	Enabled bool
	// Exempt names tools safe mode never holds, by exact name: tools that preview each
	// action themselves. A meta tool's action is exempt by the tool's name or by its
	// action ID (CatalogOptions.MetaTools). Nil: none.
	Exempt []string
	// Preview returns the text of the preview of one held call: what it would do. args
	// are the call's arguments, validated. Its error refuses the call and is returned
	// unchanged, as CheckCall's is. Nil: DefaultPreview of the tool's definition and
	// the arguments' names.
	Preview func(ctx context.Context, p grants.Principal, tool string, args json.RawMessage) (string, error)
}

// A ConfirmationRequired is AuthorizeCall's answer to a call safe mode holds: the call
// must not run. Adapters render it as a tool result (mcpsdk: isError, the preview as
// text, the token in the result's _meta[MetaConfirmation]). Its text is the fixed
// "discovery: confirmation_required"; it wraps CodeConfirmationRequired, so
// errors.Is(err, CodeConfirmationRequired) reports it.
type ConfirmationRequired struct {
	Tool    string // the tool called
	Preview string // what the call would do, for a person to confirm
	// Token confirms this call, and only this call (the same principal and scopes,
	// tool and arguments, under the same grants and contract), for
	// ConfirmationLifetime. It is opaque and unstable, like a cursor.
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
	opts   *SafeMode
	exempt map[string]bool
}

func newSafeMode(o *SafeMode) safeMode {
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
// safe mode are on, the tool is mutating and not exempt. A definition that cannot be
// read answers true. Planners use it to mark such tools.
func (d *Discoverer) SafeModeHolds(def json.RawMessage) bool {
	if !d.opts.Enabled || !d.opts.SafeMode.Enabled {
		return false
	}
	f, reason := tooldef.Read(def)
	if reason != "" {
		return true
	}
	return d.safe.holds(f.Name, f.ReadOnly, f.Destructive)
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

// previewText is the host's preview of a held call, or DefaultPreview.
func (d *Discoverer) previewText(ctx context.Context, p grants.Principal, t *tool, args json.RawMessage) (string, error) {
	if preview := d.opts.SafeMode.Preview; preview != nil {
		return preview(ctx, p, t.name, args)
	}
	return DefaultPreview(t.canonical, args), nil
}

// Bounds of DefaultPreview's text.
const (
	previewSentenceBytes = 300 // the description's first sentence
	previewNameBytes     = 64  // one argument name; longer names are counted, not shown
	previewNames         = 32  // argument names shown
)

// DefaultPreview returns the preview of a call to the tool def defines (a tool
// definition) with arguments args: the tool's name and its description's first
// sentence on one line, then the names of the top-level arguments given, sorted, never
// their values. A sentence is cut at 300 bytes; at most 32 names of at most 64 bytes
// are shown, the others counted.
func DefaultPreview(def, args json.RawMessage) string {
	f, _ := tooldef.Read(def)
	var b strings.Builder
	b.WriteString(f.Name)
	if s := firstSentence(f.Description); s != "" {
		b.WriteString(": ")
		b.WriteString(s)
	}
	var names []string
	tooldef.Members(args, func(key, _ []byte) bool {
		if n, ok := tooldef.StringValue(key); ok {
			names = append(names, n)
		}
		return true
	})
	slices.Sort(names)
	b.WriteString("\nArguments given: ")
	shown, more := 0, 0
	for _, n := range names {
		if shown == previewNames || len(n) > previewNameBytes || !printable(n) {
			more++
			continue
		}
		if shown > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
		shown++
	}
	switch {
	case shown == 0 && more == 0:
		b.WriteString("none")
	case more > 0:
		if shown > 0 {
			b.WriteString(", ")
		}
		b.WriteString("and ")
		b.WriteString(strconv.Itoa(more))
		b.WriteString(" more")
	}
	return b.String()
}

// firstSentence returns the first sentence of s: up to the first '.', '!' or '?'
// followed by white space or the end, white space collapsed, control characters
// dropped, cut to previewSentenceBytes on a rune boundary.
func firstSentence(s string) string {
	var b strings.Builder
	space := false
	for i, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || r == utf8.RuneError:
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if b.Len()+utf8.RuneLen(r) > previewSentenceBytes {
			break
		}
		b.WriteRune(r)
		if r == '.' || r == '!' || r == '?' {
			next := s[i+utf8.RuneLen(r):]
			if next == "" || unicode.IsSpace(rune(next[0])) {
				break
			}
		}
	}
	return strings.TrimRight(b.String(), " ")
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
