package discovery

import (
	"errors"
	"net/http"
	"slices"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/validate"
)

// Code is a public error code: the fixed word a refusal carries on the wire, as the
// JSON-RPC error's message and data.error (SPEC ERR-1). The constants are every code
// the library writes, the mcpsdk adapter's included. A Code is an error itself, with
// the text "discovery: " + code, and errors.Is(err, CodeToolNotGranted) reports
// whether err is or wraps an *Error with that code. Being an error, it prints with
// %v and %s as that text: string(c) is the bare word.
type Code string

// Public error codes, with their HTTP status and JSON-RPC code (see Code.Status and
// Code.JSONRPCCode).
const (
	CodeMethodNotFound        Code = "method_not_found"            // 404, -32601: the switch is off
	CodeInvalidParams         Code = "invalid_params"              // 400, -32602
	CodeInvalidCursor         Code = "invalid_cursor"              // 400, -32602
	CodeInvalidArguments      Code = "invalid_arguments"           // 400, -32602
	CodeToolNotGranted        Code = "tool_not_granted"            // 403, -32000
	CodeContractChanged       Code = "contract_changed"            // 409, -32000
	CodeGrantsChanged         Code = "tool_grants_changed"         // 409, -32000
	CodeSchemaTooLarge        Code = "tool_schema_too_large"       // 413, -32000
	CodeValidationUnavailable Code = "tool_validation_unavailable" // 503, -32000
	CodeGrantsUnavailable     Code = "grants_unavailable"          // 503, -32000
	CodeCatalogUnavailable    Code = "catalog_unavailable"         // 503, -32000
	CodeInternal              Code = "internal_error"              // 500, -32603: a foreign error

	// CodeInvalidRequest answers a message that is not a JSON-RPC 2.0 request with a
	// string or number id (HandleJSONRPC), or JSON the mcpsdk adapter cannot pass to
	// the SDK (a batch, a wrong version, id or method, a repeated member, nesting
	// deeper than 1,000): 400, -32600.
	CodeInvalidRequest Code = "invalid_request"
	// CodeParseError answers a message that is not JSON text (mcpsdk): 400, -32700.
	CodeParseError Code = "parse_error"
	// CodeMessageTooLarge answers a message over the size cap (mcpsdk): 413, -32600.
	CodeMessageTooLarge Code = "message_too_large"
	// CodeUnauthenticated answers a request whose principal could not be established
	// (mcpsdk's PrincipalFunc failed): 401, -32000.
	CodeUnauthenticated Code = "unauthenticated"
	// CodeCallRefused answers a tools/call the host's CheckCall refused with an error of
	// its own (mcpsdk): 403, -32000.
	CodeCallRefused Code = "tool_call_refused"
	// CodeInvalidConfirmation answers a safe-mode call whose confirmation token is
	// forged, expired (120 s) or issued for another call, principal, scopes, grant
	// rows or contract (see Options.SafeMode): 400, -32602.
	CodeInvalidConfirmation Code = "invalid_confirmation"
	// CodeConfirmationRequired is the code of a *ConfirmationRequired: safe mode holds
	// the call until it is confirmed. Adapters answer it with a preview result, not
	// an error; written as an error it is 428 (Precondition Required), -32000.
	CodeConfirmationRequired Code = "confirmation_required"
	// CodeServerError replaces an SDK error whose JSON-RPC code has no name of its own
	// (mcpsdk, which keeps the SDK's JSON-RPC code): 500, -32000.
	CodeServerError Code = "server_error"
)

// allCodes lists every Code constant, in their order above.
var allCodes = [...]Code{
	CodeMethodNotFound, CodeInvalidParams, CodeInvalidCursor, CodeInvalidArguments,
	CodeToolNotGranted, CodeContractChanged, CodeGrantsChanged, CodeSchemaTooLarge,
	CodeValidationUnavailable, CodeGrantsUnavailable, CodeCatalogUnavailable, CodeInternal,
	CodeInvalidRequest, CodeParseError, CodeMessageTooLarge, CodeUnauthenticated,
	CodeCallRefused, CodeInvalidConfirmation, CodeConfirmationRequired, CodeServerError,
}

// Codes returns every public error code the library writes, in a fixed order: for a
// host that prepares something per code, such as metric series.
func Codes() []Code { return slices.Clone(allCodes[:]) }

