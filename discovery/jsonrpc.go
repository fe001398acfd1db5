package discovery

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
)

// HandleJSONRPC answers one JSON-RPC message if it calls the discover method: bytes in,
// bytes out, for hosts that want discovery at the transport. Its status reports the
// outcome, the HTTP status a host's HTTP transport answers with:
//
//   - 0: the message is the host's to answer, and resp is nil: every other method, a
//     batch, and every message while the switch is off, so the host answers those
//     exactly as it would without the library (SPEC FLAG-2);
//   - 202 (http.StatusAccepted): a discover notification (no id), handled with no
//     response;
//   - 200: a page;
//   - the refusal's Code.Status(): a JSON-RPC error response (SPEC ERR-1).
//
// The response, envelope included, is at most MaxResponseBytes (SPEC PAGE-1): the page
// is sized for the request's real id. Each response is a new slice; AppendJSONRPC
// writes into the host's own buffer instead.
func (d *Discoverer) HandleJSONRPC(ctx context.Context, p grants.Principal, msg []byte) (resp []byte, status int) {
	return d.AppendJSONRPC(ctx, nil, p, msg)
}

// AppendJSONRPC is HandleJSONRPC appending the response to dst and returning the
// extended slice, so that a host can answer request after request from one buffer
// (responses reach MaxResponseBytes). When it does not handle msg (status 0), or msg
// is a notification, it returns dst unchanged.
func (d *Discoverer) AppendJSONRPC(ctx context.Context, dst []byte, p grants.Principal, msg []byte) (resp []byte, status int) {
	if !d.opts.Enabled {
		return dst, 0
	}
	env, ok := parseEnvelope(msg)
	if !ok {
		return dst, 0
	}
	if env.Method != d.method {
		return dst, 0
	}
	if env.ID == nil {
		return dst, http.StatusAccepted // a notification: discovery executes nothing, answers nothing
	}
	// An id too long to echo in any response under MaxResponseBytes is answered as an
	// invalid request with a null id (SPEC PAGE-1).
	invalid := !validID(env.ID) || env.JSONRPC != "2.0" || len(env.ID) > MaxResponseBytes-maxErrorEnvelope
	if ctx == nil { // refused before it is observed (ErrNilContext)
		id := env.ID
		if invalid {
			id = nil
		}
		return appendRPCError(dst, id, CodeInternal), CodeInternal.Status()
	}
	var code Code // the refusal's, reported to the observer as it is written
	defer d.observe(&ctx, observe.OpDiscover).rpc(len(dst), &resp, &code)
	if invalid {
		code = CodeInvalidRequest
		return appendRPCError(dst, nil, code), code.Status()
	}
	var res *Result
	cat, err := d.catalog(ctx, false, "") // first, as discoverParams takes it
	var req Request
	if err == nil {
		req, err = parseValidParams(env.Params, true) // parseEnvelope checked the whole message
	}
	if err == nil {
		res, err = d.discover(ctx, p, cat, req, frame{idLen: len(env.ID)}, nil)
	}
	if err != nil {
		code = codeOf(err)
		return appendRPCError(dst, env.ID, code), code.Status()
	}
	dst = slices.Grow(dst, len(envOpen)+len(env.ID)+len(envResult)+res.jsonLen()+len(envClose))
	dst = append(dst, envOpen...)
	dst = append(dst, env.ID...)
	dst = append(dst, envResult...)
	dst = res.AppendJSON(dst)
	return append(dst, envClose...), http.StatusOK
}

// DiscoverFramed is DiscoverParams for a host that decoded the JSON-RPC request itself
// and frames the page in the response: idLen is the length of the request's id as the
// response writes it, and the page is sized as AppendJSONRPC sizes it for that id, so
// the response is at most MaxResponseBytes (SPEC PAGE-1). An id too long for any
// response under MaxResponseBytes answers invalid_request.
func (d *Discoverer) DiscoverFramed(ctx context.Context, p grants.Principal, params json.RawMessage, idLen int) (res *Result, err error) {
	if ctx == nil {
		return nil, errNilContext()
	}
	defer d.observe(&ctx, observe.OpDiscover).page(&res, &err)
	if d.opts.Enabled && (idLen < 0 || idLen > MaxResponseBytes-maxErrorEnvelope) {
		return nil, newError(CodeInvalidRequest, nil)
	}
	return d.discoverParams(ctx, p, params, frame{idLen: idLen})
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
// {"jsonrpc":"2.0","id":ID,"error":{"code":N,"message":"<code>","data":{"error":"<code>","status":S}}},
// with N and S the Code's JSONRPCCode and Status; an empty id is written null. err is
// an *Error or a Code (or wraps one); any other error (a host's own, say) is reported
// as CodeInternal (500, -32603), so no foreign error text ever reaches the wire (SPEC
// ERR-2).
func AppendJSONRPCError(dst []byte, id json.RawMessage, err error) []byte {
	return appendRPCError(dst, id, codeOf(err))
}

func appendRPCError(dst, id []byte, code Code) []byte {
	dst = append(dst, envOpen...)
	if len(id) == 0 {
		id = []byte("null")
	}
	dst = append(dst, id...)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(code.JSONRPCCode()), 10)
	dst = append(dst, `,"message":"`...)
	dst = append(dst, code...)
	dst = append(dst, `","data":{"error":"`...)
	dst = append(dst, code...)
	dst = append(dst, `","status":`...)
	dst = strconv.AppendInt(dst, int64(code.Status()), 10)
	return append(dst, "}}}"...)
}
