package mcpgo

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// Handler returns next (mcp-go's *server.StreamableHTTPServer) behind the adapter's
// front (see the package doc). A POST with an application/json body is read up to
// Options.MaxRequestBodyBytes and screened before next sees it:
//
//   - a body over the cap answers 413 and a body that is not one JSON-RPC message
//     (malformed JSON, invalid UTF-8, a batch, a wrong version, id or method, a member
//     named in two cases) answers 400, each with one content-free JSON-RPC error;
//   - a tools/call is decided in full (tool name first, before the arguments are
//     looked at): a refusal is a JSON-RPC error and invalid arguments an isError
//     result, each in an HTTP 200 response (application/json, or one
//     text/event-stream event when the request's Accept takes only that), and so is
//     the discovery tool's page; a refusal of the 503 family (grant storage or
//     catalog unavailable) answers HTTP 503 instead (SPEC FLAG-3);
//   - the discover method is answered with the bytes of Discoverer.AppendJSONRPC; a
//     refusal answers its HTTP status (SPEC ERR-1), a notification 202.
//
// Every other request reaches next with its body unchanged, and next's response is
// rewritten on the way out: a tools/list result narrowed (or, when its grant read
// fails, answered HTTP 503 with the JSON-RPC error as an application/json body), a JSON-RPC error that is not
// the library's made content-free (application/json body or text/event-stream data
// event), and a text/plain error body (mcp-go's, which may quote a header) replaced,
// by a content-free JSON-RPC error with the request's id for a 400 or 413, else by the
// status text. The principal is the PrincipalFunc's, called with the request's
// context: put the host's authentication (calling WithPrincipal) in front of Handler.
// Like mcp-go's handler, Handler first refuses a request that arrived on a loopback
// address with a foreign Host header (DNS rebinding) with 403, before it reads
// anything: no grant is read and nothing runs for it; Options.DisableLocalhostProtection
// turns this off, as mcp-go's WithDisableLocalhostProtection does. While the switch is
// off Handler returns next itself (SPEC FLAG-2).
//
// mcp-go does not tie a session to the principal that opened it: any client naming a
// session id could post into it, listen on its event stream (its notifications,
// sampling and elicitation requests) or end it. Handler binds each session id mcp-go
// issues to the principal of the request that got it: the client sees the id followed
// by "." and an HMAC-SHA256 tag of the id and the principal's ID (under
// Options.SessionKey, or a key New draws in memory: replicas of one deployment need the
// same key), and a request naming an id whose tag is not its own
// principal's is refused 404 Not Found, as a session that does not exist, before
// anything is read; mcp-go sees its own id. Requests whose principal cannot be found
// are bound alike (to the empty ID): among them sessions are shared as mcp-go shares
// them, and any grant-reading request is refused anyway.
func (a *Adapter) Handler(next http.Handler) http.Handler {
	if !a.d.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.opts.DisableLocalhostProtection && rpcwire.RefuseRebound(w, r, forbidden) {
			return // first, as mcp-go's handler: nothing read, no grant
		}
		pid := "" // a request whose principal fails is refused where it matters
		if p, err := a.principal(r.Context()); err == nil {
			pid = p.ID
		}
		if id := r.Header.Get(sessionHeader); id != "" {
			raw, ok := a.session.open(pid, id)
			if !ok { // another principal's session, or none of ours
				http.Error(w, http.StatusText(http.StatusNotFound), http.StatusNotFound)
				return
			}
			r = r.WithContext(r.Context())
			r.Header = r.Header.Clone()
			r.Header.Set(sessionHeader, raw)
		}
		out := &outgoing{a: a, ctx: r.Context()}
		sw := &sessionWriter{ResponseWriter: w, key: &a.session, pid: pid}
		fw := &rpcwire.Filter{W: sw, Rewrite: out.rewrite, TextError: textError}
		defer fw.Finish()
		if r.Method != http.MethodPost || r.Body == nil || !rpcwire.IsJSON(r.Header.Get("Content-Type")) {
			next.ServeHTTP(fw, r)
			return
		}
		body, ok := rpcwire.ReadBody(w, r, a.opts.MaxRequestBodyBytes)
		if !ok {
			return
		}
		v := a.screen(r.Context(), body, nil)
		switch v.act {
		case passOn:
			r.Body = io.NopCloser(bytes.NewReader(body))
			if v.env.hasMethod { // a response's id names a call of the server's
				fw.ID = v.env.id
			}
			out.list = v.env.method == "tools/list" && v.env.id != nil
			out.call = v.env.method == "tools/call" && v.env.id != nil
			out.task = v.env.method == "tasks/result" && v.env.id != nil
			fw.Private = out.list     // narrowed: one principal's list
			fw.Unavailable = out.list // its grant read failing: 503
			out.id = v.env.id
			next.ServeHTTP(fw, r)
		case discover:
			resp, status := a.answerDiscover(r.Context(), v.env, body, nil)
			answer(w, r, status, resp, false)
		default:
			answer(w, r, v.status, v.resp, v.env.method == "tools/call")
		}
	})
}

// outgoing rewrites the messages of next's response (SPEC ERR-2, VIS-3): a JSON-RPC
// error that is not the library's is made content-free and the response to a
// tools/list request narrowed.
type outgoing struct {
	a    *Adapter
	ctx  context.Context
	id   []byte // the id of the request the body held, if any
	list bool   // the request was a tools/list: narrow its response
	call bool   // the request was a tools/call: clean its result (cleanCallResult)
	task bool   // the request was a tasks/result: clean its result alike
}

// rewrite is the rpcwire.Filter rewrite of one JSON-RPC message of next's response.
func (o *outgoing) rewrite(msg []byte) ([]byte, bool) {
	var m map[string][]byte
	answers := false // msg is the response to the tools/call, tasks/result or tools/list request
	if o.call || o.task || o.list {
		var ok bool
		m, ok = rpcwire.ExactMembers(msg, []string{"id", "result", "method"})
		answers = ok && m["method"] == nil && idKey(m["id"]) == idKey(o.id)
	}
	if clean, changed := cleanError(msg, o.call && answers); changed {
		return clean, true
	}
	if !answers || m["result"] == nil {
		return msg, false
	}
	if o.call || o.task {
		o.call, o.task = false, false
		return cleanCallResult(m["id"], m["result"])
	}
	o.list = false
	return o.a.narrowList(o.ctx, msg), true
}

// textError is the content-free JSON-RPC error replacing mcp-go's text/plain 400 or 413.
func textError(id []byte, status int, _ []byte) []byte {
	fault := discovery.CodeInvalidRequest
	if status == http.StatusRequestEntityTooLarge {
		fault = discovery.CodeMessageTooLarge
	}
	return appendError(nil, id, fault)
}

// answer writes the front's own answer (rpcwire.Answer).
func answer(w http.ResponseWriter, r *http.Request, status int, body []byte, call bool) {
	rpcwire.Answer(w, r, status, body, call)
}

// forbidden is mcp-go's 403 text for a rebound request, without the Host it quotes.
const forbidden = "Forbidden"
