package mcpsdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
)

// Handler returns next (usually the SDK's mcp.StreamableHTTPHandler) with the discover
// method answered: a POST whose application/json body is one JSON-RPC message for the
// Discoverer's method is answered here, with the bytes of Discoverer.AppendJSONRPC;
// every other request reaches next with its body unchanged. The principal is the
// PrincipalFunc's, called with the request's auth.TokenInfo and header. A refusal
// answers its HTTP status (SPEC ERR-1) with the JSON-RPC error as body; a discover
// notification answers 202. While the switch is off Handler returns next itself (SPEC
// FLAG-2).
//
// Put the host's authentication (for example auth.RequireBearerToken) in front of
// Handler, so that discover requests are authenticated like every other. Like the
// SDK's handler, Handler refuses a discover request that arrived on a loopback address
// with a foreign Host header (DNS rebinding) with 403.
func (a *Adapter) Handler(next http.Handler) http.Handler {
	if !a.d.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || !isJSON(r.Header.Get("Content-Type")) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, a.opts.MaxRequestBodyBytes))
		r.Body.Close()
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "failed to read body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !a.callsDiscover(body) {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		if rebound(r) {
			// The SDK's DNS rebinding protection, which this path bypasses otherwise.
			http.Error(w, "Forbidden: invalid Host header", http.StatusForbidden)
			return
		}
		extra := &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(ctx), Header: r.Header}
		bp := responseBuffers.Get().(*[]byte)
		defer responseBuffers.Put(bp)
		resp := (*bp)[:0]
		status := http.StatusOK
		p, err := a.principal(ctx, extra)
		if err != nil {
			resp, status = discovery.AppendJSONRPCError(resp, requestID(body), err), http.StatusUnauthorized
		} else {
			var handled bool
			resp, handled = a.d.AppendJSONRPC(ctx, resp, p, body)
			if !handled { // not a single well-formed message after all: the SDK decides
				r.Body = io.NopCloser(bytes.NewReader(body))
				next.ServeHTTP(w, r)
				return
			}
			status = discovery.ResponseStatus(resp)
		}
		*bp = resp[:0] // Write does not keep resp: the buffer serves the next request
		if len(resp) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(resp)
	})
}

// responseBuffers hold discover responses, pages of up to 64 KiB that would otherwise
// be allocated for each request.
var responseBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, discovery.MaxResponseBytes)
	return &b
}}

// rebound reports a request that arrived on a loopback address with a Host header that
// is not a loopback name: a DNS rebinding attempt. The SDK's streamable handler refuses
// these (unless its DisableLocalhostProtection is set); Handler refuses them for the
// discover method alike.
func rebound(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && local != nil && isLoopback(local.String()) && !isLoopback(r.Host)
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// callsDiscover reports whether body is one JSON-RPC message (not a batch) whose
// method is the Discoverer's.
func (a *Adapter) callsDiscover(body []byte) bool {
	b := bytes.TrimSpace(body)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var env struct {
		Method *string `json:"method"`
	}
	return json.Unmarshal(b, &env) == nil && env.Method != nil && *env.Method == a.d.Method()
}

// requestID returns the raw id of a request body, or nil.
func requestID(body []byte) json.RawMessage {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &env)
	return env.ID
}
