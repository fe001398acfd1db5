package rpcwire

import (
	"bytes"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/deferredtools/deferredtools/discovery"
)

// A Filter is the http.ResponseWriter an adapter's Handler gives the SDK handler behind
// it (SPEC ERR-2): each JSON-RPC message of an application/json body (held until
// Finish) and of each data line of a text/event-stream (event by event) passes through
// Rewrite, and the text/plain body of an error status is replaced by Finish. Other
// bodies pass as they are. Call Finish once next has returned.
type Filter struct {
	W  http.ResponseWriter
	ID []byte // the id of the request the body held, if any
	// Rewrite returns the message to write in place of msg, changed reporting a rewrite.
	Rewrite func(msg []byte) (out []byte, changed bool)
	// TextError returns the body for a text/plain 400 or 413 answering a request with
	// an id; head is the start (at most 64 bytes) of the text it replaces.
	TextError func(id []byte, status int, head []byte) []byte
	// Private marks a response that answers one principal (a narrowed tools/list): its
	// Cache-Control is made private (privateCache), whatever next set.
	Private bool
	// Unavailable marks the answer to one request that reads grants behind the front
	// (a tools/list, a discovery tool call): when that answer is an error of the 503
	// family (CallStatus), it goes out as HTTP 503 with the error as an
	// application/json body, as the front's own refusals do (SPEC FLAG-3), not as an
	// event of an HTTP 200 stream. An event stream's header is held until its first
	// event says which.
	Unavailable bool

	held    bool // an event stream's header held until its first event (Unavailable)
	status  int
	mode    int // one of the mode constants, set by the first WriteHeader
	pending []byte
}

const (
	modePass = iota + 1
	modeJSON
	modeSSE
	modeText
	modeDone // an answer written whole (Unavailable): later bytes are dropped
)

// Header returns the underlying writer's header.
func (f *Filter) Header() http.Header { return f.W.Header() }

// WriteHeader picks how the body is filtered from the status and Content-Type.
func (f *Filter) WriteHeader(status int) {
	if f.mode != 0 {
		return
	}
	f.status = status
	if f.Private {
		privateCache(f.W.Header())
	}
	mt, _, _ := mime.ParseMediaType(f.W.Header().Get("Content-Type"))
	switch {
	case status >= 400 && mt == "text/plain":
		f.mode = modeText // written by Finish, which replaces the text
		return
	case mt == "application/json":
		f.mode = modeJSON // written by Finish, after the whole body is seen
		return
	case mt == "text/event-stream":
		f.mode = modeSSE
		if f.Unavailable && status == http.StatusOK {
			f.held = true // written by writeEvents once the first event is seen
			return
		}
	default:
		f.mode = modePass
	}
	f.W.WriteHeader(status)
}

// Write holds, filters or passes p by the mode WriteHeader chose.
func (f *Filter) Write(p []byte) (int, error) {
	if f.mode == 0 {
		f.WriteHeader(http.StatusOK)
	}
	switch f.mode {
	case modeText:
		if len(f.pending) < 64 { // enough for TextError to tell the text
			f.pending = append(f.pending, p[:min(len(p), 64-len(f.pending))]...)
		}
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
	case modeDone:
		return len(p), nil
	}
	return f.W.Write(p)
}

// writeEvents writes every complete event of pending, its data rewritten.
func (f *Filter) writeEvents() error {
	end := bytes.LastIndex(f.pending, []byte("\n\n"))
	if end < 0 {
		return nil
	}
	events := f.pending[:end+2]
	if f.held && f.unavailable(events) {
		return nil
	}
	out := make([]byte, 0, len(events))
	for len(events) > 0 {
		ln, rest, _ := bytes.Cut(events, []byte("\n"))
		events = rest
		if data, ok := bytes.CutPrefix(ln, []byte("data:")); ok {
			if msg, changed := f.rewrite(bytes.TrimPrefix(data, []byte(" "))); changed {
				ln = append([]byte("data: "), msg...)
			}
		}
		out = append(append(out, ln...), '\n')
	}
	f.pending = append(f.pending[:0], f.pending[end+2:]...)
	_, err := f.W.Write(out)
	return err
}

// unavailable looks at the first event of events, the first a held stream has: an
// error of the 503 family is written as an HTTP 503 application/json answer, and the
// rest of the stream dropped (reporting true); anything else writes the held header.
func (f *Filter) unavailable(events []byte) bool {
	f.held = false
	first, _, _ := bytes.Cut(events, []byte("\n\n"))
	for ln := range bytes.SplitSeq(first, []byte("\n")) {
		data, ok := bytes.CutPrefix(ln, []byte("data:"))
		if !ok {
			continue
		}
		msg, _ := f.rewrite(bytes.TrimPrefix(data, []byte(" ")))
		if CallStatus(msg) != http.StatusServiceUnavailable {
			break
		}
		h := f.W.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(msg)))
		f.W.WriteHeader(http.StatusServiceUnavailable)
		f.W.Write(msg)
		f.mode, f.pending = modeDone, nil
		return true
	}
	f.W.WriteHeader(f.status)
	return false
}

// rewrite is Rewrite, then FitError; an error status of a fitted answer becomes
// invalid_request's.
func (f *Filter) rewrite(msg []byte) (out []byte, changed bool) {
	out, changed = f.Rewrite(msg)
	if !changed {
		out = msg
	}
	out, fitted := FitError(out)
	if fitted && f.status >= 400 {
		f.status = discovery.CodeInvalidRequest.Status()
	}
	return out, changed || fitted
}

