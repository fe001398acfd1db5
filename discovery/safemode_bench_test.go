package discovery_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/safemode"
)

// BenchmarkSafeModeCall measures a call safe mode holds: its preview (the default text
// and a sealed token) and its confirmed call (the token opened against the binding),
// beside the same call with safe mode off.
func BenchmarkSafeModeCall(b *testing.B) {
	args := json.RawMessage(`{"text":"nightly rollout of the tuned model","count":3}`)
	b.Run("off", func(b *testing.B) {
		f := newSafeFixture(b, func(o *discovery.Options) { o.SafeMode = safemode.Options{} })
		c := discovery.Call{Tool: "model_delete", Arguments: args}
		b.ReportAllocs()
		for b.Loop() {
			if err := f.d.AuthorizeCall(b.Context(), alice, c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("preview", func(b *testing.B) {
		f := newSafeFixture(b, nil)
		c := discovery.Call{Tool: "model_delete", Arguments: args}
		b.ReportAllocs()
		for b.Loop() {
			if err := f.d.AuthorizeCall(b.Context(), alice, c); !errors.As(err, new(*discovery.ConfirmationRequired)) {
				b.Fatal(err)
			}
		}
	})
	b.Run("confirmed", func(b *testing.B) {
		f := newSafeFixture(b, nil)
		c := discovery.Call{Tool: "model_delete", Arguments: args, Confirmation: f.preview(b, alice, "model_delete", string(args)).Token}
		b.ReportAllocs()
		for b.Loop() {
			if err := f.d.AuthorizeCall(b.Context(), alice, c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
