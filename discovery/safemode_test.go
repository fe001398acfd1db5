package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/safemode"
)

// safeTools is a catalog for safe mode: mutating tools (no hint), a read-only one, a
// read-only one that says it is destructive, and one that previews per action.
func safeTools() []json.RawMessage {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"text":  map[string]any{"type": "string", "maxLength": 100},
			"count": map[string]any{"type": "integer"},
		},
		"required":             []any{"text"},
		"additionalProperties": false,
	}
	annotated := func(name, desc string, ann map[string]any) json.RawMessage {
		b, err := json.Marshal(map[string]any{"name": name, "description": desc, "inputSchema": schema, "annotations": ann})
		if err != nil {
			panic(err)
		}
		return b
	}
	return []json.RawMessage{
		toolDefSchema("model_delete", "Delete a model from the registry. It cannot be undone.", schema),
		toolDefSchema("model_tag", "Add a tag to a model version.", schema),
		annotated("model_search", "Search the model registry.", map[string]any{"readOnlyHint": true}),
		annotated("model_purge", "Purge caches. Reads nothing.", map[string]any{"readOnlyHint": true, "destructiveHint": true}),
		annotated("model_write", "Write a model.", map[string]any{"readOnlyHint": false, "destructiveHint": false}),
		toolDefSchema("issue_meta", "Manage issues; previews each action itself.", schema),
	}
}

// safeFixture is an enabled Discoverer in safe mode over safeTools, every tool granted
// to alice and bob, and a count of the calls CheckCall saw.
type safeFixture struct {
	d     *discovery.Discoverer
	store *grants.Memory
	cat   *discovery.Catalog
}

func newSafeFixture(t testing.TB, edit func(*discovery.Options)) *safeFixture {
	t.Helper()
	cat := newCatalog(t, safeTools()...)
	var rows []grants.Row
	for _, n := range cat.Names() {
		rows = append(rows, allow("*", n))
	}
	store := newStore(t, rows...)
	d := newDiscoverer(cat, store, func(o *discovery.Options) {
		o.SafeMode = safemode.Options{Enabled: true, Exempt: []string{"issue_meta"}}
		if edit != nil {
			edit(o)
		}
	})
	return &safeFixture{d: d, store: store, cat: cat}
}

// preview makes the first call of tool with args and returns what safe mode answered.
func (f *safeFixture) preview(t testing.TB, p grants.Principal, tool, args string) *discovery.ConfirmationRequired {
	t.Helper()
	err := f.d.AuthorizeCall(t.Context(), p, discovery.Call{Tool: tool, Arguments: json.RawMessage(args)})
	var cr *discovery.ConfirmationRequired
	if !errors.As(err, &cr) {
		t.Fatalf("AuthorizeCall(%s, %s) without token = %v, want *ConfirmationRequired", tool, args, err)
	}
	return cr
}

// wantInvalidConfirmation fails unless err is invalid_confirmation (400, -32602) with
// its fixed text, which carries neither the token nor the arguments (SPEC ERR-2).
func wantInvalidConfirmation(t testing.TB, what string, err error, token, args string) {
	t.Helper()
	var e *discovery.Error
	if !errors.As(err, &e) || e.Code != discovery.CodeInvalidConfirmation {
		t.Errorf("%s: error = %v, want invalid_confirmation", what, err)
		return
	}
	if e.Code.Status() != 400 || e.Code.JSONRPCCode() != -32602 {
		t.Errorf("%s: status, JSON-RPC code = %d, %d, want 400, -32602", what, e.Code.Status(), e.Code.JSONRPCCode())
	}
	if err.Error() != "discovery: invalid_confirmation" {
		t.Errorf("%s: text %q, want the fixed code text", what, err.Error())
	}
	if token != "" && strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "secret") {
		t.Errorf("%s: error text %q carries the token or an argument", what, err.Error())
	}
	if !errors.Is(err, cursor.ErrInvalid) {
		t.Errorf("%s: %v does not wrap cursor.ErrInvalid", what, err)
	}
}

