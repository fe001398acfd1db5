package validate_test

import (
	"errors"
	"fmt"

	"github.com/deferredtools/deferredtools/validate"
)

func Example() {
	schema := []byte(`{
		"type": "object",
		"properties": {
			"model": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
			"replicas": {"type": "integer", "minimum": 1, "maximum": 8, "default": 1}
		},
		"required": ["model"],
		"additionalProperties": false
	}`)
	v, err := validate.NewCompiler(nil).Compile(schema)
	if err != nil {
		panic(err)
	}
	for _, args := range []string{
		`{"model": "fraud-scorer", "replicas": 2}`,
		`{"model": "fraud-scorer", "replicas": 2.0}`,
		`{"model": "fraud-scorer", "replicas": 9}`,
		`{"model": "Fraud Scorer"}`,
		`{"replicas": 1}`,
		`{"model": "a", "model": "b"}`,
		``,
	} {
		err := v.Validate([]byte(args))
		var ve *validate.ValidationError
		switch {
		case err == nil:
			fmt.Println("valid")
		case errors.As(err, &ve):
			fmt.Printf("invalid: %s at %q\n", ve.Keyword, ve.Path)
		default:
			fmt.Println(err)
		}
	}
	// Output:
	// valid
	// valid
	// invalid: maximum at "/replicas"
	// invalid: pattern at "/model"
	// invalid: required at "/model"
	// validate: invalid arguments: duplicate object key
	// invalid: required at "/model"
}

func ExampleOptions() {
	schema := []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Echo", "type": "object"}`)
	_, err := validate.NewCompiler(nil).Compile(schema)
	fmt.Println(err, errors.Is(err, validate.ErrUnsupported))

	annotated := validate.NewCompiler(&validate.Options{Annotations: validate.AnnotationKeywords})
	_, err = annotated.Compile(schema)
	fmt.Println(err)
	// Output:
	// validate: unsupported keyword "$schema" true
	// <nil>
}

func ExampleNewFull() {
	full := validate.NewFull(nil)
	v, err := full.Compile([]byte(`{"$defs": {"id": {"type": "integer"}}, "properties": {"id": {"$ref": "#/$defs/id"}, "kind": {"const": "model"}}}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Validate([]byte(`{"id": 7, "kind": "model"}`)))
	fmt.Println(v.Validate([]byte(`{"id": 7, "kind": "dataset"}`)))

	_, err = full.Compile([]byte(`{"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}`))
	fmt.Println(err)
	// Output:
	// <nil>
	// validate: const failed at ""
	// validate: unsupported keyword "$ref"
}
