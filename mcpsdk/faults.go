package mcpsdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/deferredtools/deferredtools/discovery"
)

// Codes of the content-free errors the adapter answers for messages it cannot pass to
// the SDK, and writes in place of SDK errors that could quote what the client sent.
const (
	// CodeParseError answers a message that is not JSON text: a syntax error, a
	// truncated message, invalid UTF-8 (JSON-RPC -32700, HTTP 400).
	CodeParseError = "parse_error"
	// CodeInvalidRequest answers JSON that is not a JSON-RPC message the SDK accepts
	// (a batch, a wrong version, id or method, a repeated member name, nesting deeper
	// than 1,000): JSON-RPC -32600, HTTP 400.
	CodeInvalidRequest = "invalid_request"
	// CodeMessageTooLarge answers a message over the size cap (stdio: the line cap;
	// HTTP: Options.MaxRequestBodyBytes): JSON-RPC -32600, HTTP 413.
	CodeMessageTooLarge = "message_too_large"
	// CodeServerError replaces an SDK error whose code has no name of its own.
	CodeServerError = "server_error"
)

var (
	faultParse    = &discovery.Error{Code: CodeParseError, Status: http.StatusBadRequest, JSONRPCCode: -32700}
	faultInvalid  = &discovery.Error{Code: CodeInvalidRequest, Status: http.StatusBadRequest, JSONRPCCode: -32600}
	faultTooLarge = &discovery.Error{Code: CodeMessageTooLarge, Status: http.StatusRequestEntityTooLarge, JSONRPCCode: -32600}
)

// contentFree returns the adapter's error for a JSON-RPC code: its message is a fixed
// word for the code, its data {"error": word, "status": S}.
func contentFree(code int64) *discovery.Error {
	switch code {
	case -32700:
		return faultParse
	case -32600:
		return faultInvalid
	case -32601:
		return discovery.ErrMethodNotFound
	case -32602:
		return discovery.ErrInvalidParams
	case 0, -32603:
		return &discovery.Error{Code: discovery.CodeInternal, Status: http.StatusInternalServerError, JSONRPCCode: -32603}
	}
	return &discovery.Error{Code: CodeServerError, Status: http.StatusInternalServerError, JSONRPCCode: int(code)}
}

// ownCodes are the codes of every error the adapter and discovery write.
var ownCodes = map[string]bool{
	discovery.CodeMethodNotFound: true, discovery.CodeInvalidParams: true, discovery.CodeInvalidCursor: true,
	discovery.CodeInvalidArguments: true, discovery.CodeToolNotGranted: true, discovery.CodeContractChanged: true,
	discovery.CodeGrantsChanged: true, discovery.CodeSchemaTooLarge: true, discovery.CodeValidationUnavailable: true,
	discovery.CodeGrantsUnavailable: true, discovery.CodeCatalogUnavailable: true, discovery.CodeInternal: true,
	CodeUnauthenticated: true, CodeCallRefused: true, CodeParseError: true, CodeInvalidRequest: true,
	CodeMessageTooLarge: true, CodeServerError: true,
}

// kept reports whether an outgoing JSON-RPC error may leave as it is: one the adapter
// or discovery wrote (message one of their codes, data exactly {"error": message,
// "status": S}), or one the host's CheckCall returned as a *jsonrpc.Error. Every other error, the
// SDK's above all (they quote methods, params and argument values), is replaced.
func kept(code int64, message string, data []byte) bool {
	if ownCodes[message] {
		var d struct {
			Error  string `json:"error"`
			Status int    `json:"status"`
		}
		if json.Unmarshal(data, &d) == nil && d.Error == message {
			want := wireError(&discovery.Error{Code: message, Status: d.Status}).Data
			if compactEqual(data, want) {
				return true
			}
		}
	}
	return hostErrors.has(code, message, data)
}

func compactEqual(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// cleanError returns the error a response should carry in place of err: err itself
// when the SDK will write it as a kept error, else the content-free error of its code.
// It mirrors how the SDK turns an error into its wire form: a *jsonrpc.Error as it is,
// any other error as its text with the code of the *jsonrpc.Error it wraps.
func cleanError(err error) error {
	if err == nil {
		return nil
	}
	if je, ok := err.(*jsonrpc.Error); ok {
		if kept(je.Code, je.Message, je.Data) {
			return err
		}
		return wireError(contentFree(je.Code))
	}
	var code int64
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		code = je.Code
	}
	if kept(code, err.Error(), nil) {
		return err
	}
	return wireError(contentFree(code))
}

// cleanResponse rewrites one encoded JSON-RPC response whose error is not kept; ok is
// false when msg needs no change (a result, a request, a kept error, not JSON-RPC).
func cleanResponse(msg []byte) (out []byte, ok bool) {
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(msg, &r) != nil || r.Error == nil || kept(r.Error.Code, r.Error.Message, r.Error.Data) {
		return nil, false
	}
	return discovery.AppendJSONRPCError(nil, r.ID, contentFree(r.Error.Code)), true
}

// hostErrors remembers, by wire content, the *jsonrpc.Error values the hosts' CheckCall
// returned, so that the outgoing filters let them out unchanged (SPEC CALL-6: the host
// chose its wire form). It holds at most maxHostErrors entries and is cleared when
// full: an entry lost that way costs the host's text, never content-freedom.
var hostErrors = &errorSet{}

const maxHostErrors = 1024

type errorSet struct {
	mu sync.Mutex
	m  map[string]struct{}
}

func errorKey(code int64, message string, data []byte) string {
	var c bytes.Buffer
	if len(data) > 0 && json.Compact(&c, data) != nil {
		return ""
	}
	return strconv.FormatInt(code, 10) + "\x00" + message + "\x00" + c.String()
}

func (s *errorSet) add(je *jsonrpc.Error) {
	k := errorKey(je.Code, je.Message, je.Data)
	if k == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) >= maxHostErrors {
		s.m = make(map[string]struct{})
	}
	s.m[k] = struct{}{}
}

func (s *errorSet) has(code int64, message string, data []byte) bool {
	k := errorKey(code, message, data)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[k]
	return ok && k != ""
}
