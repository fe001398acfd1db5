package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// A PrincipalFunc returns the authenticated caller of one request from its context:
// on streamable HTTP the request's context (r.Context(), where the host's
// authentication middleware put it), on stdio the context given to Listen. An error
// refuses the request with unauthenticated (HTTP 401); its text never reaches the
// wire. It must be safe for concurrent use.
type PrincipalFunc func(ctx context.Context) (grants.Principal, error)

// ErrNoPrincipal is the error PrincipalFromContext returns for a context that carries
// no principal.
var ErrNoPrincipal = errors.New("mcpgo: no authenticated principal")

type principalKey struct{}

// WithPrincipal returns a copy of ctx carrying p, for PrincipalFromContext: what a
// host's authentication middleware calls before the adapter's Handler, or a stdio host
// on the context it gives Listen.
func WithPrincipal(ctx context.Context, p grants.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFromContext is the default PrincipalFunc: the principal WithPrincipal put
// in ctx, or ErrNoPrincipal when there is none or its ID is empty.
func PrincipalFromContext(ctx context.Context) (grants.Principal, error) {
	p, ok := ctx.Value(principalKey{}).(grants.Principal)
	if !ok || p.ID == "" {
		return grants.Principal{}, ErrNoPrincipal
	}
	return p, nil
}

// StaticPrincipal returns a PrincipalFunc that answers p for every request: the usual
// choice for a stdio server, whose one client the host authenticated at launch.
func StaticPrincipal(p grants.Principal) PrincipalFunc {
	return func(context.Context) (grants.Principal, error) { return p, nil }
}

// Options configure an Adapter. A nil *Options means all defaults; New copies it.
type Options struct {
	// Principal identifies the caller of each request. Nil means PrincipalFromContext.
	Principal PrincipalFunc
	// DiscoveryTool, when not empty, is the name of the discovery tool the adapter
	// lists and answers while the switch is on, for clients that cannot send the
	// discover method (see discovery.ToolDefinition). It must not name a catalog tool:
	// Check and Listen refuse a
	// name the catalog holds with ErrDiscoveryToolClash, and while a catalog version swapped in
	// later holds it, tools/list, the discover method and calls of that name answer
	// catalog_unavailable (503), so no name is served with two schemas; other calls go
	// on. Empty: no discovery tool.
	DiscoveryTool string
	// MaxRequestBodyBytes caps the HTTP request body Handler reads: a larger body
	// answers 413 message_too_large, read no further than the cap. Zero or negative
	// means 4 MiB. (mcp-go's own handler reads bodies unbounded.)
	MaxRequestBodyBytes int64
	// MaxLineBytes caps a stdio message: a longer line answers message_too_large and
	// is skipped to its newline without being kept. Zero or negative means 16 MiB.
	// (mcp-go's own stdio server reads lines unbounded.)
	MaxLineBytes int
	// DrainLimit bounds how long a stdio session whose input has ended waits for the
	// answers owed to requests already read before it ends; then mcp-go cancels the
	// handlers still running, and their calls get no answer. Zero or negative means
	// 10 s.
	DrainLimit time.Duration
	// DisableLocalhostProtection turns off Handler's DNS rebinding refusal (403 for a
	// request on a loopback address with a foreign Host header). Set it exactly when
	// the mcp-go handler behind has server.WithDisableLocalhostProtection(true), for
	// example behind a reverse proxy on the same machine that forwards the public Host.
	// False: Handler refuses such requests, as mcp-go's handler does by default.
	DisableLocalhostProtection bool
	// SessionKey is the secret Handler binds HTTP session ids to principals with
	// (HMAC-SHA256; use 32 random bytes). Replicas serving one deployment behind a load
	// balancer need the same key, or each answers 404 to the ids the others issued (and
	// every process to the ids issued before its restart). Empty: a key New draws.
	SessionKey []byte
}

// An Adapter puts a Discoverer in front of mcp-go servers: it is safe for concurrent
// use and may serve many servers, connections and requests.
type Adapter struct {
	d       *discovery.Discoverer
	base    *discovery.Discoverer // d before ReserveToolName: its catalog holds every name
	opts    Options
	toolDef json.RawMessage // the discovery tool's definition, or nil
	session sessionKey      // binds HTTP session ids to principals (session.go)
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
	a.session = newSessionKey(a.opts.SessionKey)
	if a.opts.Principal == nil {
		a.opts.Principal = PrincipalFromContext
	}
	if a.opts.MaxRequestBodyBytes <= 0 {
		a.opts.MaxRequestBodyBytes = rpcwire.DefaultMaxBody
	}
	if a.opts.DrainLimit <= 0 {
		a.opts.DrainLimit = rpcwire.DrainLimit
	}
	if a.opts.MaxLineBytes <= 0 {
		a.opts.MaxLineBytes = rpcwire.DefaultMaxLine
	}
	if a.opts.DiscoveryTool != "" {
		a.toolDef = discovery.ToolDefinition(a.opts.DiscoveryTool)
		a.base, a.d = d, d.ReserveToolName(a.opts.DiscoveryTool) // one decision per catalog version
	}
	return a
}

// ErrDiscoveryToolClash is the error of Check and Listen when Options.DiscoveryTool
// names a catalog tool: calls of that name would run the discovery tool while discover
// served the catalog tool's schema under it.
var ErrDiscoveryToolClash = errors.New("mcpgo: the discovery tool's name is a catalog tool's")

// Check reports a configuration the adapter refuses: ErrDiscoveryToolClash when
// Options.DiscoveryTool names a tool of the catalog version the Discoverer serves now.
// Listen runs it first; a host serving Handler calls it at start. While the switch is
// off it returns nil. A catalog version swapped in later that holds the name is
// refused per request instead (see the package doc).
func (a *Adapter) Check(ctx context.Context) error {
	if a.d.Enabled() && rpcwire.NameHeld(ctx, a.base, a.opts.DiscoveryTool) {
		return ErrDiscoveryToolClash
	}
	return nil
}

// Discoverer returns the Discoverer the adapter serves: d, or with
// Options.DiscoveryTool set, d.ReserveToolName(DiscoveryTool).
func (a *Adapter) Discoverer() *discovery.Discoverer { return a.d }

// principal runs the host's PrincipalFunc; a failure is unauthenticated.
func (a *Adapter) principal(ctx context.Context) (grants.Principal, error) {
	p, err := a.opts.Principal(ctx)
	if err != nil {
		return grants.Principal{}, discovery.CodeUnauthenticated
	}
	return p, nil
}

// appendError appends the adapter's JSON-RPC error response for code.
func appendError(dst, id []byte, code discovery.Code) []byte {
	return rpcwire.AppendError(dst, id, code, int64(code.JSONRPCCode()), code.Status())
}
