package mcpgo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"

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
//     the discovery tool's page;
//   - the discover method is answered with the bytes of Discoverer.AppendJSONRPC; a
//     refusal answers its HTTP status (SPEC ERR-1), a notification 202.
//
// Every other request reaches next with its body unchanged, and next's response is
// rewritten on the way out: a tools/list result narrowed, a JSON-RPC error that is not
// the library's made content-free (application/json body or text/event-stream data
// event), and a text/plain error body (mcp-go's, which may quote a header) replaced,
// by a content-free JSON-RPC error with the request's id for a 400 or 413, else by the
// status text. The principal is the PrincipalFunc's, called with the request's
// context: put the host's authentication (calling WithPrincipal) in front of Handler.
// Like mcp-go's handler, Handler refuses a request it answers itself that arrived on
// a loopback address with a foreign Host header (DNS rebinding) with 403. While the
// switch is off Handler returns next itself (SPEC FLAG-2).
func (a *Adapter) Handler(next http.Handler) http.Handler {
	if !a.d.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw := &filterWriter{a: a, ctx: r.Context(), w: w}
		defer fw.finish()
		if r.Method != http.MethodPost || r.Body == nil || !rpcwire.IsJSON(r.Header.Get("Content-Type")) {
			next.ServeHTTP(fw, r)
			return
		}
		body, err := rpcwire.ReadBounded(r.Body, a.opts.MaxRequestBodyBytes)
		r.Body.Close()
		if err != nil {
			fault := discovery.CodeInvalidRequest
			if errors.Is(err, rpcwire.ErrTooLarge) {
				fault = discovery.CodeMessageTooLarge
			}
			fw.answer(r, fault.Status(), appendError(nil, nil, fault), false)
			return
		}
		v := a.screen(r.Context(), body, nil)
		switch v.act {
		case passOn:
			r.Body = io.NopCloser(bytes.NewReader(body))
			fw.id = v.env.id
			fw.list = v.env.method == "tools/list" && v.env.id != nil
			next.ServeHTTP(fw, r)
		case discover:
			resp, status := a.answerDiscover(r.Context(), v.env, body, nil)
			fw.answer(r, status, resp, false)
		default:
			fw.answer(r, v.status, v.resp, v.env.method == "tools/call")
		}
	})
}

// filterWriter rewrites the response of the handler behind Handler (SPEC ERR-2,
// VIS-3): in an application/json body (held until the handler returns) and in each
// data line of a text/event-stream (event by event), a JSON-RPC error that is not the
// library's is made content-free and the response to a tools/list request narrowed. A
// text/plain body of an error status is replaced. Other bodies pass as they are.
type filterWriter struct {
	a       *Adapter
	ctx     context.Context
	w       http.ResponseWriter
	id      []byte // the id of the request the body held, if any
	list    bool   // the request was a tools/list: narrow its response
	status  int
	mode    int
	pending []byte
	done    bool // the front answered: nothing of next's is written
}

const (
	modePass = iota + 1
	modeJSON
	modeSSE
	modeText
)

// answer writes the front's own answer to r: status and body as JSON, or, for a
// tools/call answer to a request whose Accept takes only text/event-stream, one event.
// An empty body answers status alone (202 for a notification).
func (f *filterWriter) answer(r *http.Request, status int, body []byte, call bool) {
	f.done = true
	if rpcwire.Rebound(r) { // mcp-go's DNS rebinding protection, which this path bypasses
		http.Error(f.w, "Forbidden", http.StatusForbidden)
		return
	}
	switch {
	case len(body) == 0:
		f.w.WriteHeader(status)
	case call && !rpcwire.AcceptsJSON(r):
		f.w.Header().Set("Content-Type", "text/event-stream")
		f.w.WriteHeader(http.StatusOK)
		f.w.Write(rpcwire.SSEEvent(body))
	default:
		f.w.Header().Set("Content-Type", "application/json")
		f.w.WriteHeader(status)
		f.w.Write(body)
	}
}

