// Package bench holds the comparison benchmarks that measure deferredtools against peer
// libraries (bleve for ranking; santhosh-tekuri/jsonschema and google/jsonschema-go for
// validation). It is its own module so importers of deferredtools never inherit the peers.
package bench
