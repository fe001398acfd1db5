package mcpsdk

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// A PrincipalFunc returns the authenticated caller of one request. extra is the SDK's
// request extra (auth.TokenInfo and HTTP header on streamable HTTP); on stdio and
// in-memory transports it is nil or carries neither. An error refuses the request with unauthenticated
// (HTTP 401); its text never reaches the wire. It must be safe for concurrent use.
type PrincipalFunc func(ctx context.Context, extra *mcp.RequestExtra) (grants.Principal, error)

// ErrNoPrincipal is the error TokenInfoPrincipal returns when a request carries no
// authenticated user.
var ErrNoPrincipal = errors.New("mcpsdk: no authenticated principal")

// StaticPrincipal returns a PrincipalFunc that answers p for every request: the usual
// choice for a stdio server, whose one client the host authenticated at launch.
func StaticPrincipal(p grants.Principal) PrincipalFunc {
	return func(context.Context, *mcp.RequestExtra) (grants.Principal, error) { return p, nil }
}

// TokenInfoPrincipal is the PrincipalFunc that reads the go-sdk's auth.TokenInfo, from
// extra or else from ctx (where auth.RequireBearerToken puts it): the principal ID is
// TokenInfo.UserID and its scopes TokenInfo.Scopes. Without a TokenInfo, or with an
// empty UserID, it answers ErrNoPrincipal.
func TokenInfoPrincipal(ctx context.Context, extra *mcp.RequestExtra) (grants.Principal, error) {
	var ti *auth.TokenInfo
	if extra != nil {
		ti = extra.TokenInfo
	}
	if ti == nil {
		ti = auth.TokenInfoFromContext(ctx)
	}
	if ti == nil || ti.UserID == "" {
		return grants.Principal{}, ErrNoPrincipal
	}
	return grants.Principal{ID: ti.UserID, Scopes: ti.Scopes}, nil
}

// Options configure an Adapter. A nil *Options means all defaults; New copies it.
type Options struct {
	// Principal identifies the caller of each request. Nil means TokenInfoPrincipal.
	Principal PrincipalFunc
	// DiscoveryTool, when not empty, is the name of the discovery tool the adapter
	// lists and answers while the switch is on, for clients that cannot send the
	// discover method (see discovery.ToolDefinition). It must not name a catalog tool:
	// Install refuses a name the
	// catalog holds with ErrDiscoveryToolClash, and while a catalog version swapped in
	// later holds it, tools/list, the discover method and calls of that name answer
	// catalog_unavailable (503), so no name is served with two schemas; other calls go
	// on. Empty: no discovery tool.
	DiscoveryTool string
	// MaxRequestBodyBytes caps the HTTP request body Handler reads and screens: a
	// larger body answers 413 message_too_large, read no further than the cap. Zero or
	// negative means mcp.DefaultMaxRequestBodyBytes (4 MiB), the SDK's own default:
	// Handler never reads a body unbounded. Set the SDK handler's cap at least as high.
	MaxRequestBodyBytes int64
	// DrainLimit bounds how long a stdio session whose input has ended waits for the
	// answers owed to requests already read before it ends; then the SDK cancels the
	// handlers still running, and their calls get no answer. Zero or negative means
	// 10 s.
	DrainLimit time.Duration
	// DisableLocalhostProtection turns off Handler's DNS rebinding refusal (403 for a
	// request on a loopback address with a foreign Host header). Set it exactly when
	// the SDK handler behind has StreamableHTTPOptions.DisableLocalhostProtection set,
	// for example behind a reverse proxy on the same machine that forwards the public
	// Host. False: Handler refuses such requests, as the SDK's handler does by default.
	DisableLocalhostProtection bool
}

// An Adapter connects one Discoverer to go-sdk servers, transports and HTTP handlers.
// It is safe for concurrent use and may serve many servers and sessions.
type Adapter struct {
	d       *discovery.Discoverer
	base    *discovery.Discoverer // d before ReserveToolName: its catalog holds every name
	opts    Options
	toolDef json.RawMessage // the discovery tool's definition, or nil
	pending pendingCalls    // the front's grant decisions on their way to the middleware
}

