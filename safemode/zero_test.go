package safemode_test

import (
	"testing"

	"github.com/deferredtools/deferredtools/internal/nopanic"
	"github.com/deferredtools/deferredtools/safemode"
)

// DefaultPreview of nothing or of text that is no JSON is a preview naming no argument,
// never a panic: Preview's nil means DefaultPreview, so it runs on whatever the catalog
// and call hand it. SPEC ERR-5.
func TestDefaultPreviewNil(t *testing.T) {
	for _, c := range []struct{ def, args []byte }{
		{nil, nil},
		{[]byte("["), []byte("{")},
		{[]byte(`{"name":"t"}`), []byte("null")},
	} {
		var got string
		err := nopanic.Call(func() error {
			got = safemode.DefaultPreview(c.def, c.args)
			return nil
		})
		if err != nil || got == "" {
			t.Errorf("DefaultPreview(%q, %q) = %q, %v; want a preview", c.def, c.args, got, err)
		}
	}
}