func (f *filterWriter) Header() http.Header { return f.w.Header() }

func (f *filterWriter) WriteHeader(status int) {
	if f.mode != 0 {
		return
	}
	f.status = status
	mt, _, _ := mime.ParseMediaType(f.w.Header().Get("Content-Type"))
	switch {
	case status >= 400 && mt == "text/plain":
		f.mode = modeText // written by finish, which replaces the text
		return
	case mt == "application/json":
		f.mode = modeJSON // written by finish, after the whole body is seen
		return
	case mt == "text/event-stream":
		f.mode = modeSSE
	default:
		f.mode = modePass
	}
	f.w.WriteHeader(status)
}

func (f *filterWriter) Write(p []byte) (int, error) {
	if f.mode == 0 {
		f.WriteHeader(http.StatusOK)
	}
	switch f.mode {
	case modeText:
		return len(p), nil
	case modeJSON:
		f.pending = append(f.pending, p...)
		return len(p), nil
	case modeSSE:
		f.pending = append(f.pending, p...)
		if err := f.writeEvents(); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return f.w.Write(p)
}

// outgoing is the rewrite of one JSON-RPC message of next's response.
func (f *filterWriter) outgoing(msg []byte) []byte {
	if clean, changed := rpcwire.CleanResponse(msg); changed {
		return clean
	}
	if f.list {
		if m, ok := readMembers(msg, []string{"id", "result", "method"}); ok && m["method"] == nil && m["result"] != nil &&
			idKey(m["id"]) == idKey(f.id) {
			f.list = false
			return f.a.narrowList(f.ctx, msg)
		}
	}
	return msg
}

// writeEvents writes every complete event of pending, its data rewritten.
func (f *filterWriter) writeEvents() error {
	end := bytes.LastIndex(f.pending, []byte("\n\n"))
	if end < 0 {
		return nil
	}
	events := f.pending[:end+2]
	out := make([]byte, 0, len(events))
	for len(events) > 0 {
		ln, rest, _ := bytes.Cut(events, []byte("\n"))
		events = rest
		if data, ok := bytes.CutPrefix(ln, []byte("data:")); ok {
			data = bytes.TrimPrefix(data, []byte(" "))
			if msg := f.outgoing(data); !bytes.Equal(msg, data) {
				ln = append([]byte("data: "), msg...)
			}
		}
		out = append(append(out, ln...), '\n')
	}
	f.pending = append(f.pending[:0], f.pending[end+2:]...)
	_, err := f.w.Write(out)
	return err
}

// Flush writes what can be written and flushes the underlying writer.
func (f *filterWriter) Flush() {
	if f.mode == modeJSON || f.mode == modeText {
		return // the body is written whole by finish
	}
	if f.mode == 0 {
		f.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(f.w).Flush()
}

// Unwrap gives http.ResponseController the underlying writer.
func (f *filterWriter) Unwrap() http.ResponseWriter { return f.w }

// finish writes a held JSON body, rewritten, a replaced text body, and any incomplete
// event left.
func (f *filterWriter) finish() {
	if f.done {
		return
	}
	switch f.mode {
	case modeText:
		h := f.w.Header()
		body := []byte(http.StatusText(f.status) + "\n")
		if f.id != nil && (f.status == http.StatusBadRequest || f.status == http.StatusRequestEntityTooLarge) {
			fault := discovery.CodeInvalidRequest
			if f.status == http.StatusRequestEntityTooLarge {
				fault = discovery.CodeMessageTooLarge
			}
			body = appendError(nil, f.id, fault)
			h.Set("Content-Type", "application/json")
			h.Del("X-Content-Type-Options")
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		f.w.WriteHeader(f.status)
		f.w.Write(body)
	case modeJSON:
		body := bytes.TrimSpace(f.pending)
		if len(body) > 0 {
			body = f.outgoing(body)
		}
		f.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		f.w.WriteHeader(f.status)
		f.w.Write(body)
	case modeSSE:
		if len(f.pending) > 0 {
			f.w.Write(f.pending)
		}
	}
}
