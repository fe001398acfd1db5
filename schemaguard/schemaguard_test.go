package schemaguard

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// SPEC CONTRACT-2: a tool digest is SHA-256 of the canonical form, so every spelling of a
// tool has one digest and any change of meaning changes it.
func TestDigest(t *testing.T) {
	spellings := []string{
		`{"name":"deploy","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":10}}}}`,
		"{\n  \"inputSchema\": {\"properties\": {\"n\": {\"maximum\": 1e1, \"type\": \"integer\"}}, \"type\": \"object\"},\n  \"name\": \"d\\u0065ploy\"\n}",
	}
	var digests [][32]byte
	for _, s := range spellings {
		c := canonical(t, s)
		d := Digest([]byte(c))
		if d != sha256.Sum256([]byte(c)) {
			t.Fatalf("Digest(%s) is not SHA-256 of its argument", c)
		}
		digests = append(digests, d)
	}
	if digests[0] != digests[1] {
		t.Errorf("two spellings of one tool have digests %x and %x", digests[0], digests[1])
	}
	other := Digest([]byte(canonical(t, `{"name":"deploy","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":11}}}}`)))
	if other == digests[0] {
		t.Error("a changed maximum left the digest unchanged")
	}
}

// SPEC CONTRACT-2: the contract digest is "sha256:" + lowercase hex of SHA-256 over the
// concatenated tool digests, in the order given (by name).
func TestContractDigest(t *testing.T) {
	a, b, c := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b")), sha256.Sum256([]byte("c"))
	concat := append(append(append([]byte{}, a[:]...), b[:]...), c[:]...)
	sum := sha256.Sum256(concat)
	want := "sha256:" + hex.EncodeToString(sum[:])
	if got := ContractDigest([][32]byte{a, b, c}); got != want {
		t.Errorf("ContractDigest(a, b, c) = %s, want %s", got, want)
	}
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(want) {
		t.Fatalf("want %q has the wrong shape", want)
	}
	if got := ContractDigest([][32]byte{b, a, c}); got == want {
		t.Error("ContractDigest ignores the order of the tools")
	}
	if got := ContractDigest([][32]byte{a, b}); got == want {
		t.Error("ContractDigest ignores a missing tool")
	}
	if got, want := ContractDigest(nil), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
		t.Errorf("ContractDigest(nil) = %s, want %s (SHA-256 of nothing)", got, want)
	}
}

// SPEC CONTRACT-3: a catalog over any of its limits is refused with a *LimitError naming
// that limit; zero and negative fields mean the documented defaults.
func TestLimitsCheck(t *testing.T) {
	atDefaults := Measure{Bytes: DefaultMaxBytes, Nodes: DefaultMaxNodes, Depth: DefaultMaxDepth}
	tests := []struct {
		name      string
		limits    Limits
		total     Measure
		wantLimit string
		wantMax   int
	}{
		{"empty catalog", Limits{}, Measure{}, "", 0},
		{"at every default", Limits{}, atDefaults, "", 0},
		{"one byte over", Limits{}, Measure{Bytes: DefaultMaxBytes + 1}, "bytes", DefaultMaxBytes},
		{"one node over", Limits{}, Measure{Nodes: DefaultMaxNodes + 1}, "nodes", DefaultMaxNodes},
		{"one level over", Limits{}, Measure{Depth: DefaultMaxDepth + 1}, "depth", DefaultMaxDepth},
		{"bytes reported first", Limits{}, Measure{Bytes: DefaultMaxBytes + 1, Nodes: DefaultMaxNodes + 1, Depth: DefaultMaxDepth + 1}, "bytes", DefaultMaxBytes},
		{"nodes before depth", Limits{}, Measure{Nodes: DefaultMaxNodes + 1, Depth: DefaultMaxDepth + 1}, "nodes", DefaultMaxNodes},
		{"custom bytes", Limits{MaxBytes: 1000}, Measure{Bytes: 1001}, "bytes", 1000},
		{"custom bytes met", Limits{MaxBytes: 1000}, Measure{Bytes: 1000, Nodes: 5, Depth: 2}, "", 0},
		{"custom nodes", Limits{MaxNodes: 10}, Measure{Bytes: 5, Nodes: 11}, "nodes", 10},
		{"custom depth", Limits{MaxDepth: 3}, Measure{Depth: 4}, "depth", 3},
		{"custom limits leave others at default", Limits{MaxDepth: 3}, Measure{Bytes: DefaultMaxBytes + 1}, "bytes", DefaultMaxBytes},
		{"raised limit", Limits{MaxBytes: DefaultMaxBytes * 2}, Measure{Bytes: DefaultMaxBytes + 1}, "", 0},
		{"negative means default", Limits{MaxBytes: -1, MaxNodes: -5, MaxDepth: -7}, atDefaults, "", 0},
		{"negative means default, over", Limits{MaxDepth: -1}, Measure{Depth: DefaultMaxDepth + 1}, "depth", DefaultMaxDepth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.limits.Check(tt.total)
			if tt.wantLimit == "" {
				if err != nil {
					t.Errorf("%s: %+v.Check(%+v) = %v, want nil", tt.name, tt.limits, tt.total, err)
				}
				return
			}
			var le *LimitError
			if !errors.As(err, &le) {
				t.Errorf("%s: %+v.Check(%+v) = %v, want a *LimitError", tt.name, tt.limits, tt.total, err)
				return
			}
			if le.Limit != tt.wantLimit || le.Max != tt.wantMax {
				t.Errorf("%s: Check(%+v) = LimitError{%s, %d}, want {%s, %d}", tt.name, tt.total, le.Limit, le.Max, tt.wantLimit, tt.wantMax)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "schemaguard: ") || !strings.Contains(msg, tt.wantLimit) {
				t.Errorf("%s: error text %q lacks the prefix or the limit's name", tt.name, msg)
			}
		})
	}
}

// SPEC CONTRACT-3: the measure of a whole catalog is the sum of its tools' canonical
// forms, so whitespace in the served JSON does not count against the limits.
func TestMeasureIsCanonical(t *testing.T) {
	compact := `{"name":"t","inputSchema":{"type":"object"}}`
	padded := "{\n\t\"name\" : \"t\" ,\n\t\"inputSchema\" : { \"type\" : \"object\" }\n}" + strings.Repeat(" ", 1000)
	_, mc, err := Canonicalize(nil, []byte(compact))
	if err != nil {
		t.Fatal(err)
	}
	_, mp, err := Canonicalize(nil, []byte(padded))
	if err != nil {
		t.Fatal(err)
	}
	if mc != mp || mc.Bytes != len(compact) {
		t.Errorf("Measure(compact) = %+v, Measure(padded) = %+v, want both {Bytes:%d ...}", mc, mp, len(compact))
	}
	limits := Limits{MaxBytes: len(compact)}
	if err := limits.Check(mp); err != nil {
		t.Errorf("padded tool of %d canonical bytes refused at MaxBytes %d: %v", mp.Bytes, len(compact), err)
	}
}
