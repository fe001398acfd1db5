// Package demo holds the demonstration catalog the examples serve: 43 tools of a
// machine-learning platform (model registry, datasets, training, evaluation,
// deployments, inference, billing, API keys, monitoring), their grant rows, and two
// principals. One tool, keys, takes an action argument (list, create, revoke):
// metatools.json declares it a meta tool (metatool.Parse), whose actions
// the rows keys.list, keys.create and keys.revoke grant; without that declaration no
// row names keys and it is never granted.
package demo

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/deferredtools/deferredtools/grants"
)

//go:embed tools.json
var toolsJSON []byte

//go:embed grants.json
var grantsJSON []byte

// Alice is an ML engineer: she reads the registry, writes models, data and training
// jobs, deploys, and runs inference.
var Alice = grants.Principal{ID: "alice", Scopes: []string{
	"registry:read", "registry:write", "data:write", "training:write", "deploy:write", "inference:use",
}}

// Bob is a finance analyst: he reads the registry and administers billing; a row of his
// own denies him deployment logs.
var Bob = grants.Principal{ID: "bob", Scopes: []string{"registry:read", "billing:admin"}}

// Tools returns the catalog, each tool the JSON text of a complete MCP tool definition.
func Tools() []json.RawMessage {
	var tools []json.RawMessage
	if err := json.Unmarshal(toolsJSON, &tools); err != nil {
		panic(fmt.Sprintf("demo: embedded catalog: %v", err))
	}
	return tools
}

// JSONError returns err, an error of encoding/json decoding a file, without file
// content: a syntax error, whose text quotes the offending character, becomes the
// position of the byte where the syntax breaks, counted from 1; a type error, whose
// text names the value's path (map keys included: the bearer tokens of a -tokens file),
// becomes the position of the value (encoding/json: its end; with GOEXPERIMENT=jsonv2:
// its start). Other errors (an end of input) are returned as they are.
func JSONError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("syntax error at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("a value of the wrong type near byte %d", te.Offset)
	}
	return err
}

// Row is a grant row as the examples' JSON files spell it.
type Row struct {
	Principal string   `json:"principal"`
	Tool      string   `json:"tool"`
	Scopes    []string `json:"scopes"`
	Effect    string   `json:"effect"`
	Revision  int64    `json:"revision"`
}

// ParseRows decodes a JSON array of grant rows.
func ParseRows(data []byte) ([]grants.Row, error) {
	var in []Row
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("not a JSON array of grant rows: %w", JSONError(err))
	}
	rows := make([]grants.Row, len(in))
	for i, r := range in {
		rows[i] = grants.Row{Principal: r.Principal, Tool: r.Tool, Scopes: r.Scopes, Effect: grants.Effect(r.Effect), Revision: r.Revision}
	}
	return rows, nil
}

// Rows returns the demo grant rows: compatibility rows (principal "*") granting every
// tool behind the scope it needs, and Bob's deny row.
func Rows() []grants.Row {
	rows, err := ParseRows(grantsJSON)
	if err != nil {
		panic(err)
	}
	return rows
}