// New returns an Adapter for d. opts is copied; nil means defaults. A nil d fails
// closed: the adapter serves as over a Discoverer with the switch on and no catalog,
// every request it decides answering catalog_unavailable (503, SPEC ERR-5).
func New(d *discovery.Discoverer, opts *Options) *Adapter {
	if d == nil {
		d = discovery.New(&discovery.Options{Enabled: true})
	}
	a := &Adapter{d: d}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.Principal == nil {
		a.opts.Principal = TokenInfoPrincipal
	}
	if a.opts.DrainLimit <= 0 {
		a.opts.DrainLimit = rpcwire.DrainLimit
	}
	if a.opts.MaxRequestBodyBytes <= 0 {
		a.opts.MaxRequestBodyBytes = mcp.DefaultMaxRequestBodyBytes
	}
	if a.opts.DiscoveryTool != "" {
		a.toolDef = discovery.ToolDefinition(a.opts.DiscoveryTool)
		a.base, a.d = d, d.ReserveToolName(a.opts.DiscoveryTool) // one decision per catalog version
	}
	return a
}

// Discoverer returns the Discoverer the adapter serves: d, or with
// Options.DiscoveryTool set, d.ReserveToolName(DiscoveryTool).
func (a *Adapter) Discoverer() *discovery.Discoverer { return a.d }

// Install adds the adapter's receiving middleware (see Middleware) to s. While the
// switch is off it adds nothing and returns nil. It returns ErrDiscoveryToolClash,
// and adds nothing, when Options.DiscoveryTool names a tool of the catalog version
// the Discoverer serves now (NewServerCatalog's: the server's tools).
func (a *Adapter) Install(s *mcp.Server) error {
	if !a.d.Enabled() {
		return nil
	}
	if rpcwire.NameHeld(context.Background(), a.base, a.opts.DiscoveryTool) {
		return ErrDiscoveryToolClash
	}
	s.AddReceivingMiddleware(a.Middleware())
	return nil
}

// ErrDiscoveryToolClash is Install's error when Options.DiscoveryTool names a catalog
// tool: calls of that name would run the discovery tool while discover served the
// catalog tool's schema under it.
var ErrDiscoveryToolClash = errors.New("mcpsdk: the discovery tool's name is a catalog tool's")

// rpcError maps err to the JSON-RPC error the SDK writes:
// {"code":N,"message":"<code>","data":{"error":"<code>","status":S}}. A *jsonrpc.Error
// (the host chose its wire form; remembered so that the outgoing filters keep it) and
// a context error pass unchanged; anything else that is not a *discovery.Error or a
// discovery.Code becomes unknown, so that no foreign text reaches the wire (SPEC
// ERR-2).
func rpcError(err error, unknown discovery.Code) error {
	var de *discovery.Error
	if errors.As(err, &de) {
		return wireError(de.Code)
	}
	var code discovery.Code
	if errors.As(err, &code) {
		return wireError(code)
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		hostErrors.add(je) // the outgoing filters let it out unchanged
		return je
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return wireError(unknown)
}

// wireError returns the JSON-RPC error for code as the SDK writes it:
// {"code":N,"message":"<code>","data":{"error":"<code>","status":S}}, N and S the
// code's own.
func wireError(code discovery.Code) *jsonrpc.Error {
	data := make([]byte, 0, 64)
	data = append(data, `{"error":`...)
	data = strconv.AppendQuote(data, string(code))
	data = append(data, `,"status":`...)
	data = strconv.AppendInt(data, int64(code.Status()), 10)
	data = append(data, '}')
	return &jsonrpc.Error{Code: int64(code.JSONRPCCode()), Message: string(code), Data: data}
}

// principal runs the host's PrincipalFunc; a failure is unauthenticated.
func (a *Adapter) principal(ctx context.Context, extra *mcp.RequestExtra) (grants.Principal, error) {
	p, err := a.opts.Principal(ctx, extra)
	if err != nil {
		return grants.Principal{}, discovery.CodeUnauthenticated
	}
	return p, nil
}
