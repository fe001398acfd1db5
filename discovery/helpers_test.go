package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/validate"
)

// This file holds the helpers every test of the package shares.

// toolDef returns a complete MCP tool definition whose input schema takes a required
// string "text" (at most 100 characters) and an optional integer "count" in 1..10.
func toolDef(name, description string) json.RawMessage {
	return toolDefSchema(name, description, map[string]any{
		"type": "object",
		"properties": map[string]any{
			"text":  map[string]any{"type": "string", "maxLength": 100},
			"count": map[string]any{"type": "integer", "minimum": 1, "maximum": 10},
		},
		"required":             []any{"text"},
		"additionalProperties": false,
	})
}

// toolDefSchema returns a tool definition with the given input schema.
func toolDefSchema(name, description string, schema any) json.RawMessage {
	b, err := json.Marshal(map[string]any{"name": name, "description": description, "inputSchema": schema})
	if err != nil {
		panic(err)
	}
	return b
}

// sampleTools is a small realistic catalog: a model registry, datasets, deployments
// and billing.
func sampleTools() []json.RawMessage {
	return []json.RawMessage{
		toolDef("model_search", "Search the model registry by name, task or tag."),
		toolDef("model_get", "Get one model of the registry with its versions and metrics."),
		toolDef("model_delete", "Delete a model from the registry."),
		toolDef("model_tag", "Add a tag to a model version in the registry."),
		toolDef("model_compare", "Compare the evaluation metrics of two model versions."),
		toolDef("dataset_search", "Search datasets by name, modality or licence."),
		toolDef("dataset_upload", "Upload a new dataset version from a URL."),
		toolDef("dataset_preview", "Preview the first rows of a dataset."),
		toolDef("deployment_create", "Deploy a model version to an endpoint."),
		toolDef("deployment_list", "List the deployments of a project and their status."),
		toolDef("deployment_scale", "Scale the replicas of a deployment."),
		toolDef("billing_invoice_get", "Get an invoice of the billing account."),
		toolDef("billing_usage", "Report compute usage and cost per project."),
	}
}

// newCatalog compiles tools with default options, failing the test on error.
func newCatalog(t testing.TB, tools ...json.RawMessage) *discovery.Catalog {
	t.Helper()
	c, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return c
}

// allow and deny build grant rows (revision set by the store).
func allow(principal, tool string, scopes ...string) grants.Row {
	return grants.Row{Principal: principal, Tool: tool, Scopes: scopes, Effect: grants.Allow, Revision: 1}
}

func deny(principal, tool string) grants.Row {
	return grants.Row{Principal: principal, Tool: tool, Effect: grants.Deny, Revision: 1}
}

// newStore returns an in-memory grant store holding rows.
func newStore(t testing.TB, rows ...grants.Row) *grants.Memory {
	t.Helper()
	m := grants.NewMemory()
	for _, r := range rows {
		if _, err := m.Put(context.Background(), r); err != nil {
			t.Fatalf("Put(%v): %v", r, err)
		}
	}
	return m
}

// newDiscoverer returns an enabled Discoverer over cat and r; edit adjusts the options.
func newDiscoverer(cat discovery.CatalogSource, r grants.Reader, edit func(*discovery.Options)) *discovery.Discoverer {
	o := &discovery.Options{Enabled: true, Catalog: cat, Grants: r}
	if edit != nil {
		edit(o)
	}
	return discovery.New(o)
}

var (
	alice = grants.Principal{ID: "alice", Scopes: []string{"models:read"}}
	bob   = grants.Principal{ID: "bob", Scopes: []string{"billing:read"}}
)

// statusOf is the ERR-1 table: the HTTP status and JSON-RPC code of every public code.
var statusOf = map[discovery.Code][2]int{
	discovery.CodeMethodNotFound:        {404, -32601},
	discovery.CodeInvalidParams:         {400, -32602},
	discovery.CodeInvalidCursor:         {400, -32602},
	discovery.CodeInvalidArguments:      {400, -32602},
	discovery.CodeToolNotGranted:        {403, -32000},
	discovery.CodeContractChanged:       {409, -32000},
	discovery.CodeGrantsChanged:         {409, -32000},
	discovery.CodeSchemaTooLarge:        {413, -32000},
	discovery.CodeValidationUnavailable: {503, -32000},
	discovery.CodeGrantsUnavailable:     {503, -32000},
	discovery.CodeCatalogUnavailable:    {503, -32000},
	discovery.CodeInternal:              {500, -32603},
}

