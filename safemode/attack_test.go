package safemode_test

// Attacks on safe mode from outside, through the Discoverer that applies it, against
// the promises of safemode.Options' doc (the confirmation token's binding) and
// DefaultPreview's.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/safemode"
)

var alice = grants.Principal{ID: "alice", Scopes: []string{"models:read", "models:write"}}

// safeDiscoverer is an enabled Discoverer in safe mode over two mutating tools,
// model_delete and model_tag, granted to every principal holding models:write.
func safeDiscoverer(t testing.TB, opts safemode.Options) (*discovery.Discoverer, *grants.Memory) {
	t.Helper()
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"text": map[string]any{"type": "string"}, "count": map[string]any{"type": "number"},
		"nested": map[string]any{"type": "object"}, "list": map[string]any{"type": "array"},
	}, "additionalProperties": false}
	var tools []json.RawMessage
	for _, n := range []string{"model_delete", "model_tag"} {
		b, err := json.Marshal(map[string]any{"name": n, "description": "Change a model. More text.", "inputSchema": schema})
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, b)
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	for _, n := range cat.Names() {
		if _, err := store.Put(context.Background(), grants.Row{Principal: grants.AnyPrincipal, Tool: n, Scopes: []string{"models:write"}, Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	opts.Enabled = true
	return discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, SafeMode: opts}), store
}

// hold makes a call without a token and returns the token safe mode hands out.
func hold(t testing.TB, d *discovery.Discoverer, p grants.Principal, tool, args string) string {
	t.Helper()
	err := d.AuthorizeCall(context.Background(), p, discovery.Call{Tool: tool, Arguments: json.RawMessage(args)})
	var cr *discovery.ConfirmationRequired
	if !errors.As(err, &cr) || cr.Token == "" {
		t.Fatalf("AuthorizeCall(%s, %s) = %v, want a *ConfirmationRequired with a token", tool, args, err)
	}
	return cr.Token
}

func confirm(d *discovery.Discoverer, p grants.Principal, tool, args, token string) error {
	return d.AuthorizeCall(context.Background(), p, discovery.Call{Tool: tool, Arguments: json.RawMessage(args), Confirmation: token})
}

// Options.Exempt's doc: "Exempt names tools safe mode never holds, by exact name". A
// name differing by case, white space, a NUL, a Unicode look-alike or a trailing dot
// exempts nothing. Breaks if exemption compared names folded or trimmed.
func TestAttackExemptIsExact(t *testing.T) {
	d, _ := safeDiscoverer(t, safemode.Options{Exempt: []string{
		"MODEL_DELETE", "Model_delete", " model_delete", "model_delete ", "model_delete\x00", "model_delete.",
		"model\u2010delete", "model_dеlete", // U+2010 hyphen; Cyrillic е
		"", "*", "model_",
	}})
	hold(t, d, alice, "model_delete", `{"text":"x"}`)
	hold(t, d, alice, "model_tag", `{"text":"x"}`)
	// The exact name does exempt: the test can tell.
	ex, _ := safeDiscoverer(t, safemode.Options{Exempt: []string{"model_delete"}})
	if err := confirm(ex, alice, "model_delete", `{"text":"x"}`, ""); err != nil {
		t.Errorf("exempt by its exact name: %v, want the call to run", err)
	}
}

// Options' doc: the token binds "the observed grant rows with their revisions (so any
// change to the principal's grants refuses it)". Writing the very same row again
// changes nothing but its revision (SPEC GRANT-4): the token is refused. Breaks if the
// binding kept the decision (allowed) rather than the rows and revisions.
func TestAttackTokenRefusedAfterRevisionOnlyChange(t *testing.T) {
	d, store := safeDiscoverer(t, safemode.Options{})
	const args = `{"text":"x"}`
	tok := hold(t, d, alice, "model_delete", args)
	if _, err := store.Put(context.Background(), grants.Row{Principal: grants.AnyPrincipal, Tool: "model_delete", Scopes: []string{"models:write"}, Effect: grants.Allow}); err != nil {
		t.Fatal(err)
	}
	err := confirm(d, alice, "model_delete", args, tok)
	if !errors.Is(err, discovery.CodeInvalidConfirmation) {
		t.Errorf("token after the row was rewritten (revision bumped): %v, want invalid_confirmation", err)
	}
}

