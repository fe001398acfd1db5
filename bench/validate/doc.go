// Package validate compares the bounded validator of
// github.com/deferredtools/deferredtools/validate with santhosh-tekuri/jsonschema/v6 and
// google/jsonschema-go on the same schemas and argument bytes (SPEC PERF-3).
//
// Each library decodes the raw argument bytes its own way and validates them, so every
// figure is decode+validate:
//
//	cd bench && go test ./validate -run '^$' -bench Validate -benchtime 2000x -count 6 | tee /tmp/v.txt
//	benchstat -col /lib /tmp/v.txt
package validate