// wantCode fails the test unless err is a *discovery.Error with code, carrying the
// status and JSON-RPC code of the ERR-1 table and the fixed text "discovery: "+code.
func wantCode(t testing.TB, what string, err error, code discovery.Code) *discovery.Error {
	t.Helper()
	var e *discovery.Error
	if !errors.As(err, &e) {
		t.Errorf("%s: error = %v (%T), want *discovery.Error %s", what, err, err, code)
		return nil
	}
	if e.Code != code {
		t.Errorf("%s: code = %q, want %q", what, e.Code, code)
		return e
	}
	st := statusOf[code]
	if e.Code.Status() != st[0] || e.Code.JSONRPCCode() != st[1] {
		t.Errorf("%s: %s status, JSON-RPC code = %d, %d, want %d, %d", what, code, e.Code.Status(), e.Code.JSONRPCCode(), st[0], st[1])
	}
	if got := e.Error(); got != "discovery: "+string(code) {
		t.Errorf("%s: Error() = %q, want %q", what, got, "discovery: "+code)
	}
	if !errors.Is(err, code) {
		t.Errorf("%s: errors.Is(err, %s) = false", what, code)
	}
	return e
}

// toolNames returns the "name" member of each tool definition.
func toolNames(t testing.TB, tools []json.RawMessage) []string {
	t.Helper()
	names := make([]string, len(tools))
	for i, raw := range tools {
		var v struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("tool %d: %v", i, err)
		}
		names[i] = v.Name
	}
	return names
}

// forbiddenReader is a grants.Reader that fails the test when it is read (SPEC FLAG-2).
type forbiddenReader struct{ t testing.TB }

func (r forbiddenReader) ReadGrants(context.Context, string) (*grants.Snapshot, error) {
	r.t.Errorf("the grant store was read")
	return nil, grants.ErrUnavailable
}

// countingCompiler wraps a Compiler and counts the validations its validators run.
type countingCompiler struct {
	base      validate.Compiler
	validated atomic.Int64
	order     *callOrder
}

func (c *countingCompiler) Compile(schema []byte) (validate.Validator, error) {
	v, err := c.base.Compile(schema)
	if v == nil {
		return nil, err
	}
	return countingValidator{v, c}, err
}

type countingValidator struct {
	v validate.Validator
	c *countingCompiler
}

func (v countingValidator) Validate(args []byte) error {
	v.c.validated.Add(1)
	if v.c.order != nil {
		v.c.order.add("validate")
	}
	return v.v.Validate(args)
}

// callOrder records the order in which steps ran.
type callOrder struct {
	mu    sync.Mutex
	steps []string
}

func (o *callOrder) add(s string) {
	o.mu.Lock()
	o.steps = append(o.steps, s)
	o.mu.Unlock()
}

func (o *callOrder) get() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.steps)
}

// countingCatalog compiles tools with a countingCompiler over the bounded validator.
func countingCatalog(t testing.TB, tools ...json.RawMessage) (*discovery.Catalog, *countingCompiler) {
	t.Helper()
	cc := &countingCompiler{base: validate.NewCompiler(nil)}
	c, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{Compiler: cc})
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return c, cc
}

// logRecorder is a slog.Handler that keeps the full text of every record: message,
// level and every attribute, groups included.
type logRecorder struct {
	mu      *sync.Mutex
	records *[]string
	prefix  string
}

func newLogRecorder() *logRecorder {
	return &logRecorder{mu: new(sync.Mutex), records: new([]string)}
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s%s", r.Level, h.prefix, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value.Resolve())
		return true
	})
	h.mu.Lock()
	*h.records = append(*h.records, b.String())
	h.mu.Unlock()
	return nil
}

func (h *logRecorder) WithAttrs(attrs []slog.Attr) slog.Handler {
	h2 := *h
	for _, a := range attrs {
		h2.prefix += fmt.Sprintf("%s=%v ", a.Key, a.Value.Resolve())
	}
	return &h2
}

func (h *logRecorder) WithGroup(name string) slog.Handler {
	h2 := *h
	h2.prefix += name + "."
	return &h2
}

func (h *logRecorder) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(*h.records)
}