// SPEC ERR-1: safe mode's codes have their status and JSON-RPC code, and a
// *ConfirmationRequired is written as confirmation_required (never with its token).
func TestSafeModeCodes(t *testing.T) {
	for _, tc := range []struct {
		code        discovery.Code
		word        string
		status, rpc int
	}{
		{discovery.CodeInvalidConfirmation, "invalid_confirmation", 400, -32602},
		{discovery.CodeConfirmationRequired, "confirmation_required", 428, -32000},
	} {
		if string(tc.code) != tc.word || tc.code.Status() != tc.status || tc.code.JSONRPCCode() != tc.rpc {
			t.Errorf("%q: Status(), JSONRPCCode() = %d, %d, want %d, %d", tc.code, tc.code.Status(), tc.code.JSONRPCCode(), tc.status, tc.rpc)
		}
	}
	cr := &discovery.ConfirmationRequired{Tool: "t", Preview: "p", Token: "TOKEN"}
	got := string(discovery.AppendJSONRPCError(nil, json.RawMessage(`1`), cr))
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"confirmation_required","data":{"error":"confirmation_required","status":428}}}`
	if got != want {
		t.Errorf("AppendJSONRPCError(ConfirmationRequired) =\n%s\nwant\n%s", got, want)
	}
	if !errors.Is(cr, discovery.CodeConfirmationRequired) || cr.Error() != "discovery: confirmation_required" {
		t.Errorf("ConfirmationRequired: Is = %v, text %q", errors.Is(cr, discovery.CodeConfirmationRequired), cr.Error())
	}
}

// Safe mode: a mutating call (no read-only hint, or a destructive one) without a token
// is held: AuthorizeCall answers a preview and a token, never nil, so a host that runs
// its handler only on nil never runs it; the same call with the token is authorised.
// Read-only tools and exempt tools run at once. The default preview names the tool,
// its description's first sentence and the argument names, never their values.
func TestSafeModeHoldsMutatingCalls(t *testing.T) {
	f := newSafeFixture(t, nil)
	ctx := t.Context()
	const args = `{"text":"secret-value-1","count":7}`
	for _, tc := range []struct {
		tool string
		held bool
	}{
		{"model_delete", true},  // no annotations
		{"model_tag", true},     // no annotations
		{"model_write", true},   // readOnlyHint false
		{"model_purge", true},   // read-only, but destructive
		{"model_search", false}, // read-only
		{"issue_meta", false},   // exempt
	} {
		err := f.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: tc.tool, Arguments: json.RawMessage(args)})
		if !tc.held {
			if err != nil {
				t.Errorf("AuthorizeCall(%s) = %v, want nil: safe mode does not hold it", tc.tool, err)
			}
			continue
		}
		var cr *discovery.ConfirmationRequired
		if !errors.As(err, &cr) {
			t.Errorf("AuthorizeCall(%s) without token = %v, want *ConfirmationRequired", tc.tool, err)
			continue
		}
		if cr.Tool != tc.tool || cr.Token == "" || strings.Contains(cr.Preview, "secret") || strings.Contains(cr.Preview, "7") {
			t.Errorf("AuthorizeCall(%s): %+v: want the tool, a token and a preview without values", tc.tool, cr)
		}
		if got := f.d.SafeModeHolds(mustTool(t, f.cat, tc.tool)); !got {
			t.Errorf("SafeModeHolds(%s) = false, want true", tc.tool)
		}
		c := discovery.Call{Tool: tc.tool, Arguments: json.RawMessage(args), Confirmation: cr.Token}
		if err := f.d.AuthorizeCall(ctx, alice, c); err != nil {
			t.Errorf("AuthorizeCall(%s) with its token = %v, want nil", tc.tool, err)
		}
		// Single purpose, not single use: the token confirms this very call for its
		// lifetime (see safemode.Options), and nothing else.
		if err := f.d.AuthorizeCall(ctx, alice, c); err != nil {
			t.Errorf("AuthorizeCall(%s) with its token again = %v, want nil", tc.tool, err)
		}
	}
	cr := f.preview(t, alice, "model_delete", args)
	want := "model_delete: Delete a model from the registry.\nArguments given: count, text"
	if cr.Preview != want {
		t.Errorf("default preview = %q, want %q", cr.Preview, want)
	}
	if !strings.HasPrefix(cr.Text(), "Not executed") || !strings.HasSuffix(cr.Text(), want) {
		t.Errorf("Text() = %q", cr.Text())
	}
	for _, name := range []string{"model_search", "issue_meta"} {
		if f.d.SafeModeHolds(mustTool(t, f.cat, name)) {
			t.Errorf("SafeModeHolds(%s) = true, want false", name)
		}
	}
}

func mustTool(t testing.TB, cat *discovery.Catalog, name string) json.RawMessage {
	t.Helper()
	def, ok := cat.Tool(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return def
}

// A token confirms one call only: other arguments, another tool, another principal or
// scopes, a grant change, a token of another Discoverer, a discover cursor, junk, and a
// token past 120 s are refused with invalid_confirmation, whose text is fixed.
func TestSafeModeTokenIsSinglePurpose(t *testing.T) {
	const args = `{"text":"secret-a"}`
	alice2 := grants.Principal{ID: "alice", Scopes: []string{"models:read", "models:write"}}
	for _, tc := range []struct {
		name string
		call func(f *safeFixture, token string) error
	}{
		{"other arguments", func(f *safeFixture, tok string) error {
			return f.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"secret-b"}`), Confirmation: tok})
		}},
		{"arguments with another member", func(f *safeFixture, tok string) error {
			return f.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"secret-a","count":1}`), Confirmation: tok})
		}},
		{"another tool, same arguments", func(f *safeFixture, tok string) error {
			return f.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_tag", Arguments: json.RawMessage(args), Confirmation: tok})
		}},
		{"another principal, same scopes", func(f *safeFixture, tok string) error {
			bob := grants.Principal{ID: "bob", Scopes: alice.Scopes}
			return f.d.AuthorizeCall(t.Context(), bob, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(args), Confirmation: tok})
		}},
		{"other scopes", func(f *safeFixture, tok string) error {
			return f.d.AuthorizeCall(t.Context(), alice2, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(args), Confirmation: tok})
		}},
		{"after a grant change", func(f *safeFixture, tok string) error {
			if _, err := f.store.Put(t.Context(), allow("alice", "model_tag")); err != nil {
				t.Fatal(err)
			}
			return f.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(args), Confirmation: tok})
		}},
		{"another Discoverer's key", func(f *safeFixture, tok string) error {
			other := newSafeFixture(t, nil)
			return other.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(args), Confirmation: tok})
		}},
		{"a discover cursor", func(f *safeFixture, _ string) error {
			res, err := f.d.Discover(t.Context(), alice, discovery.Request{Query: "model", Limit: 1})
			if err != nil || res.NextCursor == "" {
				t.Fatalf("Discover: %v, cursor %q", err, res.NextCursor)
			}
			return f.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(args), Confirmation: res.NextCursor})
		}},
		{"one character changed", func(f *safeFixture, tok string) error {
			b := []byte(tok)
			b[len(b)/2] ^= 1
			return f.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(args), Confirmation: string(b)})
		}},
		{"junk", func(f *safeFixture, _ string) error {
			return f.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(args), Confirmation: "secret-not-a-token"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSafeFixture(t, nil)
			tok := f.preview(t, alice, "model_delete", args).Token // alice's token
			wantInvalidConfirmation(t, tc.name, tc.call(f, tok), tok, args)
		})
	}
}

// SPEC CURSOR-3 applied to confirmations: a token is valid until 120 s after its
// preview, that instant included, and refused from one nanosecond later
// (testing/synctest: time passes only by sleeping in the bubble).
func TestSafeModeTokenLifetime(t *testing.T) {
	for _, tc := range []struct {
		age  time.Duration
		want bool
	}{
		{119 * time.Second, true},
		{cursor.Lifetime, true},
		{cursor.Lifetime + time.Nanosecond, false},
		{10 * time.Minute, false},
	} {
		t.Run(tc.age.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newSafeFixture(t, nil)
				const args = `{"text":"x"}`
				tok := f.preview(t, alice, "model_delete", args).Token
				time.Sleep(tc.age)
				err := f.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(args), Confirmation: tok})
				if tc.want {
					if err != nil {
						t.Errorf("token issued %v ago: %v, want nil", tc.age, err)
					}
					return
				}
				wantInvalidConfirmation(t, "token issued "+tc.age.String()+" ago", err, tok, args)
				if !errors.Is(err, cursor.ErrExpired) {
					t.Errorf("token issued %v ago: %v does not wrap cursor.ErrExpired", tc.age, err)
				}
			})
		})
	}
}

// The arguments' digest ignores insignificant white space only: member order, number
// text (beyond 2^53 too, where RFC 8785 would round two IDs to one) and string escapes
// are part of what a token confirms.
func TestSafeModeArgumentsDigest(t *testing.T) {
	for _, tc := range []struct {
		first, again string
		same         bool
	}{
		{`{"text":"a","count":1}`, "{ \"text\" : \"a\",\n\t\"count\" : 1 }", true},
		{`{"text":"a b"}`, `{"text":"a  b"}`, false},
		{`{"text":"a","count":1}`, `{"count":1,"text":"a"}`, false},
		{`{"text":"a","count":9007199254740992}`, `{"text":"a","count":9007199254740993}`, false},
		{`{"text":"a","count":1}`, `{"text":"a","count":1.0}`, false},
		{`{"text":"a"}`, `{"text":"\u0061"}`, false},
	} {
		f := newSafeFixture(t, nil)
		tok := f.preview(t, alice, "model_delete", tc.first).Token
		err := f.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(tc.again), Confirmation: tok})
		if tc.same && err != nil {
			t.Errorf("token of %s presented with %s: %v, want nil", tc.first, tc.again, err)
		}
		if !tc.same {
			wantInvalidConfirmation(t, "token of "+tc.first+" presented with "+tc.again, err, tok, "")
		}
	}
	// Absent arguments are {} and confirm each other.
	f := newSafeFixture(t, func(o *discovery.Options) {
		o.Catalog = newCatalog(t, toolDefSchema("wipe", "Wipe.", map[string]any{"type": "object"}))
		o.Grants = newStore(t, allow("*", "wipe"))
	})
	tok := f.preview(t, alice, "wipe", "").Token
	if err := f.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "wipe", Arguments: json.RawMessage(`{}`), Confirmation: tok}); err != nil {
		t.Errorf("token of absent arguments presented with {}: %v", err)
	}
}

// SPEC VIS-1, VIS-2: read-only mode wins over safe mode: a mutating tool is withheld and
// refused with tool_not_granted, never previewed; read-only tools run at once. While
// the switch is off safe mode holds nothing (SPEC FLAG-2).
func TestSafeModeReadOnlyAndSwitch(t *testing.T) {
	f := newSafeFixture(t, func(o *discovery.Options) { o.Visibility.ReadOnly = true })
	ctx := t.Context()
	err := f.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"x"}`)})
	wantCode(t, "read-only mode, mutating tool", err, discovery.CodeToolNotGranted)
	if err := f.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Errorf("read-only mode, read-only tool: %v", err)
	}

	off := newSafeFixture(t, func(o *discovery.Options) { o.Enabled = false })
	if err := off.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Errorf("switch off: %v, want nil", err)
	}
	if off.d.SafeModeHolds(mustTool(t, off.cat, "model_delete")) {
		t.Errorf("switch off: SafeModeHolds = true")
	}
	plain := newSafeFixture(t, func(o *discovery.Options) { o.SafeMode = safemode.Options{} })
	if err := plain.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Errorf("safe mode off: %v, want nil", err)
	}
}

