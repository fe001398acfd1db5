// Package safemode configures safe mode, which holds calls to mutating tools until a
// person confirms them, and writes the default preview of a held call.
//
// A discovery.Discoverer applies it (discovery.Options.SafeMode): a held call answers a
// *discovery.ConfirmationRequired carrying the preview and a confirmation token, and the
// same call made again with that token runs.
package safemode

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/internal/tooldef"
)

// MetaKey is the member of a tools/call's params._meta that carries a confirmation
// token, and of a preview result's _meta that hands it out.
const MetaKey = "deferredtools/confirmation"

// Options configure safe mode, which holds calls to mutating tools for confirmation.
// The zero value is off.
//
// In safe mode every tool is served, but a call to a mutating tool (one whose
// annotations do not say readOnlyHint: true, or do say destructiveHint: true) does not
// run: once it is granted, its arguments valid and the host's CheckCall passed,
// discovery's AuthorizeCall answers a *discovery.ConfirmationRequired holding a preview
// and a confirmation token. The same call made again with that token
// (discovery.Call.Confirmation; on the wire params._meta[MetaKey]) is authorised. Safe
// mode, like discovery.Visibility, applies only while the switch is on. Read-only mode
// wins: a tool it withholds is refused with tool_not_granted, never previewed (a tool it
// serves that carries destructiveHint: true is still held).
//
// A confirmation token is sealed by the Discoverer's Sealer (discovery.Options.Signer)
// as a cursor is, so it is opaque, unstable, HMAC-signed under the same in-memory key
// and expires cursor.Lifetime (120 s) after the preview (SPEC CURSOR-1, CURSOR-3,
// CURSOR-6). Its binding, authenticated and never carried, digests under its own label
// (so no cursor is ever a token, nor a token a cursor): the principal's ID and scopes,
// the contract digest (which digests every definition the principal is served,
// Visibility applied: the tool's own among them), the observed grant rows with their
// revisions (so any change to the principal's grants refuses it), the tool's name, and
// the arguments' digest (the JSON text with insignificant white space removed, member
// order, number text and escapes kept). Any difference, an altered or foreign token, or
// one past its lifetime answers invalid_confirmation (400). A token is single purpose,
// not single use: it confirms the same call, and no other, as often as it is presented
// within its lifetime; the Discoverer keeps no state of tokens.
type Options struct {
	// Enabled turns safe mode on.
	Enabled bool
	// Exempt names tools safe mode never holds, by exact name: tools that preview each
	// action themselves. A meta tool's action is exempt by the tool's name or by its
	// action ID (package metatool). Nil: none.
	Exempt []string
	// Preview returns the text of the preview of one held call: what it would do. args
	// are the call's arguments, validated. Its error refuses the call and is returned
	// unchanged, as CheckCall's is. Nil: DefaultPreview of the tool's definition and
	// the arguments' names.
	Preview func(ctx context.Context, p grants.Principal, tool string, args json.RawMessage) (string, error)
}

// Bounds of DefaultPreview's text.
const (
	previewSentenceBytes = 300 // the description's first sentence
	previewNameBytes     = 64  // one argument name; longer names are counted, not shown
	previewNames         = 32  // argument names shown
)

// DefaultPreview returns the preview of a call to the tool def defines (a tool
// definition) with arguments args: the tool's name (its unprintable characters dropped)
// and its description's first sentence on one line, then the names of the top-level
// arguments given, sorted, never their values. A sentence is cut at 300 bytes; at most
// 32 names of at most 64 printable bytes of UTF-8 are shown, the others counted. def is
// read as ListTools serves it (canonical); a def or args that is not JSON is read as
// holding nothing.
func DefaultPreview(def, args json.RawMessage) string {
	var f tooldef.Fields
	if _, ok := jsonlex.Valid(def); ok { // tooldef reads valid JSON only
		f, _ = tooldef.Read(def)
	}
	var b strings.Builder
	b.WriteString(strings.Map(printOnly, f.Name)) // a host's def may hold any name
	if s := firstSentence(f.Description); s != "" {
		b.WriteString(": ")
		b.WriteString(s)
	}
	var names []string
	if _, ok := jsonlex.Valid(args); ok {
		tooldef.Members(args, func(key, _ []byte) bool {
			if n, ok := tooldef.StringValue(key); ok {
				names = append(names, n)
			}
			return true
		})
	}
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

// printOnly maps a rune unicode.IsPrint rejects (a line break, say) to nothing.
func printOnly(r rune) rune {
	if !unicode.IsPrint(r) {
		return -1
	}
	return r
}

// printable reports whether s is UTF-8 of printable characters only: a byte that is not
// UTF-8 reads as U+FFFD, which unicode.IsPrint accepts, and would reach the preview raw.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