// JSON-RPC 2.0 error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcInternalError  = -32603
	rpcServerError    = -32000
)

// Error returns "discovery: " + c.
func (c Code) Error() string { return "discovery: " + string(c) }

// Status returns the HTTP status a transport answers c with (and data.status on the
// wire): 500 for a string that is not one of the Code constants.
func (c Code) Status() int {
	switch c {
	case CodeMethodNotFound:
		return http.StatusNotFound
	case CodeInvalidParams, CodeInvalidCursor, CodeInvalidArguments,
		CodeInvalidRequest, CodeParseError, CodeInvalidConfirmation:
		return http.StatusBadRequest
	case CodeConfirmationRequired:
		return http.StatusPreconditionRequired
	case CodeUnauthenticated:
		return http.StatusUnauthorized
	case CodeToolNotGranted, CodeCallRefused:
		return http.StatusForbidden
	case CodeContractChanged, CodeGrantsChanged:
		return http.StatusConflict
	case CodeSchemaTooLarge, CodeMessageTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeValidationUnavailable, CodeGrantsUnavailable, CodeCatalogUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError // CodeInternal, CodeServerError, unknown
}

// JSONRPCCode returns the JSON-RPC error code c is written with: -32603 (internal
// error) for a string that is not one of the Code constants.
func (c Code) JSONRPCCode() int {
	switch c {
	case CodeParseError:
		return rpcParseError
	case CodeInvalidRequest, CodeMessageTooLarge:
		return rpcInvalidRequest
	case CodeMethodNotFound:
		return rpcMethodNotFound
	case CodeInvalidParams, CodeInvalidCursor, CodeInvalidArguments, CodeInvalidConfirmation:
		return rpcInvalidParams
	case CodeToolNotGranted, CodeContractChanged, CodeGrantsChanged, CodeSchemaTooLarge,
		CodeValidationUnavailable, CodeGrantsUnavailable, CodeCatalogUnavailable,
		CodeUnauthenticated, CodeCallRefused, CodeServerError, CodeConfirmationRequired:
		return rpcServerError
	}
	return rpcInternalError
}

// Error is the error the Discoverer returns for every refusal: a Code, and for
// CodeInvalidArguments where the arguments failed. Its text is Code's, "discovery: " +
// Code: never arguments, schema text, storage text, the query or a cursor (SPEC
// ERR-2). Use errors.As to read it, errors.Is(err, CodeX) to test its code, and
// errors.Is against the leaf packages' sentinels to test its cause.
type Error struct {
	Code Code // its HTTP status and JSON-RPC code are Code.Status() and Code.JSONRPCCode()

	// Keyword and Path are set for CodeInvalidArguments: the JSON Schema keyword that
	// failed and the schema-defined location as a JSON Pointer (validate.ValidationError:
	// "/xs/1", "/city" for a required member missing, "" for the arguments as a whole),
	// never a value. Arguments that are not one JSON value, or repeat a member, leave
	// both empty.
	Keyword string
	Path    string

	cause error
}

func (e *Error) Error() string { return e.Code.Error() }

// Unwrap returns the cause, for errors.Is against the leaf packages' sentinels.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is e's Code, so that errors.Is(err, CodeToolNotGranted)
// works.
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c == e.Code
}

// ErrNilContext is the cause of the internal_error (500) every Discoverer entry point
// answers for a nil context.Context, before it reads, decides or observes anything,
// with the switch on or off: as net/http's NewRequestWithContext answers an error for
// one, where a panic deep in a grant read would name no culprit. Pass
// context.Background() or context.TODO() instead.
var ErrNilContext = errors.New("discovery: nil context")

// errNilContext is the refusal of a nil context.
func errNilContext() error { return newError(CodeInternal, ErrNilContext) }

func newError(code Code, cause error) *Error {
	return &Error{Code: code, cause: cause}
}

// codeOf returns the Code of err: an *Error's, a Code's, or CodeInternal for any other
// error.
func codeOf(err error) Code {
	if c, ok := errCode(err); ok {
		return c
	}
	return CodeInternal
}

// errCode is the Code err carries, as an *Error or a Code anywhere in its chain, and
// whether it carries one.
func errCode(err error) (Code, bool) {
	switch e := err.(type) {
	case *Error:
		return e.Code, true
	case Code:
		return e, true
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	var c Code
	if errors.As(err, &c) {
		return c, true
	}
	return "", false
}

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
