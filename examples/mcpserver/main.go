// Command mcpserver is a real MCP server with deferred tool discovery: the official MCP
// Go SDK serving a catalog over stdio or streamable HTTP, with narrowed tools/list,
// gated tools/call, the multillm.tools.discover method and a search_tools tool.
//
// Usage:
//
//	go run ./examples/mcpserver [flags]
//
// Flags:
//
//	-catalog FILE      a JSON array of MCP tool definitions (default: the embedded demo catalog),
//	                   each input schema of "type" "object", as the go-sdk requires
//	-meta-tools FILE   a JSON object declaring the catalog's meta tools and their actions
//	                   (see metatool.Parse; the demo's: examples/internal/demo/metatools.json)
//	-grants FILE       a JSON array of {"principal","tool","scopes","effect","revision"} rows
//	                   (default: the demo grants with the demo catalog, none with -catalog)
//	-db sqlite:PATH    keep grants in a SQLite database (created and migrated when needed;
//	                   the "*" rows of -grants, or of the demo, seed it where no row exists;
//	                   while discovery is off it is not opened)
//	-principal ID      the principal of the stdio session (default alice)
//	-scopes a,b        its scopes (default: the demo principal alice's scopes)
//	-http ADDR         serve streamable HTTP on ADDR instead of stdio
//	-tokens FILE       with -http: a JSON object mapping bearer tokens to
//	                   {"principal": ID, "scopes": [...]}; required with -http
//	-discovery-tool N  name of the discovery tool ("" for none; default search_tools); a name
//	                   the catalog holds is refused at start
//	-safe-mode         hold calls to mutating tools (no readOnlyHint, or destructiveHint)
//	                   for confirmation: they answer a preview and a token in
//	                   _meta["deferredtools/confirmation"], and run when called again
//	                   with it in params._meta (see package safemode)
//	-safe-mode-exempt a,b  with -safe-mode: tools it never holds
//
// With -http, these bound what a connection or session may hold (0 turns one off):
//
//	-read-header-timeout D  to read a request's headers (default 10s)
//	-read-timeout D         to read a whole request, body included (default 30s)
//	-write-timeout D        to write a response, from the end of its headers; it also
//	                        ends the GET event stream, which clients reopen (default 1m)
//	-idle-timeout D         a keep-alive connection waits for its next request
//	                        (default 2m; 0: the read timeout)
//	-session-timeout D      an MCP session lives without a request (default 10m)
//
// DEFERRED_TOOLS_ENABLED turns discovery on (see discovery.SwitchFromEnv); while it is
// off the server is a plain go-sdk server of the same tools: every tool listed and
// callable, grants not read. It prints which at start, on stderr. The catalog has no
// handlers: a call that passes authorisation and validation answers a text result
// naming the tool, so any catalog can be served.
//
// A start-up error (a bad flag, a file that cannot be read or is refused) ends the
// program with one line on stderr naming the flag, the rule broken and, for a file it
// cannot open, the file's path: the operator's own input, shown to the operator before
// any client is served. Never a file's content (a JSON syntax error gives its byte
// offset, so a bearer token in -tokens is not echoed), and nothing a client sends
// reaches stderr or is quoted in an answer (SPEC ERR-2; hostile_test.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/examples/internal/demo"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
	"github.com/deferredtools/deferredtools/metatool"
	"github.com/deferredtools/deferredtools/safemode"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv)
	if err != nil && !errors.Is(err, flag.ErrHelp) { // -h: the flags are printed
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	catalog, metaTools, grants, db, principal, scopes, http, tokens, tool string
	limits                                                                httpLimits
	safeMode                                                              bool
	safeExempt                                                            string
}

