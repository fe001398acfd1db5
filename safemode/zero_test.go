package safemode_test

import (
	"fmt"
	"testing"

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
		got, err := func() (got string, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return safemode.DefaultPreview(c.def, c.args), nil
		}()
		if err != nil || got == "" {
			t.Errorf("DefaultPreview(%q, %q) = %q, %v; want a preview", c.def, c.args, got, err)
		}
	}
}
