package mcpsdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// contentFree returns the adapter's error in place of an SDK error of a JSON-RPC code:
// its message is the fixed word for the code (discovery.CodeParseError,
// CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternal), its data
// {"error": word, "status": S}. A code with no name of its own is
// discovery.CodeServerError, written with the SDK's JSON-RPC code.
func contentFree(code int64) *jsonrpc.Error {
	c := rpcwire.ContentFree(code)
	e := wireError(c)
	if c == discovery.CodeServerError {
		e.Code = code
	}
	return e
}

// kept reports whether an outgoing JSON-RPC error may leave as it is: one the adapter
// or discovery wrote (rpcwire.Own), or one of hostErrors (the host's CheckCall
// *jsonrpc.Error, a granted call's handler error). Every other error, the SDK's above
// all (they quote methods, params and argument values), is replaced.
func kept(code int64, message string, data []byte) bool {
	return rpcwire.Own(message, data) || hostErrors.has(code, message, data)
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
		return contentFree(je.Code)
	}
	var code int64
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		code = je.Code
	}
	if kept(code, err.Error(), nil) {
		return err
	}
	return contentFree(code)
}

// cleanMessage returns msg, or a copy of the response msg with its error cleaned
// (cleanError): what a connection writes in place of the SDK's message.
func cleanMessage(msg jsonrpc.Message) jsonrpc.Message {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
		clean := *r
		clean.Error = cleanError(r.Error)
		return &clean
	}
	return msg
}

// cleanResponse rewrites one encoded JSON-RPC response whose error is not kept
// (rpcwire.CleanResponseKeeping); ok is false when msg needs no change.
func cleanResponse(msg []byte) (out []byte, ok bool) {
	return rpcwire.CleanResponseKeeping(msg, kept)
}

// hostErrors remembers, by wire content, the *jsonrpc.Error values the hosts' CheckCall
// returned (SPEC CALL-6: the host chose its wire form) and the errors of granted calls'
// tool handlers (keepHostError), so that the outgoing filters let them out unchanged. It holds at most maxHostErrors entries and is cleared when
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