// SPEC CALL-1, CALL-2, CALL-6: safe mode comes last. A denied tool is tool_not_granted,
// invalid arguments invalid_arguments, and a CheckCall refusal is returned unchanged,
// before any preview is made; the host's Preview gets the validated arguments, and its
// error is returned unchanged. AuthorizeToolThen finishes with the same decision.
func TestSafeModeOrderAndHostPreview(t *testing.T) {
	hostErr := errors.New("host refuses")
	var previews, checks int
	f := newSafeFixture(t, func(o *discovery.Options) {
		o.CheckCall = func(_ context.Context, _ grants.Principal, _ string, args json.RawMessage) error {
			checks++
			if strings.Contains(string(args), "forbidden") {
				return hostErr
			}
			return nil
		}
		o.SafeMode.Preview = func(_ context.Context, p grants.Principal, tool string, args json.RawMessage) (string, error) {
			previews++
			if strings.Contains(string(args), "fail") {
				return "", hostErr
			}
			return "would delete for " + p.ID + " via " + tool, nil
		}
	})
	ctx := t.Context()
	err := f.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "no_such_tool", Arguments: json.RawMessage(`{"text":"x"}`)})
	wantCode(t, "unknown tool", err, discovery.CodeToolNotGranted)
	err = f.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":1}`)})
	wantCode(t, "invalid arguments", err, discovery.CodeInvalidArguments)
	err = f.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"forbidden"}`)})
	if err != hostErr {
		t.Errorf("CheckCall refusal: %v, want the host's error unchanged", err)
	}
	if previews != 0 {
		t.Errorf("%d previews made for refused calls, want 0", previews)
	}
	err = f.d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"fail"}`)})
	if err != hostErr {
		t.Errorf("Preview error: %v, want the host's error unchanged", err)
	}
	cr := f.preview(t, alice, "model_delete", `{"text":"x"}`)
	if cr.Preview != "would delete for alice via model_delete" {
		t.Errorf("host preview = %q", cr.Preview)
	}
	then, err := f.d.AuthorizeToolThen(ctx, alice, "model_delete")
	if err != nil {
		t.Fatal(err)
	}
	err = then(ctx, alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"x"}`)})
	if !errors.As(err, new(*discovery.ConfirmationRequired)) {
		t.Errorf("AuthorizeToolThen without token: %v, want *ConfirmationRequired", err)
	}
	then, _ = f.d.AuthorizeToolThen(ctx, alice, "model_delete")
	if err := then(ctx, alice, discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(`{"text":"x"}`), Confirmation: cr.Token}); err != nil {
		t.Errorf("AuthorizeToolThen with token: %v", err)
	}
}

// A confirmation token is bound to the contract the principal is served, so to what the
// visibility leaves it: a Discoverer sharing the Sealer refuses it once another tool's
// definition changed (the held tool's own is unchanged), or when its visibility serves
// other tools; one whose visibility serves the same tools confirms it.
func TestSafeModeTokenBoundToContractAndVisibility(t *testing.T) {
	const args = `{"text":"secret-a"}`
	signer := cursor.NewSigner()
	f := newSafeFixture(t, func(o *discovery.Options) { o.Signer = signer })
	tok := f.preview(t, alice, "model_delete", args).Token
	call := discovery.Call{Tool: "model_delete", Arguments: json.RawMessage(args), Confirmation: tok}
	same := newDiscoverer(f.cat, f.store, func(o *discovery.Options) {
		o.Signer = signer
		o.SafeMode = safemode.Options{Enabled: true, Exempt: []string{"issue_meta"}}
	})
	if err := same.AuthorizeCall(t.Context(), alice, call); err != nil {
		t.Fatalf("same catalog, visibility and Sealer: %v, want the token to confirm", err)
	}
	sameTools := newDiscoverer(f.cat, f.store, func(o *discovery.Options) {
		o.Signer = signer
		o.SafeMode = safemode.Options{Enabled: true, Exempt: []string{"issue_meta"}}
		o.Visibility = discovery.Visibility{Exclude: []string{"no_such_tool"}}
	})
	if err := sameTools.AuthorizeCall(t.Context(), alice, call); err != nil {
		t.Fatalf("a visibility serving the same tools: %v, want the token to confirm", err)
	}
	tools := safeTools()
	tools[1] = toolDefSchema("model_tag", "Add a tag to a model version, edited.", map[string]any{"type": "object"})
	for name, edit := range map[string]func(*discovery.Options){
		"another contract": func(o *discovery.Options) { o.Catalog = newCatalog(t, tools...) },
		"another visibility": func(o *discovery.Options) {
			o.Visibility = discovery.Visibility{Exclude: []string{"model_tag"}}
		},
	} {
		d := newDiscoverer(f.cat, f.store, func(o *discovery.Options) {
			o.Signer = signer
			o.SafeMode = safemode.Options{Enabled: true, Exempt: []string{"issue_meta"}}
			edit(o)
		})
		wantInvalidConfirmation(t, name, d.AuthorizeCall(t.Context(), alice, call), tok, args)
	}
}
