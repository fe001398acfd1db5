package rpcwire

import (
	"bytes"
	"strings"

	"github.com/deferredtools/deferredtools/discovery/wire"
	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/internal/tooldef"
	"github.com/deferredtools/deferredtools/safemode"
)

// Member names are read so that no decoder can read them another way: mcp-go decodes
// with encoding/json, which matches member names case-insensitively and keeps the
// last of repeated ones; the go-sdk matches exactly and keeps the last. A name an
// adapter decides on is refused when a message spells it twice or in another case,
// so every reader sees the same message.

// Match returns the one of names that key (a decoded member name) equals under
// encoding/json's case folding (strings.EqualFold), and whether it is that name
// exactly; name is "" when key folds to none of them. names must differ under folding.
func Match(key string, names []string) (name string, exact bool) {
	for _, n := range names {
		if n == key {
			return n, true
		}
		if strings.EqualFold(key, n) {
			return n, false
		}
	}
	return "", false
}

// EnvelopeMembers are the members of a JSON-RPC message an SDK reads.
var EnvelopeMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// Members returns the raw values of the members of object b (text jsonlex.Valid
// accepted) named in names. ambiguous holds each of names that b spells twice or in
// another case, escapes resolved ("Name" beside "name", "\u004eame", "NAME" alone);
// such a name is left out of m. m is nil when b is not an object.
func Members(b []byte, names []string) (m map[string][]byte, ambiguous map[string]bool) {
	if len(b) == 0 || b[jsonlex.SkipSpace(b, 0)] != '{' {
		return nil, nil
	}
	m = make(map[string][]byte, len(names))
	var buf []byte
	tooldef.Members(b, func(rawKey, val []byte) bool {
		key := rawKey[1 : len(rawKey)-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			buf = jsonlex.Unescape(buf[:0], key)
			key = buf
		}
		name, exact := Match(string(key), names)
		switch {
		case name == "":
		case !exact || m[name] != nil || ambiguous[name]:
			if ambiguous == nil {
				ambiguous = map[string]bool{}
			}
			ambiguous[name] = true
			delete(m, name)
		default:
			m[name] = val
		}
		return true
	})
	return m, ambiguous
}

// ExactMembers is Members for a reader that refuses any doubt: ok is false when b is
// not an object or one of names is ambiguous in it.
func ExactMembers(b []byte, names []string) (m map[string][]byte, ok bool) {
	m, ambiguous := Members(b, names)
	return m, m != nil && len(ambiguous) == 0
}

// metaMembers are the members of a tools/call's params._meta the adapters read: the
// client's contract pin and safe mode's confirmation token.
var metaMembers = []string{wire.MetaContractDigest, safemode.MetaKey}

// AmbiguousMeta reports a tools/call's params._meta (raw; anything but an object
// reports false) that names the contract pin or safe mode's confirmation token twice
// or in another case. The adapters refuse such a call as invalid params: the go-sdk
// and encoding/json keep the last of repeated members, a scan the first, so the pin
// checked and the token confirmed would depend on who read them.
func AmbiguousMeta(meta []byte) bool {
	_, ambiguous := Members(meta, metaMembers)
	return len(ambiguous) > 0
}
