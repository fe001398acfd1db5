package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/deferredtools/deferredtools/grants"
)

// HandleJSONRPC answers one JSON-RPC message if it calls the discover method: bytes in,
// bytes out, for hosts that want discovery at the transport. It reports handled=false,
// and returns nil, for every other message, for a batch, and for everything while the
// switch is off, so the host answers those exactly as it would without the library
// (SPEC FLAG-2). A discover notification (no id) is handled with no response. The
// response, envelope included, is at most MaxResponseBytes (SPEC PAGE-1): the page is
// sized for the request's real id.
func (d *Discoverer) HandleJSONRPC(ctx context.Context, p grants.Principal, msg []byte) (resp []byte, handled bool) {
	if !d.opts.Enabled {
		return nil, false
	}
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	trimmed := bytes.TrimSpace(msg)
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &env) != nil {
		return nil, false
	}
	if env.Method != d.method {
		return nil, false
	}
	if env.ID == nil {
		return nil, true // a notification: discovery executes nothing, answers nothing
	}
	if !validID(env.ID) || env.JSONRPC != "2.0" {
		return appendRPCError(nil, []byte("null"), -32600, "invalid_request", 400), true
	}
	req, err := parseParams(env.Params)
	var res *Result
	if err == nil {
		res, err = d.discover(ctx, p, req, len(env.ID))
	}
	if err != nil {
		return AppendJSONRPCError(nil, env.ID, err), true
	}
	out := make([]byte, 0, MaxResponseBytes)
	out = append(out, envOpen...)
	out = append(out, env.ID...)
	out = append(out, envResult...)
	out = res.AppendJSON(out)
	return append(out, envClose...), true
}

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
// An err that is not an *Error is reported as grants_unavailable's generic 503, so no
// foreign error text ever reaches the wire (SPEC ERR-2).
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
	return newError(CodeValidationUnavailable, err)
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