// httpLimits bound what an HTTP connection or session may hold; zero turns one off.
type httpLimits struct {
	readHeader, read, write, idle, session time.Duration
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("mcpserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config{}
	fs.StringVar(&c.catalog, "catalog", "", "`FILE` holding a JSON array of MCP tool definitions (default: the embedded demo catalog)")
	fs.StringVar(&c.metaTools, "meta-tools", "", "`FILE` holding a JSON object declaring the catalog's meta tools and their actions (default: none)")
	fs.StringVar(&c.grants, "grants", "", "`FILE` holding a JSON array of {\"principal\",\"tool\",\"scopes\",\"effect\",\"revision\"} rows (default: the demo grants)")
	fs.StringVar(&c.db, "db", "", "grant store `sqlite:PATH` (migrated; seeded with the \"*\" rows of -grants or the demo)")
	fs.StringVar(&c.principal, "principal", demo.Alice.ID, "principal `ID` of the stdio session")
	fs.StringVar(&c.scopes, "scopes", strings.Join(demo.Alice.Scopes, ","), "comma-separated `scopes` of the stdio principal")
	fs.StringVar(&c.http, "http", "", "serve streamable HTTP on `ADDR` instead of stdio")
	fs.StringVar(&c.tokens, "tokens", "", "with -http: `FILE` mapping bearer tokens to {\"principal\",\"scopes\"}")
	fs.StringVar(&c.tool, "discovery-tool", discovery.DefaultToolName, "`name` of the discovery tool; empty for none")
	fs.BoolVar(&c.safeMode, "safe-mode", false, "hold calls to mutating tools until they are confirmed (a preview first)")
	fs.StringVar(&c.safeExempt, "safe-mode-exempt", "", "with -safe-mode: comma-separated `names` of tools it never holds")
	fs.DurationVar(&c.limits.readHeader, "read-header-timeout", 10*time.Second, "with -http: time to read a request's headers (0: none)")
	fs.DurationVar(&c.limits.read, "read-timeout", 30*time.Second, "with -http: time to read a whole request, body included (0: none)")
	fs.DurationVar(&c.limits.write, "write-timeout", time.Minute, "with -http: time to write a response, the GET event stream included (0: none)")
	fs.DurationVar(&c.limits.idle, "idle-timeout", 2*time.Minute, "with -http: time a keep-alive connection waits for its next request (0: the read timeout)")
	fs.DurationVar(&c.limits.session, "session-timeout", 10*time.Minute, "with -http: time an MCP session lives without a request (0: none)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if (c.http == "") != (c.tokens == "") {
		return nil, errors.New("-http and -tokens go together: HTTP callers are authenticated by bearer token")
	}
	if c.safeExempt != "" && !c.safeMode {
		return nil, errors.New("-safe-mode-exempt needs -safe-mode")
	}
	l := c.limits
	if min(l.readHeader, l.read, l.write, l.idle, l.session) < 0 {
		return nil, errors.New("a timeout cannot be negative")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	tools, err := loadCatalog(c.catalog)
	if err != nil {
		return err
	}
	metaTools, err := loadMetaTools(c.metaTools)
	if err != nil {
		return err
	}
	cat, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{MetaTools: metaTools})
	if err != nil {
		var ce *discovery.CatalogError
		if errors.As(err, &ce) && ce.Name != "" {
			err = fmt.Errorf("%w (name %q)", err, ce.Name) // the name only, never other content
		}
		return err
	}
	if _, clash := cat.Tool(c.tool); clash && c.tool != "" {
		// discover would serve the catalog's tool under a name whose calls run the
		// discovery tool: a schema served that is not the one enforced.
		return fmt.Errorf("-discovery-tool: names a catalog tool (name %q): choose another name, or \"\" for none", c.tool)
	}
	enabled := discovery.SwitchFromEnv(lookup, logger)
	var store grants.Reader
	if enabled || c.db == "" {
		// While off, a -db database is not opened, created or migrated (SPEC FLAG-2:
		// nothing changes, and the grant store is never read).
		if store, err = openGrants(ctx, c); err != nil {
			return err
		}
	}
	d := discovery.New(&discovery.Options{
		Enabled:  enabled,
		Catalog:  cat,
		Grants:   store,
		SafeMode: safemode.Options{Enabled: c.safeMode, Exempt: splitScopes(c.safeExempt)},
	})
	opts := &mcpsdk.Options{DiscoveryTool: c.tool}
	if c.http == "" {
		opts.Principal = mcpsdk.StaticPrincipal(grants.Principal{ID: c.principal, Scopes: splitScopes(c.scopes)})
	} // over HTTP: mcpsdk.TokenInfoPrincipal, from the bearer token
	a := mcpsdk.New(d, opts)
	server, err := newServer(cat, logger)
	if err != nil {
		return err
	}
	if err := a.Install(server); err != nil {
		return err // the discovery tool's name is a catalog tool's (refused above already)
	}
	logger.Info("mcpserver", "tools", cat.Len(), "discovery", d.Enabled(), "safe_mode", c.safeMode)
	fmt.Fprintln(stderr, "mcpserver:", switchState(d.Enabled()))

	if c.http == "" {
		t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
		err := server.Run(ctx, a.Transport(t))
		if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	verify, err := loadTokens(c.tokens)
	if err != nil {
		return err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Logger:         logger,
		SessionTimeout: c.limits.session, // an abandoned session is closed and freed
	})
	handler := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(a.Handler(h))
	ln, err := net.Listen("tcp", c.http)
	if err != nil {
		return err
	}
	// The timeouts close a connection that stalls its headers or body, a response the
	// client does not read, and an idle keep-alive connection.
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: c.limits.readHeader,
		ReadTimeout:       c.limits.read,
		WriteTimeout:      c.limits.write,
		IdleTimeout:       c.limits.idle,
	}
	fmt.Fprintf(stderr, "mcpserver: listening on http://%s/\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func splitScopes(s string) []string {
	var out []string
	for _, sc := range strings.Split(s, ",") {
		if sc = strings.TrimSpace(sc); sc != "" {
			out = append(out, sc)
		}
	}
	return out
}

func loadCatalog(path string) ([]json.RawMessage, error) {
	if path == "" {
		return demo.Tools(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(data, &tools); err != nil {
		return nil, fmt.Errorf("-catalog: not a JSON array of tool definitions: %w", demo.JSONError(err))
	}
	return tools, nil
}

// loadMetaTools reads the -meta-tools file: nil without one; a file that is no
// declaration is refused with its *metatool.Error.
func loadMetaTools(path string) (map[string]metatool.Tool, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := metatool.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("-meta-tools: %w", err)
	}
	return m, nil
}

// openGrants returns the grant store the flags name.
func openGrants(ctx context.Context, c *config) (grants.Reader, error) {
	rows := demo.Rows()
	if c.grants != "" {
		data, err := os.ReadFile(c.grants)
		if err != nil {
			return nil, err
		}
		if rows, err = demo.ParseRows(data); err != nil {
			return nil, fmt.Errorf("-grants: %w", err)
		}
	} else if c.catalog != "" {
		rows = nil // the demo grants name the demo's tools only
	}
	if c.db != "" {
		// The rows of principal "*" are the compatibility rows the migration seeds.
		var compat []grants.Row
		for _, r := range rows {
			if r.Principal == grants.AnyPrincipal {
				compat = append(compat, r)
			}
		}
		return openDB(ctx, c.db, compat)
	}
	m := grants.NewMemory()
	for i, r := range rows {
		if r.Revision == 0 {
			r.Revision = 1 // the store assigns revisions; a file may leave them out
		}
		if err := grants.CheckRow(r); err != nil {
			return nil, fmt.Errorf("-grants: row %d: %w", i, err)
		}
		if _, err := m.Put(ctx, r); err != nil {
			return nil, fmt.Errorf("-grants: row %d: %w", i, err)
		}
	}
	return m, nil
}

// newServer returns a go-sdk server with every catalog tool registered; a call answers
// a text result naming the tool, since the catalog has no handlers.
func newServer(cat *discovery.Catalog, logger *slog.Logger) (*mcp.Server, error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "deferredtools-mcpserver", Version: "v0.1.0"}, &mcp.ServerOptions{Logger: logger})
	for _, name := range cat.Names() {
		def, _ := cat.Tool(name)
		t, err := sdkTool(def)
		if err != nil { // encoding/json's text names the go-sdk's Go types, not the file
			return nil, fmt.Errorf("-catalog: tool %q: %w", name, errSDKUnreadable)
		}
		err = addTool(server, t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
				Text: "tool " + name + " accepted the call; this catalog has no handler for it",
			}}}, nil
		})
		if err != nil {
			return nil, fmt.Errorf("-catalog: tool %q: %w", name, err)
		}
	}
	return server, nil
}

