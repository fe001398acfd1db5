package mcpsdk

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// Handler returns next (usually the SDK's mcp.StreamableHTTPHandler) behind the
// adapter's front (see the package doc). A POST with an application/json body is read
// up to Options.MaxRequestBodyBytes and screened before next sees it:
//
//   - a body over the cap answers 413 and a body that is not one JSON-RPC message the
//     SDK accepts (malformed JSON, truncated, invalid UTF-8, nested deeper than 1,000,
//     a batch, a wrong version, id or method) answers 400, each with one content-free
//     JSON-RPC error as an application/json body, never the body's content;
//   - a tools/call whose tool the principal may not call is refused on its tool name,
//     before the arguments are decoded, with a JSON-RPC error in an HTTP 200 response
//     (application/json, or one text/event-stream event when the request's Accept
//     header takes only that), or in an HTTP 503 one for a refusal of the 503 family
//     (grant storage or catalog unavailable: SPEC FLAG-3);
//   - the discover method is answered with the bytes of Discoverer.AppendJSONRPC; a
//     refusal answers its HTTP status (SPEC ERR-1) with the JSON-RPC error as body, and
//     a discover notification answers 202; a discover request whose Accept header
//     does not take both application/json and text/event-stream goes on to next, as
//     every other method, and the SDK's handler refuses it (400, made invalid_request
//     with the request's id, below).
//
// Every other request reaches next with its body unchanged, and next's responses are
// cleaned on the way out (a tools/list answer and a discovery tool page, one
// principal's, made Cache-Control private and no-store, and answered HTTP 503 with an
// application/json body when they are an error of the 503 family, SPEC FLAG-3): a JSON-RPC error
// (application/json body or text/event-stream data event) that is not the adapter's is
// rewritten content-free, and a text/plain
// error body (the SDK's http.Error, which may quote the body, a header or a method) is
// replaced: by a content-free JSON-RPC error with the request's id for a 400 or 413
// (method_not_found for a method the SDK does not know), so that clients keep their
// session, else by the status text. The principal is the PrincipalFunc's, called with the
// request's auth.TokenInfo and header. While the switch is off Handler returns next
// itself (SPEC FLAG-2).
//
// Put the host's authentication (for example auth.RequireBearerToken) in front of
// Handler, so that every request is authenticated. Like the SDK's handler, Handler
// first refuses a request that arrived on a loopback address with a foreign Host
// header (DNS rebinding) with 403, before it reads anything: no grant is read and
// nothing runs for it; Options.DisableLocalhostProtection turns this off, as the
// SDK's StreamableHTTPOptions.DisableLocalhostProtection does.
func (a *Adapter) Handler(next http.Handler) http.Handler {
	if !a.d.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.opts.DisableLocalhostProtection && rpcwire.RefuseRebound(w, r, forbidden) {
			return // first, as the SDK's handler: nothing read, no grant
		}
		if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !supportedVersion(v) {
			// The SDK refuses it too, but logs the header's text first (ERR-2).
			answer(w, r, http.StatusBadRequest, discovery.AppendJSONRPCError(nil, nil, discovery.CodeInvalidRequest), false)
			return
		}
		fw := &rpcwire.Filter{W: w, Rewrite: cleanResponse, TextError: textError}
		defer fw.Finish()
		if r.Method != http.MethodPost || r.Body == nil || !rpcwire.IsJSON(r.Header.Get("Content-Type")) {
			next.ServeHTTP(fw, r)
			return
		}
		body, ok := rpcwire.ReadBody(w, r, a.opts.MaxRequestBodyBytes)
		if !ok {
			return
		}
		ctx := r.Context()
		extra := &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(ctx), Header: r.Header}
		bp := responseBuffers.Get().(*[]byte)
		defer responseBuffers.Put(bp)
		resp, act, status, env := a.screen(ctx, extra, body, (*bp)[:0])
		if act == discover && !sdkAccepts(r.Header.Values("Accept")) {
			act = passOn // the SDK refuses it before reading the body, as any other method
		}
		if act == passOn {
			if env.call != nil {
				defer a.pending.attachHeader(r.Header, env.call)()
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			fw.ID = env.id
			fw.Private = env.method == "tools/list" || env.tool // one principal's list or page
			fw.Unavailable = fw.Private                         // its grant read failing: 503
			next.ServeHTTP(fw, r)
			return
		}
		if act == discover {
			resp, status = a.answerDiscover(ctx, extra, env, body, resp)
		}
		*bp = resp[:0] // Write does not keep resp: the buffer serves the next request
		if len(resp) == 0 {
			status = http.StatusAccepted
		}
		answer(w, r, status, resp, act == refused)
	})
}

// sdkAccepts reports whether Accept header values take both application/json and
// text/event-stream as the go-sdk's streamable handler reads them (v1.8.0
// streamableAccepts: base media types, case-insensitive, application/* and text/*,
// */* for both; parameters and q-values ignored). The SDK refuses any other POST with
// 400 before it reads the body; Handler passes a discover request so headed on to it,
// so that the method answers as every other.
func sdkAccepts(values []string) bool {
	jsonOK, streamOK := false, false
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// supportedVersion reports whether v is a protocol version the SDK speaks; Handler
// refuses any other Mcp-Protocol-Version header itself, content-free.
func supportedVersion(v string) bool {
	return slices.Contains(sdkVersions, v)
}

var sdkVersions = mcp.SupportedProtocolVersions()

// answer writes the front's own answer (rpcwire.Answer).
func answer(w http.ResponseWriter, r *http.Request, status int, body []byte, event bool) {
	rpcwire.Answer(w, r, status, body, event)
}

// forbidden is the SDK's 403 text for a rebound request, without the Host it quotes.
const forbidden = "Forbidden: invalid Host header"

// responseBuffers hold discover responses, pages of up to 64 KiB that would otherwise
// be allocated for each request.
var responseBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, discovery.MaxResponseBytes)
	return &b
}}

// textError is the content-free JSON-RPC error replacing the SDK's text/plain 400 or
// 413 (http.Error, which may quote the body, a header or a method), so that a client
// keeps its session, as the go-sdk client does for JSON-RPC error bodies.
func textError(id []byte, status int, head []byte) []byte {
	fault := discovery.CodeInvalidRequest
	switch {
	case status == http.StatusRequestEntityTooLarge:
		fault = discovery.CodeMessageTooLarge
	case bytes.HasPrefix(head, []byte("JSON RPC not handled")): // the SDK's unknown method
		// 400, the status the SDK chose: MCP clients read 404 as a lost session.
		return rpcwire.AppendError(nil, id, discovery.CodeMethodNotFound, int64(discovery.CodeMethodNotFound.JSONRPCCode()), http.StatusBadRequest)
	}
	return discovery.AppendJSONRPCError(nil, id, fault)
}
