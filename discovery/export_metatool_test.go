package discovery

// ReadAction is readAction, the action gate's reader, for the fuzz test against
// encoding/json.
var ReadAction = readAction
