package validate_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/deferredtools/deferredtools/internal/nopanic"
	"github.com/deferredtools/deferredtools/validate"
)

// Both Compilers, from a nil, a zero or a negative-limit options value, are the same
// Compiler with default Limits: an empty schema text is unsupported (malformed), never
// a panic or a Validator; empty argument text is validated as {} (the package doc,
// "Absent arguments"). SPEC CALL-4, CALL-5, ERR-5.
func TestZeroOptions(t *testing.T) {
	neg := validate.Limits{MaxDepth: -1, MaxNodes: -1, MaxStringUnits: -1, MaxSteps: -1, MaxPattern: -1}
	deep := []byte(`{"a":`)
	for i := 0; i < 40; i++ {
		deep = append(deep, `{"a":`...)
	}
	deep = append(deep, '1')
	for i := 0; i < 41; i++ {
		deep = append(deep, '}')
	}
	for _, c := range []struct {
		name string
		c    validate.Compiler
	}{
		{"NewCompiler(nil)", validate.NewCompiler(nil)},
		{"NewCompiler(zero)", validate.NewCompiler(&validate.Options{})},
		{"NewCompiler(negative)", validate.NewCompiler(&validate.Options{Limits: neg})},
		{"NewFull(nil)", validate.NewFull(nil)},
		{"NewFull(zero)", validate.NewFull(&validate.FullOptions{})},
		{"NewFull(negative)", validate.NewFull(&validate.FullOptions{Limits: neg})},
	} {
		err := nopanic.Call(func() error {
			for _, schema := range [][]byte{nil, {}} {
				if v, err := c.c.Compile(schema); v != nil || !errors.Is(err, validate.ErrUnsupported) {
					return fmt.Errorf("Compile(%q) = %v, %v; want ErrUnsupported", schema, v, err)
				}
			}
			v, err := c.c.Compile([]byte(`{"type":"object","required":["a"]}`))
			if err != nil {
				return err
			}
			if err := v.Validate(nil); !errors.Is(err, validate.ErrInvalid) {
				return fmt.Errorf("Validate(nil) = %v, want ErrInvalid (validated as {}: a missing)", err)
			}
			if err := v.Validate(deep); !errors.Is(err, validate.ErrLimit) {
				return fmt.Errorf("Validate(41 levels) = %v, want ErrLimit (default depth 32)", err)
			}
			return nil
		})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
