package adaptertest

import (
	"encoding/json"
	"testing"
)

// RPCError is a JSON-RPC error object as the wire carries it, with the data member the
// adapters write (the discovery code and its HTTP status).
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	} `json:"data"`
}

// DecodeError returns the error object of the JSON-RPC response resp, nil for a
// response without one; it fails the test when resp is not JSON.
func DecodeError(t testing.TB, resp []byte) *RPCError {
	t.Helper()
	var env struct {
		Error *RPCError `json:"error"`
	}
	if err := json.Unmarshal(resp, &env); err != nil {
		t.Fatalf("response %s: %v", resp, err)
	}
	return env.Error
}
