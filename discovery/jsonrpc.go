package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// HandleJSONRPC answers one JSON-RPC message if it calls the discover method: bytes in,
// bytes out, for hosts that want discovery at the transport. It reports handled=false,
// and returns nil, for every other message, for a batch, and for everything while the
// switch is off, so the host answers those exactly as it would without the library
// (SPEC FLAG-2). A discover notification (no id) is handled with no response. The
// response, envelope included, is at most MaxResponseBytes (SPEC PAGE-1): the page is
// sized for the request's real id. Each response is a new slice; AppendJSONRPC writes
// into the host's own buffer instead.
func (d *Discoverer) HandleJSONRPC(ctx context.Context, p grants.Principal, msg []byte) (resp []byte, handled bool) {
	return d.AppendJSONRPC(ctx, nil, p, msg)
}

// AppendJSONRPC is HandleJSONRPC appending the response to dst and returning the
// extended slice, so that a host can answer request after request from one buffer
// (responses reach MaxResponseBytes). When it does not handle msg, or msg is a
// notification, it returns dst unchanged.
func (d *Discoverer) AppendJSONRPC(ctx context.Context, dst []byte, p grants.Principal, msg []byte) (resp []byte, handled bool) {
	if !d.opts.Enabled {
		return dst, false
	}
	env, ok := parseEnvelope(msg)
	if !ok {
		return dst, false
	}
	if env.Method != d.method {
		return dst, false
	}
	if env.ID == nil {
		return dst, true // a notification: discovery executes nothing, answers nothing
	}
	// An id too long to echo in any response under MaxResponseBytes is answered as an
	// invalid request with a null id (SPEC PAGE-1).
	if !validID(env.ID) || env.JSONRPC != "2.0" || len(env.ID) > MaxResponseBytes-maxErrorEnvelope {
		return appendRPCError(dst, []byte("null"), -32600, "invalid_request", 400), true
	}
	req, err := parseValidParams(env.Params) // parseEnvelope checked the whole message
	var res *Result
	if err == nil {
		res, err = d.discover(ctx, p, req, frame{idLen: len(env.ID)})
	}
	if err != nil {
		return AppendJSONRPCError(dst, env.ID, err), true
	}
	dst = slices.Grow(dst, len(envOpen)+len(env.ID)+len(envResult)+res.jsonLen()+len(envClose))
	dst = append(dst, envOpen...)
	dst = append(dst, env.ID...)
	dst = append(dst, envResult...)
	dst = res.AppendJSON(dst)
	return append(dst, envClose...), true
}

// ResponseStatus reports the HTTP status a host's HTTP transport should answer a
// response of HandleJSONRPC (or the bytes AppendJSONRPC appended) with: 200 for a page,
// the error's status for a refusal (SPEC ERR-1). It reads only the envelope, never the
// page.
func ResponseStatus(resp []byte) int {
	if !bytes.HasPrefix(resp, []byte(envOpen)) {
		return http.StatusOK
	}
	i := jsonlex.SkipValue(resp, len(envOpen)) // the echoed id
	if !bytes.HasPrefix(resp[i:], []byte(`,"error":`)) {
		return http.StatusOK
	}
	// An error response ends with "status":S}}} (appendRPCError).
	tail := bytes.TrimSuffix(resp, []byte("}}}"))
	j := bytes.LastIndexByte(tail, ':')
	status, err := strconv.Atoi(string(tail[j+1:]))
	if err != nil || status < 400 || status > 599 {
		return http.StatusBadRequest
	}
	return status
}

// envelope is the members of a JSON-RPC message the Discoverer reads.
type envelope struct {
	JSONRPC string
	ID      json.RawMessage // nil when absent: a notification
	Method  string
	Params  json.RawMessage
}

// parseEnvelope reads a JSON-RPC message strictly: one object, member names matched
// exactly, other members ignored. A duplicated jsonrpc, id, method or params member, a
// non-string method or any syntax error reports false, leaving the message to the host:
// an ambiguous message is never taken for a discover call.
func parseEnvelope(msg []byte) (envelope, bool) {
	var env envelope
	if !json.Valid(msg) {
		return env, false
	}
	var seen [4]bool
	ok := members(msg, func(key, val []byte) bool {
		k := -1
		switch {
		case keyIs(key, "jsonrpc"):
			k = 0
		case keyIs(key, "id"):
			k = 1
		case keyIs(key, "method"):
			k = 2
		case keyIs(key, "params"):
			k = 3
		}
		if k < 0 {
			return true // another member: ignored
		}
		if seen[k] {
			return false
		}
		seen[k] = true
		switch k {
		case 0:
			env.JSONRPC, _ = stringValue(val) // not a string: an invalid request below
		case 1:
			env.ID = val
		case 2:
			var isString bool
			env.Method, isString = stringValue(val)
			return isString
		case 3:
			env.Params = val
		}
		return true
	})
	return env, ok
}

// maxErrorEnvelope bounds the bytes of an error response besides its id.
const maxErrorEnvelope = 256

// validID reports whether id is a JSON-RPC request id MCP allows: a string or a number.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	case c == '-' || ('0' <= c && c <= '9'):
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
	return false
}

// AppendJSONRPCError appends the JSON-RPC error response for err to dst:
// {"jsonrpc":"2.0","id":ID,"error":{"code":N,"message":"<code>","data":{"error":"<code>","status":S}}}.
// An err that is not an *Error (a host's own error, say) is reported as internal_error
// (500, -32603), so no foreign error text ever reaches the wire (SPEC ERR-2).
func AppendJSONRPCError(dst []byte, id json.RawMessage, err error) []byte {
	e := asError(err)
	return appendRPCError(dst, id, e.JSONRPCCode, e.Code, e.Status)
}

// asError returns err as an *Error, or the generic 503 for anything else.
func asError(err error) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return newError(CodeInternal, err)
}

func appendRPCError(dst, id []byte, code int, name string, status int) []byte {
	dst = append(dst, envOpen...)
	if len(id) == 0 {
		id = []byte("null")
	}
	dst = append(dst, id...)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, `,"message":"`...)
	dst = append(dst, name...)
	dst = append(dst, `","data":{"error":"`...)
	dst = append(dst, name...)
	dst = append(dst, `","status":`...)
	dst = strconv.AppendInt(dst, int64(status), 10)
	return append(dst, "}}}"...)
}
