package schemaguard_test

import (
	"errors"
	"fmt"

	"github.com/deferredtools/deferredtools/schemaguard"
)

// Two spellings of one tool have one canonical form, hence one digest.
func ExampleCanonicalize() {
	a := []byte(`{
		"name": "search_models",
		"inputSchema": {"type": "object", "properties": {"limit": {"type": "integer", "maximum": 1E2}}}
	}`)
	b := []byte(`{"inputSchema":{"properties":{"limit":{"maximum":100.0,"type":"integer"}},"type":"object"},"name":"search_\u006dodels"}`)

	ca, m, err := schemaguard.Canonicalize(nil, a)
	if err != nil {
		fmt.Println(err)
		return
	}
	cb, _, _ := schemaguard.Canonicalize(nil, b)
	fmt.Printf("%s\n%+v\n", ca, m)
	fmt.Println("same digest:", schemaguard.Digest(ca) == schemaguard.Digest(cb))

	_, _, err = schemaguard.Canonicalize(nil, []byte(`{"name":"a","name":"b"}`))
	fmt.Println(err, errors.Is(err, schemaguard.ErrMalformed))
	// Output:
	// {"inputSchema":{"properties":{"limit":{"maximum":100,"type":"integer"}},"type":"object"},"name":"search_models"}
	// {Bytes:112 Nodes:8 Depth:4}
	// same digest: true
	// schemaguard: malformed JSON: duplicate object key true
}

// The contract digest hashes the tool digests in name order.
func ExampleContractDigest() {
	var digests [][32]byte
	for _, tool := range []string{`{"name":"a_tool"}`, `{"name":"b_tool"}`} {
		canonical, _, _ := schemaguard.Canonicalize(nil, []byte(tool))
		digests = append(digests, schemaguard.Digest(canonical))
	}
	fmt.Println(schemaguard.ContractDigest(digests))
	fmt.Println(schemaguard.ContractDigest(nil))
	// Output:
	// sha256:5cb84c9f1421ec1f745b78684910dc8846d11c9adf20143d541a04273b2e4992
	// sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
}

// A catalog over a limit is refused with the limit's name.
func ExampleLimits_Check() {
	limits := schemaguard.Limits{MaxDepth: 8} // the other limits keep their defaults
	err := limits.Check(schemaguard.Measure{Bytes: 1 << 20, Nodes: 30000, Depth: 9})
	var le *schemaguard.LimitError
	if errors.As(err, &le) {
		fmt.Println(le.Limit, le.Max)
	}
	fmt.Println(err)
	// Output:
	// depth 8
	// schemaguard: catalog exceeds the depth limit of 8
}
