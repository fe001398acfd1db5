package safemode_test

import (
	"encoding/json"
	"fmt"

	"github.com/deferredtools/deferredtools/safemode"
)

// The preview a held call shows when Options.Preview is nil: what the tool does and
// which arguments were given, never their values.
func ExampleDefaultPreview() {
	def := json.RawMessage(`{"name":"model_delete","description":"Delete a model and all its versions. It cannot be undone.",` +
		`"inputSchema":{"type":"object"}}`)
	fmt.Println(safemode.DefaultPreview(def, json.RawMessage(`{"model":"prod-ranker","force":true}`)))
	// Output:
	// model_delete: Delete a model and all its versions.
	// Arguments given: force, model
}