// Options' doc: the token binds "the principal's ID and scopes", and CURSOR-2 binds a
// scope set: the same scopes in another order, or repeated, confirm; one scope more or
// fewer does not. Breaks both ways: binding the scopes as listed, or not at all.
func TestAttackTokenScopesAreASet(t *testing.T) {
	d, _ := safeDiscoverer(t, safemode.Options{})
	const args = `{"text":"x"}`
	tok := hold(t, d, alice, "model_delete", args)
	for _, scopes := range [][]string{{"models:write", "models:read"}, {"models:read", "models:write", "models:read"}} {
		if err := confirm(d, grants.Principal{ID: "alice", Scopes: scopes}, "model_delete", args, tok); err != nil {
			t.Errorf("scopes %q (the same set): %v, want the token to confirm", scopes, err)
		}
	}
	for _, scopes := range [][]string{{"models:write"}, {"models:read", "models:write", "admin"}} {
		err := confirm(d, grants.Principal{ID: "alice", Scopes: scopes}, "model_delete", args, tok)
		if !errors.Is(err, discovery.CodeInvalidConfirmation) {
			t.Errorf("scopes %q (another set): %v, want invalid_confirmation", scopes, err)
		}
	}
}

// Options' doc: the token binds the principal's ID and scopes, each a fact of its own:
// moving bytes between the ID and a scope, or between two scopes, never confirms.
// Breaks if the binding concatenated its fields without their lengths.
func TestAttackTokenFieldsDoNotRunTogether(t *testing.T) {
	d, store := safeDiscoverer(t, safemode.Options{})
	ctx := context.Background()
	for _, n := range []string{"model_delete"} {
		for _, id := range []string{"ab", "a", "abw"} {
			if _, err := store.Put(ctx, grants.Row{Principal: id, Tool: n, Effect: grants.Allow}); err != nil {
				t.Fatal(err)
			}
		}
	}
	const args = `{"text":"x"}`
	first := grants.Principal{ID: "ab", Scopes: []string{"w", "x:y"}}
	tok := hold(t, d, first, "model_delete", args)
	for _, p := range []grants.Principal{
		{ID: "a", Scopes: []string{"bw", "x:y"}},
		{ID: "ab", Scopes: []string{"wx:y"}},
		{ID: "ab", Scopes: []string{"w", "x", ":y"}},
		{ID: "abw", Scopes: []string{"x:y"}},
	} {
		if err := confirm(d, p, "model_delete", args, tok); !errors.Is(err, discovery.CodeInvalidConfirmation) {
			t.Errorf("token of %+v presented by %+v: %v, want invalid_confirmation", first, p, err)
		}
	}
}

