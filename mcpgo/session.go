package mcpgo

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
)

// sessionHeader is the streamable HTTP header naming an MCP session.
const sessionHeader = "Mcp-Session-Id"

// sessionKey is the key an Adapter binds session ids with: Options.SessionKey copied,
// or drawn in memory by New; never stored or shown.
type sessionKey []byte

// newSessionKey returns a copy of key, or 32 random bytes when key is empty.
func newSessionKey(key []byte) sessionKey {
	if len(key) > 0 {
		return sessionKey(bytes.Clone(key))
	}
	k := make(sessionKey, 32)
	rand.Read(k) // never fails (crypto/rand)
	return k
}

// tag is the base64url HMAC-SHA256 (128 bits) of session id raw for principal ID pid.
func (k *sessionKey) tag(pid, raw string) string {
	m := hmac.New(sha256.New, *k)
	m.Write([]byte(pid))
	m.Write([]byte{0})
	m.Write([]byte(raw))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// bind returns the session id mcp-go issued, raw, as the client of principal pid sees
// it: raw "." its tag.
func (k *sessionKey) bind(pid, raw string) string { return raw + "." + k.tag(pid, raw) }

// open returns the session id mcp-go issued for id, a client's session id, when id was
// bound to principal pid; ok is false for any other id (another principal's, altered,
// made up).
func (k *sessionKey) open(pid, id string) (raw string, ok bool) {
	i := strings.LastIndexByte(id, '.')
	if i < 0 {
		return "", false
	}
	raw = id[:i]
	return raw, hmac.Equal([]byte(id[i+1:]), []byte(k.tag(pid, raw)))
}

// sessionWriter binds the session id next sets on its response to the request's
// principal before the header goes out.
type sessionWriter struct {
	http.ResponseWriter
	key   *sessionKey
	pid   string
	bound bool
}

func (w *sessionWriter) bindHeader() {
	if w.bound {
		return
	}
	w.bound = true
	if raw := w.Header().Get(sessionHeader); raw != "" {
		w.Header().Set(sessionHeader, w.key.bind(w.pid, raw))
	}
}

func (w *sessionWriter) WriteHeader(status int) {
	w.bindHeader()
	w.ResponseWriter.WriteHeader(status)
}

func (w *sessionWriter) Write(p []byte) (int, error) {
	w.bindHeader()
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the writer beneath (Flush, for events).
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
