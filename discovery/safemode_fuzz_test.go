package discovery_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
)

// FuzzConfirmationToken feeds untrusted confirmation tokens and arguments to a call safe
// mode holds. Junk never panics and never confirms: with no token the call is held
// (a preview), with any token but the one issued for these arguments it is refused with
// invalid_confirmation (or invalid_arguments, or tool_validation_unavailable at a
// CALL-5 bound, before safe mode looks), and no
// error text carries the token. The token issued for {"text":"a"} confirms exactly the
// argument texts equal to it up to insignificant white space. Seeds live in
// testdata/fuzz/FuzzConfirmationToken.
func FuzzConfirmationToken(f *testing.F) {
	f.Add("", []byte(`{"text":"a"}`))
	f.Add("AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", []byte(`{"text":"a"}`))
	f.Add("ISSUED", []byte(` { "text" : "a" } `))
	f.Add("ISSUED", []byte(`{"text":"b"}`))
	fx := newSafeFixture(f, nil)
	const issuedArgs = `{"text":"a"}`
	issued := fx.preview(f, alice, "model_delete", issuedArgs).Token
	f.Fuzz(func(t *testing.T, token string, args []byte) {
		if token == "ISSUED" {
			token = issued
		}
		err := fx.d.AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_delete", Arguments: args, Confirmation: token})
		if err != nil && token != "" && len(token) > 3 && strings.Contains(err.Error(), token) {
			t.Fatalf("error text %q carries the token", err.Error())
		}
		var de *discovery.Error
		if errors.As(err, &de) && (de.Code == discovery.CodeInvalidArguments || de.Code == discovery.CodeValidationUnavailable) {
			return // the arguments were refused (or hit a bound) before safe mode looked at the token
		}
		if token == "" {
			if !errors.As(err, new(*discovery.ConfirmationRequired)) {
				t.Fatalf("no token, valid arguments: %v, want *ConfirmationRequired", err)
			}
			return
		}
		var compact bytes.Buffer
		same := token == issued && json.Compact(&compact, args) == nil && compact.String() == issuedArgs
		if same {
			if err != nil {
				t.Fatalf("issued token with equal arguments %q: %v", args, err)
			}
			return
		}
		if de == nil || de.Code != discovery.CodeInvalidConfirmation || err.Error() != "discovery: invalid_confirmation" {
			t.Fatalf("token %q, arguments %q: %v, want invalid_confirmation", token, args, err)
		}
	})
}

// FuzzSafeModeHolds feeds untrusted definitions to SafeModeHolds with safe mode on. It
// fails closed: it answers false only for one valid JSON object whose annotations say,
// by their exact member names, readOnlyHint true and destructiveHint not true, and whose
// name is not exempt. Truncated or otherwise unreadable text answers true. Seeds live
// in testdata/fuzz/FuzzSafeModeHolds.
func FuzzSafeModeHolds(f *testing.F) {
	f.Add([]byte(`{"name":"x","annotations":{"readOnlyHint":true}}`))
	f.Add([]byte(`{"name":"x","annotations":{"readOnlyHint":true}`))
	f.Add([]byte(`{"name":"x","annotations":{"readOnlyHint":true}}}`))
	f.Add([]byte(`{"name":"x","annotations":{"readOnlyHint":true,"destructiveHint":true}}`))
	f.Add([]byte(`{"name":"x","annotations":{"ReadOnlyHint":true}}`))
	f.Add([]byte(`{"name":"x","annotations":{"readOnlyHint":true}} {}`))
	fx := newSafeFixture(f, nil)
	f.Fuzz(func(t *testing.T, def []byte) {
		if fx.d.SafeModeHolds(def) {
			return // holding is always safe
		}
		var tool map[string]json.RawMessage
		if !json.Valid(def) || json.Unmarshal(def, &tool) != nil {
			t.Fatalf("SafeModeHolds(%q) = false for text that is not one JSON object, want true", def)
		}
		var ann map[string]json.RawMessage
		if json.Unmarshal(tool["annotations"], &ann) != nil || string(ann["readOnlyHint"]) != "true" || string(ann["destructiveHint"]) == "true" {
			t.Fatalf("SafeModeHolds(%q) = false, want true: not read-only by its exact hints", def)
		}
	})
}
