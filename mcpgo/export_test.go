package mcpgo

import "time"

// SetDrainLimit sets how long a's stdio front waits at the end of input for the
// answers it owes, so that a test need not wait rpcwire.DrainLimit.
func SetDrainLimit(a *Adapter, limit time.Duration) { a.drainLimit = limit }
