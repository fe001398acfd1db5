package metatool_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/deferredtools/deferredtools/internal/nopanic"
	"github.com/deferredtools/deferredtools/metatool"
)

// Parse refuses empty, null and empty-object text with ErrRefused and no declarations,
// never a panic; a zero Error still reads as a refusal. SPEC ERR-5.
func TestZeroAndNil(t *testing.T) {
	for _, text := range [][]byte{nil, {}, []byte("null"), []byte("{}"), []byte("[]")} {
		err := nopanic.Call(func() error {
			if m, err := metatool.Parse(text); m != nil || !errors.Is(err, metatool.ErrRefused) {
				return fmt.Errorf("= %v, %v; want nil and ErrRefused", m, err)
			}
			return nil
		})
		if err != nil {
			t.Errorf("Parse(%q) %v", text, err)
		}
	}
	var e metatool.Error
	if !errors.Is(&e, metatool.ErrRefused) || e.Error() == "" {
		t.Errorf("zero Error: %q, errors.Is ErrRefused = %v", e.Error(), errors.Is(&e, metatool.ErrRefused))
	}
}