// The errors of newServer for a catalog tool the go-sdk will not register or read.
var (
	errNotObjectSchema = errors.New("the go-sdk cannot serve it: its input schema is no object schema")
	errSDKRefused      = errors.New("the go-sdk cannot serve it")
	// errSDKUnreadable is a member whose type is not its mcp.Tool field's (an
	// annotations title that is a number), which discovery.NewCatalog does not check.
	errSDKUnreadable = errors.New("the go-sdk cannot read it: a member of the wrong type")
)

// addTool registers t (its InputSchema a json.RawMessage, see sdkTool) on server,
// answering with an error what mcp.Server.AddTool refuses with a panic: an input
// schema whose "type" is not "object" (the go-sdk's rule, which discovery.NewCatalog
// does not make), or anything else it panics on, whose text is dropped (it may quote
// the definition).
func addTool(server *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (err error) {
	var schema struct {
		Type any `json:"type"`
	}
	raw, _ := t.InputSchema.(json.RawMessage)
	if json.Unmarshal(raw, &schema) != nil || schema.Type != "object" {
		return errNotObjectSchema
	}
	defer func() {
		if recover() != nil {
			err = errSDKRefused
		}
	}()
	server.AddTool(t, h)
	return nil
}

// sdkTool converts a canonical definition to the SDK's Tool, keeping the schemas as
// their exact bytes.
func sdkTool(def json.RawMessage) (*mcp.Tool, error) {
	var t mcp.Tool
	if err := json.Unmarshal(def, &t); err != nil {
		return nil, err
	}
	var schemas struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(def, &schemas); err != nil {
		return nil, err
	}
	t.InputSchema = schemas.InputSchema
	if schemas.OutputSchema != nil {
		t.OutputSchema = schemas.OutputSchema
	}
	return &t, nil
}

// tokenEntry is one bearer token of the -tokens file.
type tokenEntry struct {
	Principal string   `json:"principal"`
	Scopes    []string `json:"scopes"`
}

func loadTokens(path string) (auth.TokenVerifier, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tokens map[string]tokenEntry
	if err := json.Unmarshal(data, &tokens); err != nil {
		return nil, fmt.Errorf("-tokens: not a JSON object of token entries: %w", demo.JSONError(err))
	}
	for _, e := range tokens {
		if e.Principal == "" {
			return nil, errors.New("-tokens: an entry has no principal")
		}
	}
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		e, ok := tokens[token]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: e.Principal, Scopes: e.Scopes}, nil
	}, nil
}
