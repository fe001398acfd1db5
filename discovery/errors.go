package discovery

import (
	"errors"
	"net/http"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/validate"
)

// Public error codes (SPEC ERR-1). Every refusal the Discoverer answers is an *Error
// carrying one of these, its HTTP status and its JSON-RPC code.
const (
	CodeMethodNotFound        = "method_not_found"            // switch off: -32601
	CodeInvalidParams         = "invalid_params"              // 400, -32602
	CodeInvalidCursor         = "invalid_cursor"              // 400, -32602
	CodeInvalidArguments      = "invalid_arguments"           // 400, -32602
	CodeToolNotGranted        = "tool_not_granted"            // 403, -32000
	CodeContractChanged       = "contract_changed"            // 409, -32000
	CodeGrantsChanged         = "tool_grants_changed"         // 409, -32000
	CodeSchemaTooLarge        = "tool_schema_too_large"       // 413, -32000
	CodeValidationUnavailable = "tool_validation_unavailable" // 503, -32000
	CodeGrantsUnavailable     = "grants_unavailable"          // 503, -32000
	CodeCatalogUnavailable    = "catalog_unavailable"         // 503, -32000
	CodeInternal              = "internal_error"              // 500, -32603: a foreign error
)

// JSON-RPC error codes used on the wire.
const (
	JSONRPCMethodNotFound = -32601
	JSONRPCInvalidParams  = -32602
	JSONRPCInternalError  = -32603
	JSONRPCServerError    = -32000
)

// Error is the one public error type of the Discoverer. Its text is the fixed string
// "discovery: " + Code: never arguments, schema text, storage text, the query or a
// cursor (SPEC ERR-2). Use errors.As to read it and errors.Is to test the cause.
type Error struct {
	Code        string // one of the Code constants
	Status      int    // the HTTP status a host's HTTP transport should answer with
	JSONRPCCode int    // the JSON-RPC error code for the envelope

	// Keyword and Path are set for CodeInvalidArguments: the JSON Schema keyword that
	// failed and the schema-defined location, never a value.
	Keyword string
	Path    string

	cause error
}

func (e *Error) Error() string { return "discovery: " + e.Code }

// Unwrap returns the cause, for errors.Is against the leaf packages' sentinels.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, &discovery.Error{Code: discovery.CodeToolNotGranted}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func newError(code string, cause error) *Error {
	e := &Error{Code: code, cause: cause}
	switch code {
	case CodeMethodNotFound:
		e.Status, e.JSONRPCCode = http.StatusNotFound, JSONRPCMethodNotFound
	case CodeInvalidParams, CodeInvalidCursor, CodeInvalidArguments:
		e.Status, e.JSONRPCCode = http.StatusBadRequest, JSONRPCInvalidParams
	case CodeToolNotGranted:
		e.Status, e.JSONRPCCode = http.StatusForbidden, JSONRPCServerError
	case CodeContractChanged, CodeGrantsChanged:
		e.Status, e.JSONRPCCode = http.StatusConflict, JSONRPCServerError
	case CodeSchemaTooLarge:
		e.Status, e.JSONRPCCode = http.StatusRequestEntityTooLarge, JSONRPCServerError
	case CodeInternal:
		e.Status, e.JSONRPCCode = http.StatusInternalServerError, JSONRPCInternalError
	default: // the 503 family
		e.Status, e.JSONRPCCode = http.StatusServiceUnavailable, JSONRPCServerError
	}
	return e
}

// Values to test with errors.Is, which compares Codes: errors.Is(err, ErrToolNotGranted).
// The Discoverer returns a fresh *Error each time, never these.
var (
	ErrMethodNotFound        = newError(CodeMethodNotFound, nil)
	ErrInvalidParams         = newError(CodeInvalidParams, nil)
	ErrInvalidCursor         = newError(CodeInvalidCursor, nil)
	ErrInvalidArguments      = newError(CodeInvalidArguments, nil)
	ErrToolNotGranted        = newError(CodeToolNotGranted, nil)
	ErrContractChanged       = newError(CodeContractChanged, nil)
	ErrGrantsChanged         = newError(CodeGrantsChanged, nil)
	ErrSchemaTooLarge        = newError(CodeSchemaTooLarge, nil)
	ErrValidationUnavailable = newError(CodeValidationUnavailable, nil)
	ErrGrantsUnavailable     = newError(CodeGrantsUnavailable, nil)
	ErrCatalogUnavailable    = newError(CodeCatalogUnavailable, nil)
)

// grantsError maps an error from a grants.Reader or grants.Resolve to the public error.
// Every grant failure, a context deadline included, fails closed with 503 (SPEC GRANT-5,
// FLAG-3); the cause stays reachable through errors.Is (context.Canceled, ...).
func grantsError(err error) error {
	return newError(CodeGrantsUnavailable, err)
}

// validationError maps a validate error to the public error (SPEC CALL-2, CALL-4, CALL-5).
func validationError(err error) error {
	var ve *validate.ValidationError
	switch {
	case errors.As(err, &ve):
		e := newError(CodeInvalidArguments, err)
		e.Keyword, e.Path = ve.Keyword, ve.Path
		return e
	case errors.Is(err, validate.ErrInvalid):
		return newError(CodeInvalidArguments, err)
	default: // ErrLimit, ErrUnsupported, or anything unexpected: no verdict, fail closed.
		return newError(CodeValidationUnavailable, err)
	}
}

// cursorError maps a cursor error to invalid_cursor (SPEC CURSOR-2, CURSOR-3).
func cursorError(err error) error {
	if errors.Is(err, cursor.ErrInvalid) {
		return newError(CodeInvalidCursor, err)
	}
	return newError(CodeInvalidCursor, cursor.ErrInvalid)
}