// Options' doc: "A token is single purpose, not single use: it confirms the same call,
// and no other, as often as it is presented within its lifetime". Presented from many
// goroutines at once, beside tokens of other calls, every presentation of a token
// confirms its own call and none confirms another's (run under -race). Breaks if the
// binding's pooled buffer were shared between concurrent calls.
func TestAttackTokensConcurrently(t *testing.T) {
	d, _ := safeDiscoverer(t, safemode.Options{})
	args := []string{`{"text":"a"}`, `{"text":"b"}`, `{"text":"c","count":1}`, `{"count":2}`}
	toks := make([]string, len(args))
	for i, a := range args {
		toks[i] = hold(t, d, alice, "model_delete", a)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 50 {
				i := (g + k) % len(args)
				if err := confirm(d, alice, "model_delete", args[i], toks[i]); err != nil {
					t.Errorf("token %d with its own call: %v", i, err)
					return
				}
				j := (i + 1) % len(args)
				if err := confirm(d, alice, "model_delete", args[i], toks[j]); !errors.Is(err, discovery.CodeInvalidConfirmation) {
					t.Errorf("token %d with call %d: %v, want invalid_confirmation", j, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Options' doc: the token's binding "digests under its own label (so no cursor is ever
// a token, nor a token a cursor)". A confirmation token handed back as a discover
// cursor is invalid_cursor, for every query and limit. (The other direction is
// discovery's TestSafeModeTokenIsSinglePurpose.) Breaks if the two bindings shared a
// layout without the label.
func TestAttackTokenIsNoCursor(t *testing.T) {
	d, _ := safeDiscoverer(t, safemode.Options{})
	tok := hold(t, d, alice, "model_delete", `{}`)
	for _, req := range []discovery.Request{{Query: "model", Limit: 1, Cursor: tok}, {Query: "change a model", Cursor: tok}, {Query: "x", Limit: 16, Cursor: tok}} {
		res, err := d.Discover(context.Background(), alice, req)
		if !errors.Is(err, discovery.CodeInvalidCursor) || res != nil {
			t.Errorf("Discover with a confirmation token as cursor (%q, %d) = %v, %v; want invalid_cursor", req.Query, req.Limit, res, err)
		}
		if err != nil && strings.Contains(err.Error(), tok) {
			t.Errorf("error %q quotes the token", err)
		}
	}
}

// DefaultPreview's doc: it shows "the names of the top-level arguments given, sorted,
// never their values". Members nested in a value, strings in an array and values that
// look like names never appear. Breaks if it walked nested objects or printed values.
func TestAttackPreviewShowsNoNestedNamesOrValues(t *testing.T) {
	def := json.RawMessage(`{"name":"model_delete","description":"Delete a model. More.","inputSchema":{"type":"object"}}`)
	args := json.RawMessage(`{"text":"SECRETVALUE","nested":{"SECRETNESTED":{"SECRETDEEP":1}},"list":["SECRETITEM",{"SECRETINARRAY":2}],"count":12345}`)
	got := safemode.DefaultPreview(def, args)
	if want := "model_delete: Delete a model.\nArguments given: count, list, nested, text"; got != want {
		t.Errorf("DefaultPreview = %q, want %q", got, want)
	}
	if strings.Contains(got, "SECRET") || strings.Contains(got, "12345") {
		t.Errorf("DefaultPreview %q shows a value or a nested name", got)
	}
	// Through the Discoverer too: the preview a held call answers.
	d, _ := safeDiscoverer(t, safemode.Options{})
	err := d.AuthorizeCall(context.Background(), alice, discovery.Call{Tool: "model_delete", Arguments: args})
	var cr *discovery.ConfirmationRequired
	if !errors.As(err, &cr) {
		t.Fatalf("AuthorizeCall = %v, want *ConfirmationRequired", err)
	}
	if strings.Contains(cr.Preview, "SECRET") || strings.Contains(cr.Text(), "SECRET") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("held call's preview %q or error %q shows a value", cr.Preview, err)
	}
}

// SafeModeHolds' doc (discovery): "A definition that cannot be read answers true" —
// safe mode fails closed for a planner asking about a definition it cannot read, and
// holds nothing while safe mode is off. Breaks if an unreadable definition answered
// false (a planner would then show a held tool as one that runs at once).
func TestAttackSafeModeHoldsFailsClosed(t *testing.T) {
	on, _ := safeDiscoverer(t, safemode.Options{})
	off := discovery.New(&discovery.Options{Enabled: true, Catalog: mustCatalog(t), Grants: grants.NewMemory()})
	for _, def := range []string{``, `{`, `null`, `[]`, `{"name":1}`, "\xff"} {
		if !on.SafeModeHolds(json.RawMessage(def)) {
			t.Errorf("safe mode on: SafeModeHolds(%q) = false, want true (fail closed)", def)
		}
		if off.SafeModeHolds(json.RawMessage(def)) {
			t.Errorf("safe mode off: SafeModeHolds(%q) = true, want false", def)
		}
	}
	readOnly := json.RawMessage(`{"name":"model_search","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)
	if on.SafeModeHolds(readOnly) {
		t.Errorf("SafeModeHolds(a read-only definition) = true, want false: the test can tell")
	}
}

func mustCatalog(t testing.TB) *discovery.Catalog {
	t.Helper()
	cat, err := discovery.NewCatalog([]json.RawMessage{json.RawMessage(`{"name":"t","inputSchema":{"type":"object"}}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// DefaultPreview's doc: "A sentence is cut at 300 bytes; at most 32 names of at most 64
// printable bytes of UTF-8 are shown". Bytes, not characters: descriptions and names of
// 2-, 3- and 4-byte characters stay within those bounds, cut on a character boundary.
// Breaks if the bounds counted runes (a sentence of 4-byte characters would reach 1,200
// bytes).
func TestAttackPreviewBoundsInBytes(t *testing.T) {
	for _, r := range []string{"é", "€", "𝄞", "a€"} {
		desc := strings.Repeat(r, 400)
		name := strings.Repeat(r, 64/len(r)+1) // just over 64 bytes
		short := strings.Repeat(r, 64/len(r))  // at most 64 bytes
		def, _ := json.Marshal(map[string]any{"name": "t", "description": desc})
		args, _ := json.Marshal(map[string]any{name: 1, short: 2})
		got := safemode.DefaultPreview(def, args)
		first, second, _ := strings.Cut(got, "\n")
		if len(first) > len("t: ")+300 || !strings.HasPrefix(first, "t: "+r) || !utf8.ValidString(got) {
			t.Errorf("description of %q: first line of %d bytes (want at most %d, whole characters)", r, len(first), len("t: ")+300)
		}
		if want := "Arguments given: " + short + ", and 1 more"; second != want {
			t.Errorf("names of %q: %q, want %q", r, second, want)
		}
	}
}