// Flush writes what can be written and flushes the underlying writer.
func (f *Filter) Flush() {
	if f.mode == modeJSON || f.mode == modeText || f.mode == modeDone || f.held {
		return // the body is written whole by Finish, or the header is held
	}
	if f.mode == 0 {
		f.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(f.W).Flush()
}

// Unwrap gives http.ResponseController the underlying writer (deadlines and the like).
func (f *Filter) Unwrap() http.ResponseWriter { return f.W }

// Finish writes a held JSON body, rewritten, a replaced text body (TextError's for a
// 400 or 413 answering a request with an id, else the status text), and any
// incomplete event left.
func (f *Filter) Finish() {
	switch f.mode {
	case modeText:
		h := f.W.Header()
		body := []byte(http.StatusText(f.status) + "\n")
		if f.ID != nil && (f.status == http.StatusBadRequest || f.status == http.StatusRequestEntityTooLarge) {
			var fitted bool
			if body, fitted = FitError(f.TextError(f.ID, f.status, f.pending)); fitted {
				f.status = discovery.CodeInvalidRequest.Status()
			}
			h.Set("Content-Type", "application/json")
			h.Del("X-Content-Type-Options")
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		f.W.WriteHeader(f.status)
		f.W.Write(body)
	case modeJSON:
		body := f.pending
		if msg := bytes.TrimSpace(body); len(msg) > 0 {
			if out, changed := f.rewrite(msg); changed {
				body = out
			}
			if f.Unavailable && f.status == http.StatusOK && CallStatus(body) == http.StatusServiceUnavailable {
				f.status = http.StatusServiceUnavailable
			}
		}
		f.W.Header().Set("Content-Length", strconv.Itoa(len(body)))
		f.W.WriteHeader(f.status)
		f.W.Write(body)
	case modeSSE:
		if f.held { // no whole event came
			f.held = false
			f.W.WriteHeader(f.status)
		}
		if len(f.pending) > 0 {
			f.W.Write(f.pending)
		}
	}
}

// bodyFault is the code of a request body readBounded refused: too large or unreadable.
func bodyFault(err error) discovery.Code {
	if errors.Is(err, errTooLarge) {
		return discovery.CodeMessageTooLarge
	}
	return discovery.CodeInvalidRequest
}

// RefuseRebound answers a request rebound reports with 403 and the text forbidden (the SDK
// handler's own text, without the Host it quotes) and reports whether it did. An
// adapter's Handler calls it first, as the SDK handler behind it does, unless the
// host turned that protection off: no body is read and no grant for such a request.
func RefuseRebound(w http.ResponseWriter, r *http.Request, forbidden string) bool {
	if !rebound(r) {
		return false
	}
	http.Error(w, forbidden, http.StatusForbidden)
	return true
}

// ReadBody reads the body of a request an adapter's front screens: a body over limit,
// or unreadable, answers its content-free error (bodyFault, 413 or 400) and ok is
// false. The body is closed either way.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) (body []byte, ok bool) {
	defer r.Body.Close()
	body, err := readBounded(r.Body, limit)
	if err != nil {
		fault := bodyFault(err)
		Answer(w, r, fault.Status(), discovery.AppendJSONRPCError(nil, nil, fault), false)
		return nil, false
	}
	return body, true
}

// Answer writes an adapter's own answer to r: status and body as application/json,
// or, when event is set and r's Accept takes only text/event-stream, one event in an
// HTTP 200; an empty body answers status alone (202 for a notification). A body is
// marked private (privateCache). An error body is first fitted to 64 KiB (FitError),
// its status then invalid_request's when it was an error status.
func Answer(w http.ResponseWriter, r *http.Request, status int, body []byte, event bool) {
	if fitted, changed := FitError(body); changed {
		body = fitted
		if status >= 400 {
			status = discovery.CodeInvalidRequest.Status()
		}
	}
	if len(body) > 0 {
		privateCache(w.Header()) // a discover page or a refusal: one principal's
	}
	switch {
	case len(body) == 0:
		w.WriteHeader(status)
	case event && !acceptsJSON(r):
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.Write(sseEvent(body))
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}
}

// privateCache makes h's Cache-Control say that no shared cache may store the response:
// "public" and "s-maxage" are dropped, "private" and "no-store" added, every other
// directive (no-transform, which event streams want) kept. An answer for one principal
// must never be served to another (SEP-2549's cacheScope "private", in HTTP terms).
func privateCache(h http.Header) {
	var out []string
	private, noStore := false, false
	for _, v := range h.Values("Cache-Control") {
		for _, d := range strings.Split(v, ",") {
			d = strings.TrimSpace(d)
			name, _, _ := strings.Cut(strings.ToLower(d), "=")
			switch name {
			case "", "public", "s-maxage":
				continue
			case "private":
				private = true
			case "no-store":
				noStore = true
			}
			out = append(out, d)
		}
	}
	if !private {
		out = append(out, "private")
	}
	if !noStore {
		out = append(out, "no-store")
	}
	h.Set("Cache-Control", strings.Join(out, ", "))
}

// CallStatus is the HTTP status of an adapter's own answer resp to a tools/call: 503 for
// a JSON-RPC error of the 503 family (grant storage, revision or catalog unavailable,
// SPEC FLAG-3, ERR-1: nothing ran and the client may retry), 200 for any other refusal
// or result (MCP clients read HTTP 401 and 403 as authorisation challenges, so other
// refusals of a call stay JSON-RPC errors in a 200).
func CallStatus(resp []byte) int {
	m, ok := ExactMembers(resp, []string{"error"})
	if !ok || m["error"] == nil {
		return http.StatusOK
	}
	e, _ := ExactMembers(m["error"], []string{"data"})
	d, _ := ExactMembers(e["data"], []string{"status"})
	if string(d["status"]) == "503" {
		return http.StatusServiceUnavailable
	}
	return http.StatusOK
}
