package metatool_test

import (
	"errors"
	"fmt"

	"github.com/deferredtools/deferredtools/metatool"
)

// Declarations read from a file go to discovery.CatalogOptions.MetaTools; a file that
// is not in the format is refused with the rule it broke, never its content.
func ExampleParse() {
	decls, err := metatool.Parse([]byte(`{"keys": {"actions": [
		{"name": "list", "readOnlyHint": true}, {"name": "create"}, {"name": "revoke", "destructiveHint": true}]}}`))
	if err != nil {
		panic(err)
	}
	for _, a := range decls["keys"].Actions {
		fmt.Printf("keys.%s read-only hint %v\n", a.Name, a.ReadOnlyHint != nil && *a.ReadOnlyHint)
	}

	_, err = metatool.Parse([]byte(`{"keys": {"verbs": ["list"]}}`))
	var me *metatool.Error
	fmt.Println(errors.As(err, &me), me.Reason, err)
	// Output:
	// keys.list read-only hint true
	// keys.create read-only hint false
	// keys.revoke read-only hint false
	// true member metatool: declarations refused: member
}
